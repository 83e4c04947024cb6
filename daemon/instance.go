package daemon

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// ErrAlreadyRunning means another daemon holds the instance lock for the
// same herdr server.
var ErrAlreadyRunning = errors.New("already running")

// Instance is the single-instance lock for one herdr server. The kernel
// drops it when the process dies, so a crash never leaves it stuck.
type Instance struct {
	f *os.File
}

// AcquireInstance takes the lock at path without blocking. When another
// process holds it, the error wraps ErrAlreadyRunning and names the holder.
func AcquireInstance(path string) (*Instance, error) {
	// O_NOFOLLOW: without $XDG_RUNTIME_DIR the lock sits in the shared
	// temporary directory at a predictable name; a planted symlink must
	// not make us truncate its target.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open instance lock %s: %w", path, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			holder := "another process"
			if b, rerr := os.ReadFile(path); rerr == nil && len(strings.TrimSpace(string(b))) > 0 {
				holder = strings.TrimSpace(string(b))
			}
			return nil, fmt.Errorf("%w: %s holds %s", ErrAlreadyRunning, holder, path)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	info := "pid " + strconv.Itoa(os.Getpid()) + " since " + time.Now().Format(time.RFC3339)
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(info+"\n"), 0)
	}
	return &Instance{f: f}, nil
}

// Release drops the lock. The file stays: unlinking races with the next
// daemon taking it.
func (in *Instance) Release() {
	if in == nil || in.f == nil {
		return
	}
	_ = in.f.Truncate(0)
	_ = unix.Flock(int(in.f.Fd()), unix.LOCK_UN)
	in.f.Close()
	in.f = nil
}
