//go:build !linux

package seccomp

import (
	"errors"
	"syscall"
)

// RefuseIOURing: seccomp and io_uring are Linux's.
func RefuseIOURing(errno syscall.Errno) error {
	return errors.New("seccomp: Linux only")
}
