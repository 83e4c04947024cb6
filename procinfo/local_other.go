//go:build !linux && !darwin

package procinfo

import (
	"errors"
	"fmt"
)

func foregroundPGID(pid int) (int, error) {
	return 0, fmt.Errorf("foreground group of pid %d: %w", pid, errors.ErrUnsupported)
}

func children(pid int) ([]int, error) { return gopsutilChildren(pid) }
