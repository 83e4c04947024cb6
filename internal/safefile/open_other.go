//go:build !unix

package safefile

import (
	"os"
	"path/filepath"
)

// openNonblock opens path; outside Unix a path cannot name a FIFO that
// blocks the opener.
func openNonblock(path string) (*os.File, error) { return os.Open(path) }

// openNoFollow refuses a symlink by looking before opening: outside Unix
// there is no O_NOFOLLOW.
func openNoFollow(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return nil, &os.PathError{Op: "open", Path: path, Err: ErrSymlink}
	}
	return os.Open(path)
}

// checkOwner accepts every file: outside Unix a file's owner is no uid.
func checkOwner(string, os.FileInfo, int) error { return nil }

// openBeneath opens the joined path: without openat there is no walk that
// a swapped folder cannot redirect.
func openBeneath(root, rel string) (*os.File, error) {
	return openNoFollow(filepath.Join(root, rel))
}

// openDir opens path: outside Unix a path cannot name a FIFO that blocks
// the opener.
func openDir(path string) (*os.File, error) { return os.Open(path) }
