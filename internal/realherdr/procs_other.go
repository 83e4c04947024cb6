//go:build !linux

package realherdr

import (
	"errors"
	"fmt"
	"time"
)

// Process is one process found running for a server.
type Process struct {
	PID  int
	Comm string
}

func (p Process) String() string { return fmt.Sprintf("%d (%s)", p.PID, p.Comm) }

// Leftovers finds nothing here: it reads /proc, which only Linux has.
func Leftovers(socket string) []Process { return nil }

func killPID(int) error { return nil }

// Pause is not supported here.
func (s *Server) Pause(time.Duration) error { return errors.ErrUnsupported }
