package claim

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
)

// InstanceLockPath is the single-instance lock of the daemon that serves
// the herdr server at herdrSocket.
// It is the lock claimServer takes, so a running daemon holds it.
func InstanceLockPath(herdrSocket string) string {
	dir, _ := rundir.Path()
	id, _ := rundir.ServerID(herdrSocket)
	return filepath.Join(dir, id+".lock")
}

// RestoreLockPath is the lock a restore of the herdr server at
// herdrSocket holds for its whole run, beside the daemon's
// (InstanceLockPath): a second restore finds it taken and stops, where
// taking the daemon's for the daemon's it would stop the first with
// SIGTERM.
func RestoreLockPath(herdrSocket string) string {
	dir, _ := rundir.Path()
	id, _ := rundir.ServerID(herdrSocket)
	return filepath.Join(dir, id+".restore.lock")
}

// TakeOver takes the daemon's instance lock for herdrSocket, so no daemon
// runs (and none starts) while the caller undoes what daemons did. With
// stop, a running daemon gets SIGTERM and up to wait to let go; pid is the
// daemon that held the lock (0 when none did). Without stop, a running
// daemon is an error wrapping ErrAlreadyRunning.
func TakeOver(herdrSocket string, stop bool, wait time.Duration) (inst *Instance, pid int, err error) {
	if _, err := rundir.Dir(); err != nil {
		return nil, 0, err
	}
	path := InstanceLockPath(herdrSocket)
	inst, err = AcquireInstance(path)
	if err == nil || !errors.Is(err, ErrAlreadyRunning) {
		return inst, 0, err
	}
	pid = HolderPID(path)
	if !stop {
		return nil, pid, err
	}
	if pid == 0 {
		return nil, 0, fmt.Errorf("stop the daemon: %w (no pid in %s)", err, path)
	}
	p, ferr := os.FindProcess(pid)
	if ferr == nil {
		ferr = p.Signal(syscall.SIGTERM)
	}
	if ferr != nil {
		return nil, pid, fmt.Errorf("stop the daemon (pid %d): %w", pid, ferr)
	}
	deadline := time.Now().Add(wait)
	for {
		inst, err = AcquireInstance(path)
		if err == nil || !errors.Is(err, ErrAlreadyRunning) || time.Now().After(deadline) {
			if err != nil {
				err = fmt.Errorf("the daemon (pid %d) did not stop within %v after SIGTERM: %w", pid, wait, err)
			}
			return inst, pid, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}
