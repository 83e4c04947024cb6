package daemon

import (
	"maps"
	"slices"

	"github.com/herdrtabrenamer/herdrtabrenamer/procwatch"
)

// The local watch: for lead panes whose shells run on this machine (their
// programs read from /proc, localOK), the kernel says when a program
// starts or exits or the shell changes directory (package procwatch), so
// a shell with no hooks that sets no title still names its tab at once.
// What it reports is handled as a nudge for the pane: the quick-command
// rules, --settle and whose a label is apply unchanged. With every tab's
// lead pane watched, the full poll only catches what nothing announces,
// and runs every Options.RestPoll.

// localWatch is the loop's part of the watch.
type localWatch struct {
	w *procwatch.Watcher // nil: off
	// shells are the shells given to the watch, by pane id.
	shells map[string]int
}

// startWatch starts the watch when the options ask for it and the
// platform has one.
func (l *loop) startWatch() {
	if !l.d.opt.LocalWatch {
		return
	}
	w, err := procwatch.New()
	if err != nil {
		l.d.log.Info("no local watch of shells: without hooks or titles, program changes wait for the poll", "err", err)
		return
	}
	l.local = localWatch{w: w, shells: map[string]int{}}
}

func (l *loop) stopWatch() {
	if l.local.w != nil {
		_ = l.local.w.Close()
	}
}

// changed fires when the watch has panes to report; nil (never) when off.
func (l *loop) watchChanged() <-chan struct{} {
	if l.local.w == nil {
		return nil
	}
	return l.local.w.Changed()
}

// watched says whether the watch looks at pane's shell.
func (l *loop) watched(pane string) bool {
	_, ok := l.local.shells[pane]
	return ok
}

// rewatch gives the watch the shells of the panes whose programs are read
// locally, and says whether the lead pane of every tab reported is among
// them.
func (l *loop) rewatch(reps []TabReport) bool {
	if l.local.w == nil {
		return false
	}
	want := map[string]int{}
	for id, c := range l.d.procs {
		if c.localOK && c.shellPID > 0 {
			want[id] = c.shellPID
		}
	}
	if !maps.Equal(want, l.local.shells) {
		l.local.shells = want
		shells := make([]procwatch.Shell, 0, len(want))
		for _, id := range slices.Sorted(maps.Keys(want)) {
			shells = append(shells, procwatch.Shell{Key: id, PID: want[id]})
		}
		l.local.w.Set(shells)
	}
	for _, r := range reps {
		if !l.watched(r.Lead) {
			return false
		}
	}
	return len(reps) > 0
}

// watchReported nudges the panes the watch reported.
func (l *loop) watchReported() {
	for _, pane := range l.local.w.Take() {
		l.d.trace(Trace{Kind: TraceWatched, Pane: pane}, "a local shell changed", "pane", pane)
		l.nudged(pane, nil)
	}
}
