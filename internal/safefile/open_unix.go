//go:build unix

package safefile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
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

// openBeneath opens root, then each part of rel in turn relative to the
// folder before it, none through a symlink (O_NOFOLLOW), the last without
// blocking.
func openBeneath(root, rel string) (*os.File, error) {
	path := filepath.Join(root, rel)
	dir, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: root, Err: err}
	}
	parts := strings.Split(filepath.Clean(rel), string(filepath.Separator))
	for i, part := range parts {
		if part == ".." || part == "." || part == "" {
			unix.Close(dir)
			return nil, &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("%q is no name below %s", rel, root)}
		}
		flags := unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_CLOEXEC
		if i < len(parts)-1 {
			flags |= unix.O_DIRECTORY
		} else {
			flags |= unix.O_NONBLOCK
		}
		next, err := unix.Openat(dir, part, flags, 0)
		unix.Close(dir)
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) && i < len(parts)-1 {
			return nil, &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("%s: %w (or no folder)", part, ErrSymlink)}
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		dir = next
	}
	return os.NewFile(uintptr(dir), path), nil
}

// openDir opens path with O_DIRECTORY, which fails at once on anything but
// a folder, and O_NONBLOCK besides.
func openDir(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NONBLOCK, 0)
}
