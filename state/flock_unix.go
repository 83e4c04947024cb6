//go:build unix

package state

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// flockFile takes an flock on path (created 0600), blocking. The returned
// func releases it. The file is never unlinked: unlinking a lock file
// races with the next taker. It is opened non-blocking, which changes
// nothing for a lock file and keeps a FIFO someone made at its path from
// holding the open.
func flockFile(path string, exclusive bool) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|unix.O_NONBLOCK, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	if err := unix.Flock(int(f.Fd()), how); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	return func() {
		_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
		f.Close()
	}, nil
}
