//go:build !linux && !darwin

package procinfo

import (
	"errors"
	"fmt"
)

// Elsewhere no shell's terminal can be read: herdr's pane.process_info is
// the only source.
func newFrontSource() (frontSource, error) {
	return nil, fmt.Errorf("reading a shell's terminal: %w", errors.ErrUnsupported)
}

// readStat: here no process's stat is read.
func readStat(pid int) (Stat, error) {
	return Stat{}, fmt.Errorf("stat of pid %d: %w", pid, errors.ErrUnsupported)
}
