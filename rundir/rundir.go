// Package rundir decides where herdrtabrenamer keeps its runtime files (the
// nudge socket and the single-instance lock) and how a herdr server is
// named in file names. Everything that needs those paths asks here: the
// daemon, `nudge`, and the commands that edit the state.
//
// The runtime directory must be private: another local user who owns it,
// or plants a symlink there, could hold our lock, bind our nudge socket or
// make us chmod a directory of theirs. So it is checked (owner, mode, not
// a symlink) before use, and without $XDG_RUNTIME_DIR it lives under the
// user's own cache directory, which no other user can pre-create, rather
// than in the shared temporary directory.
package rundir

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// Name is the directory's last element.
const Name = "herdrtabrenamer"

// Path is the runtime directory, without creating or checking it (the
// nudge fast path): $XDG_RUNTIME_DIR/herdrtabrenamer, else
// <user cache dir>/herdrtabrenamer/run.
func Path() (string, error) {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, Name), nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no private runtime directory: $XDG_RUNTIME_DIR is unset and %v; set XDG_RUNTIME_DIR", err)
	}
	return filepath.Join(cache, Name, "run"), nil
}

// Dir is Path, created (0700) when missing and checked by Check.
func Dir() (string, error) {
	dir, err := Path()
	if err != nil {
		return "", err
	}
	// Parents are the user's own (or $XDG_RUNTIME_DIR); only the last
	// element is ours to create and vouch for.
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return "", fmt.Errorf("runtime dir %s: %w", dir, err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("runtime dir %s: %w", dir, err)
	}
	return dir, Check(dir)
}

// Check refuses a directory that is a symlink, not a directory, or owned
// by another user, and tightens a loose mode of one we own to 0700.
func Check(dir string) error {
	loose, err := Verify(dir)
	if err != nil || !loose {
		return err
	}
	// Ours and not a symlink: tightening cannot touch anyone else's.
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("runtime dir %s: make it private: %w", dir, err)
	}
	return nil
}

// Verify is Check without the repair, for a look that must not write
// (status): loose says that others may enter the directory, which Check
// would then forbid.
func Verify(dir string) (loose bool, err error) {
	fi, err := os.Lstat(dir)
	if err != nil {
		return false, fmt.Errorf("runtime dir %s: %w", dir, err)
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return false, fmt.Errorf("runtime dir %s is a symlink; refusing to use it (remove it if you did not make it)", dir)
	}
	if !fi.IsDir() {
		return false, fmt.Errorf("runtime dir %s is not a directory; refusing to use it", dir)
	}
	if uid, ok := owner(fi); ok && uid != os.Geteuid() {
		return false, fmt.Errorf("runtime dir %s is owned by uid %d, not by you (uid %d); refusing to use it", dir, uid, os.Geteuid())
	}
	return fi.Mode().Perm()&0o077 != 0, nil
}

// Key names one herdr server by its socket path in file names (the state
// file, the nudge socket): two named herdr sessions both have a w1:t1. A
// short hash keeps socket paths under the 108-byte sun_path limit.
func Key(herdrSocket string) string {
	abs, err := filepath.Abs(herdrSocket)
	if err != nil {
		abs = herdrSocket
	}
	sum := sha256.Sum256([]byte(abs))
	return hex.EncodeToString(sum[:8])
}

// NudgeSocket is the daemon's nudge socket for a herdr server. The path is
// resolved first, as for ServerID: a shell hook that spells the herdr
// socket through a symlinked directory must reach the daemon that spells
// it plainly.
func NudgeSocket(herdrSocket string) (string, error) {
	dir, err := Path()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, NudgeKey(herdrSocket)+".nudge"), nil
}

// NudgeKey is the name of a herdr server's nudge socket, without the
// directory and extension: the Key of its resolved path.
func NudgeKey(herdrSocket string) string { return Key(resolved(herdrSocket)) }

// ServerID names the herdr server itself rather than how its path is
// spelled: the socket's device and inode, the same through a symlinked
// directory, a hard link, a bind mount or another $XDG_RUNTIME_DIR. ok is
// false when there is no socket to look at (herdr is not running); the id
// is then the resolved path's Key, which the caller should replace once
// the socket exists. An inode number is reused once its file is gone, so
// a daemon whose herdr went away lets go of the inode's id and holds the
// path's meanwhile (daemon's claim.follow).
func ServerID(herdrSocket string) (id string, ok bool) {
	if fi, err := os.Stat(herdrSocket); err == nil {
		if dev, ino, ok := devIno(fi); ok {
			return "srv-" + strconv.FormatUint(dev, 16) + "-" + strconv.FormatUint(ino, 16), true
		}
	}
	return "path-" + Key(resolved(herdrSocket)), false
}

// resolved is the socket path with its directory's symlinks resolved (the
// socket itself may not exist yet).
func resolved(herdrSocket string) string {
	if dir, err := filepath.EvalSymlinks(filepath.Dir(herdrSocket)); err == nil {
		return filepath.Join(dir, filepath.Base(herdrSocket))
	}
	return herdrSocket
}
