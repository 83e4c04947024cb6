package claim

import (
	"context"
	"time"

	"github.com/shirou/gopsutil/v4/process"
)

// startSlack absorbs the coarseness of a process's start time as the
// kernel reports it in wall-clock time (clock ticks since a boot time
// counted in seconds): a line without the holder's own start is judged
// by it.
const startSlack = time.Second

// Running reads the holder of the daemon lock at path and says whether it
// is a live daemon. A daemon killed with SIGKILL leaves its line behind,
// and its pid may belong to another process by now: a holder is believed
// only while its process is the one that took the lock.
func Running(path string) (Holder, bool) {
	h, ok := ReadHolder(path)
	if !ok {
		return Holder{}, false
	}
	return h, h.alive(processStart)
}

// alive says whether the holder's process is the one that took the lock.
// With the start the line records, its pid's process is that one only if
// it started at that very moment, as startOf (processStart) reads it: a
// process given the pid since, however soon, started later. A line from
// before starts were recorded is believed while its pid's process
// started no later than startSlack after the line's time, or, with no
// time either, while the pid exists.
func (h Holder) alive(startOf func(pid int) (uint64, error)) bool {
	if h.Start != 0 {
		start, err := startOf(h.PID)
		return err == nil && start == h.Start
	}
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
