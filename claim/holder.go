package claim

import (
	"context"
	"time"

	"github.com/shirou/gopsutil/v4/process"
)

// startSlack absorbs the coarseness of a process's start time as the
// kernel reports it (clock ticks since a boot time counted in seconds).
const startSlack = time.Second

// Running reads the holder of the daemon lock at path and says whether it
// is a live daemon. A daemon killed with SIGKILL leaves its line behind,
// and its pid may belong to another process by now: a holder is believed
// only while its process exists and started before it took the lock.
func Running(path string) (Holder, bool) {
	h, ok := ReadHolder(path)
	if !ok {
		return Holder{}, false
	}
	return h, h.alive()
}

// alive says whether the holder's process is the one that took the lock.
// A line without a time is believed while the pid exists.
func (h Holder) alive() bool {
	ctx := context.Background()
	p, err := process.NewProcessWithContext(ctx, int32(h.PID))
	if err != nil {
		return false
	}
	if h.Since.IsZero() {
		return true
	}
	ms, err := p.CreateTimeWithContext(ctx)
	if err != nil {
		// Exists, but its start cannot be read (another user's): the
		// lock is ours alone, so another user's process is not our
		// daemon.
		return false
	}
	return !time.UnixMilli(ms).After(h.Since.Add(startSlack))
}
