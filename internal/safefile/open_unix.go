//go:build unix

package safefile

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// openNonblock opens path with O_NONBLOCK, so that opening a FIFO with
// no writer returns at once; on a regular file the flag changes nothing.
func openNonblock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// openNoFollow is openNonblock that also refuses a symlink as the last
// component: O_NOFOLLOW makes the kernel answer ELOOP for one.
func openNoFollow(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, &os.PathError{Op: "open", Path: path, Err: ErrSymlink}
	}
	return f, err
}

// checkOwner reports an error unless uid owns the file fi describes.
func checkOwner(path string, fi os.FileInfo, uid int) error {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if int(st.Uid) != uid {
		return &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (uid %d, not %d)", ErrNotOwned, st.Uid, uid)}
	}
	return nil
}
