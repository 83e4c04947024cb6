package daemon

import (
	"context"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// A preexec nudge comes before the program it announces exists: a wait
// looks at the pane (bounded) until its foreground group changes, reading
// the session meanwhile, so that once the program is there its pass needs
// no request but the rename. A title set at the prompt gets a shorter
// wait of its own.

// preexecReady is a wait whose program has appeared (or whose time ran
// out), with the snapshot taken meanwhile.
type preexecReady struct {
	pane   string
	snap   *herdr.Snapshot // nil when the read failed or none was asked
	at     time.Time       // when snap was asked for
	passes uint64          // d.passes when it was asked for
	skip   bool            // nothing changed: no pass
}

// preexecWait is one wait for a program to start in a pane.
type preexecWait struct {
	pane    string
	changed func(context.Context) bool
	every   time.Duration
	window  time.Duration
	// snapshot: read the session meanwhile (a preexec nudge: a program is
	// surely coming), with this timeout.
	snapshot bool
	timeout  time.Duration
	// onlyIfChanged: no pass when the window ends with nothing changed
	// (a title change at the prompt may start no program).
	onlyIfChanged bool
}

// wait starts a wait for a program to start in a pane, one per pane.
func (l *loop) wait(w preexecWait) {
	if l.waits[w.pane] {
		return
	}
	l.waits[w.pane] = true
	// A wait whose program is there at its first look ends at once, and
	// the next preexec nudge starts another: without this gap a flood of
	// them read the session once per nudge. A wait without its own read
	// leaves the reading to its pass.
	if w.snapshot {
		if now := l.d.now(); now.Sub(l.lastReadAhead) >= nudgeGap {
			l.lastReadAhead = now
		} else {
			w.snapshot = false
		}
	}
	w.changed, w.every = l.d.foregroundProbe(w.pane)
	go l.d.awaitProgram(l.ctx, w, l.preexecDone)
}

// foregroundProbe captures, on the loop goroutine, what a wait needs to
// notice a program start without touching loop state, and its interval:
// local looks at the shell's terminal are cheap, socket calls are not.
//
// After preexec the shell itself is in front until the program starts, so
// the probe waits for anything but the shell in front. Comparing with the
// cached group instead would fire at once when the cache is stale (a
// program ended without a precmd nudge) and miss the program. The shell's
// fork, in front before it execs the program, is the shell still: a pass
// then would find no program and none would follow the exec.
func (d *Daemon) foregroundProbe(paneID string) (changed func(ctx context.Context) bool, every time.Duration) {
	pr, ok := d.opt.Naming.Inspector.(procinfo.Prober)
	if sh, local := d.planner.Local(paneID); local && ok {
		return func(context.Context) bool {
			f, err := pr.ReadFront(sh.PID)
			return err != nil || f.PGID != sh.PID && !f.Forked()
		}, preexecInterval
	}
	api, procs := d.api, d.opt.Naming.Procs
	return func(ctx context.Context) bool {
		// Hedged: the program's name waits on this answer, and one
		// stuck in herdr's read poll would hold it back 100 ms.
		pi, err := api.ProcessInfo(ctx, paneID)
		return err != nil || pi.ShellPID == 0 || pi.ForegroundPGID != pi.ShellPID && procs.Program(pi).Name != ""
	}, 5 * preexecInterval
}

// awaitProgram waits (bounded) for a pane's foreground group to change,
// then asks the loop for a pass, with the session snapshot read meanwhile.
func (d *Daemon) awaitProgram(ctx context.Context, w preexecWait, done chan<- preexecReady) {
	r := preexecReady{pane: w.pane, at: d.now(), passes: d.passes.Load()}
	got := make(chan *herdr.Snapshot, 1)
	if w.snapshot {
		go func() {
			sctx, cancel := context.WithTimeout(ctx, w.timeout)
			defer cancel()
			snap, err := d.api.Snapshot(sctx)
			if err != nil {
				snap = nil
			}
			got <- snap
		}()
	}
	// The window is on the daemon's clock; w.every is real time, as it
	// paces the probes.
	deadline := d.now().Add(w.window)
	changed := false
	for d.now().Before(deadline) {
		if changed = w.changed(ctx); changed {
			break
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(w.every):
		}
	}
	r.skip = w.onlyIfChanged && !changed
	if w.snapshot && !r.skip {
		// A snapshot still out after the program appeared is waited
		// for a little: the pass would only ask again.
		select {
		case r.snap = <-got:
		case <-time.After(snapshotGrace):
		case <-ctx.Done():
			return
		}
	}
	select {
	case done <- r:
	case <-ctx.Done():
	}
}
