// Package safefile opens the files the daemon reads from places other
// users or programs can shape (the state file, the config file, git
// metadata in any folder a pane visits, agent transcripts a herdr pane
// points to) without ever blocking: a FIFO or a device at such a path
// would otherwise hang the reader forever, as anyone can make /tmp/.git a
// FIFO. Only regular files are read, and only up to a bound. OpenOwned
// also refuses a symlink and a file another user owns.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Errors the opening functions wrap.
var (
	// ErrNotRegular is returned for a path that names a FIFO, a device, a
	// socket or a folder.
	ErrNotRegular = errors.New("not a regular file")
	// ErrSymlink is returned by OpenOwned for a path that is a symlink.
	ErrSymlink = errors.New("a symlink")
	// ErrNotOwned is returned by OpenOwned for a file another user owns.
	ErrNotOwned = errors.New("owned by another user")
)

// Open opens path for reading if it is a regular file, without blocking
// on anything else; the error for another kind of file wraps
// ErrNotRegular.
func Open(path string) (*os.File, error) {
	f, err := openNonblock(path)
	if err != nil {
		return nil, err
	}
	if _, err := regular(f, path); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// OpenOwned is Open for a file that must also be no symlink (as its last
// component: the caller resolves the folders) and be owned by uid. It
// returns what the open file's stat said, so the caller sees the very
// file it reads.
func OpenOwned(path string, uid int) (*os.File, os.FileInfo, error) {
	f, err := openNoFollow(path)
	return owned(f, err, path, uid)
}

// OpenDir opens a folder for listing, without blocking on anything else
// at its path (a FIFO there would hold os.Open for as long as no one
// writes to it).
func OpenDir(path string) (*os.File, error) { return openDir(path) }

// OpenOwnedBeneath is OpenOwned for root/rel, where rel holds no symlink
// (the caller resolved them): every folder on the way is opened without
// following a symlink, so a folder swapped for a symlink after the caller
// looked leads nowhere instead of elsewhere. On systems without openat it
// is OpenOwned of the joined path.
func OpenOwnedBeneath(root, rel string, uid int) (*os.File, os.FileInfo, error) {
	f, err := openBeneath(root, rel)
	return owned(f, err, filepath.Join(root, rel), uid)
}

// owned checks what an opener returned for path: a regular file that uid
// owns, else it is closed and an error returned.
func owned(f *os.File, err error, path string, uid int) (*os.File, os.FileInfo, error) {
	if err != nil {
		return nil, nil, err
	}
	fi, err := regular(f, path)
	if err == nil {
		err = checkOwner(path, fi, uid)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// CheckOwner reports an error, wrapping ErrNotOwned, unless uid owns the
// file fi describes (outside Unix, where a file's owner is no uid, none).
func CheckOwner(path string, fi os.FileInfo, uid int) error { return checkOwner(path, fi, uid) }

// regular stats the open file f and errs unless it is a regular file.
func regular(f *os.File, path string) (os.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(fi.Mode()))}
	}
	return fi, nil
}

// ReadFile reads a regular file of at most max bytes; a longer one is an
// error, read no further than max+1 bytes.
func ReadFile(path string, max int64) ([]byte, error) {
	f, err := openNonblock(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := regular(f, path)
	if err != nil {
		return nil, err
	}
	// One buffer of the size the file says (and a byte to tell it is
	// longer): reading in doubling steps would allocate twice its size.
	b := make([]byte, min(fi.Size(), max)+1)
	n, err := io.ReadFull(f, b)
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		b = b[:n]
	case err != nil:
		return nil, err
	default: // it grew since the stat
		more, err := io.ReadAll(io.LimitReader(f, max+1-int64(n)))
		if err != nil {
			return nil, err
		}
		b = append(b, more...)
	}
	if int64(len(b)) > max {
		return nil, &os.PathError{Op: "read", Path: path, Err: fmt.Errorf("larger than %d bytes", max)}
	}
	return b, nil
}

// Kind names a file's type for a message: "a regular file", "a folder",
// "a symlink", "a FIFO", "a device", "a socket", else "an odd file".
func Kind(m os.FileMode) string {
	switch {
	case m.IsRegular():
		return "a regular file"
	case m.IsDir():
		return "a folder"
	case m&os.ModeSymlink != 0:
		return "a symlink"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "an odd file"
}

func kind(m os.FileMode) string {
	if m.IsRegular() {
		return "not a plain file"
	}
	return Kind(m)
}
