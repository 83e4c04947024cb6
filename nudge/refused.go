//go:build unix

package nudge

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

func isRefused(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT)
}

// senderCheck is the cheap half of rundir.Check for the prompt's fast
// path (one lstat): the socket's directory must be ours and no symlink. A
// missing directory is no daemon.
func senderCheck(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w (no directory %s)", ErrNoDaemon, dir)
	}
	if err != nil {
		return fmt.Errorf("nudge: %w", err)
	}
	if fi.Mode()&os.ModeSymlink != 0 || !fi.IsDir() {
		return fmt.Errorf("nudge: %s is not a plain directory; refusing to send there", dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("nudge: %s is owned by uid %d, not by you; refusing to send there", dir, st.Uid)
	}
	return nil
}
