package daemon

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// ErrAlreadyRunning means another daemon holds the instance lock for the
// same herdr server.
var ErrAlreadyRunning = errors.New("already running")

// errLockBusy: another process holds a lock tryLockFile asked for.
var errLockBusy = errors.New("lock held by another process")

// Instance is the single-instance lock for one herdr server. The kernel
// drops it when the process dies, so a crash never leaves it stuck.
type Instance struct {
	f *os.File
}

// AcquireInstance takes the lock at path without blocking. When another
// process holds it, the error wraps ErrAlreadyRunning and names the holder.
func AcquireInstance(path string) (*Instance, error) {
	f, err := openLockFile(path)
	if err != nil {
		return nil, fmt.Errorf("open instance lock %s: %w", path, err)
	}
	if err := tryLockFile(f); err != nil {
		defer f.Close()
		if errors.Is(err, errLockBusy) {
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
	unlockFile(in.f)
	in.f.Close()
	in.f = nil
}
