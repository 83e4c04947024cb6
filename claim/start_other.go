//go:build !linux && !darwin && !windows

package claim

import (
	"errors"
	"fmt"
)

// processStart: here no exact start of a process is read; a lock line
// records none, and its holder is judged by the wall-clock rule.
func processStart(pid int) (uint64, error) {
	return 0, fmt.Errorf("start of pid %d: %w", pid, errors.ErrUnsupported)
}
