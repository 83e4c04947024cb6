//go:build unix

package claim

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// openLockFile opens (creating 0600) a lock file without following a
// symlink: without $XDG_RUNTIME_DIR the lock sits in the shared temporary
// directory at a predictable name, and a planted symlink must not make us
// truncate its target.
func openLockFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
}

// tryLockFile takes an exclusive lock without blocking; errLockBusy when
// another process holds it.
func tryLockFile(f *os.File) error {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, unix.EWOULDBLOCK) {
		return errLockBusy
	}
	return err
}

func unlockFile(f *os.File) { _ = unix.Flock(int(f.Fd()), unix.LOCK_UN) }
