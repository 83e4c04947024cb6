package daemon

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/localwatch"
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
	// What the wait reads off the loop: herdr, the daemon's clock, and
	// its count of passes that read a snapshot.
	api    API
	now    func() time.Time
	passes *atomic.Uint64
}

// wait starts a wait for a program to start in a pane, one per pane.
func (l *loop) wait(w preexecWait) {
	start, ahead := l.sched.startWait(w.pane, w.snapshot, l.d.now())
	if !start {
		return
	}
	w.snapshot = ahead
	d := l.d
	w.changed, w.every = foregroundProbe(d.shells, d.api, d.opt.Naming.Procs, w.pane)
	go d.arm(w).await(l.ctx, l.preexecDone)
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
func foregroundProbe(shells *localwatch.Shells, api API, procs *procinfo.Resolver, paneID string) (changed func(ctx context.Context) bool, every time.Duration) {
	if probe, local := shells.Probe(paneID); local {
		return func(context.Context) bool { return probe() }, preexecInterval
	}
	return func(ctx context.Context) bool {
		// Hedged: the program's name waits on this answer, and one
		// stuck in herdr's read poll would hold it back 100 ms.
		pi, err := api.ProcessInfo(ctx, paneID)
		return err != nil || pi.ShellPID == 0 || pi.ForegroundPGID != pi.ShellPID && procs.Program(pi).Name != ""
	}, 5 * preexecInterval
}

// arm gives a wait what it reads off the loop: herdr, the daemon's clock
// and its count of passes that read a snapshot.
func (d *Daemon) arm(w preexecWait) preexecWait {
	w.api, w.now, w.passes = d.api, d.clock, &d.passes
	return w
}

// await waits (bounded) for a pane's foreground group to change, then
// asks the loop for a pass, with the session snapshot read meanwhile.
func (w preexecWait) await(ctx context.Context, done chan<- preexecReady) {
	r := preexecReady{pane: w.pane, at: w.now(), passes: w.passes.Load()}
	got := make(chan *herdr.Snapshot, 1)
	if w.snapshot {
		go func() {
			sctx, cancel := context.WithTimeout(ctx, w.timeout)
			defer cancel()
			snap, err := w.api.Snapshot(sctx)
			if err != nil {
				snap = nil
			}
			got <- snap
		}()
	}
	// The window is on the daemon's clock; w.every is real time, as it
	// paces the probes.
	deadline := w.now().Add(w.window)
	changed := false
	for w.now().Before(deadline) {
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
