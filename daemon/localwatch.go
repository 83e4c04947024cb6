package daemon

import (
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/herdrtabrenamer/herdrtabrenamer/procwatch"
	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
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
	shells map[string]procwatch.Shell
	// allWatched: the last pass found every tab's lead pane watched.
	allWatched bool
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
		if !errors.Is(err, procwatch.ErrUnsupported) {
			l.d.health.fail(rundir.TroubleLocalWatch, err)
		}
		return
	}
	l.local = localWatch{w: w, shells: map[string]procwatch.Shell{}}
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
// locally, asking for their terminal input where an agent runs, and says
// whether the lead pane of every tab reported is among them.
func (l *loop) rewatch(reps []TabReport) bool {
	if l.local.w == nil {
		return false
	}
	want := map[string]procwatch.Shell{}
	for id, c := range l.d.procs.all() {
		if c.localOK && c.shellPID > 0 {
			p, _ := l.d.last.paneOf(id)
			want[id] = procwatch.Shell{Key: id, PID: c.shellPID, Input: p.Agent != ""}
		}
	}
	if !maps.Equal(want, l.local.shells) {
		l.local.shells = want
		l.local.w.Set(slices.SortedFunc(maps.Values(want), func(a, b procwatch.Shell) int { return strings.Compare(a.Key, b.Key) }))
	}
	for _, r := range reps {
		if !l.watched(r.Lead) {
			return false
		}
	}
	return len(reps) > 0
}

// watchReported nudges the panes whose program or directory the watch
// says changed, and notes input read by an agent: its status may change
// next (agentsMayChange).
func (l *loop) watchReported() {
	for _, r := range l.local.w.Take() {
		l.d.trace(Trace{Kind: TraceWatched, Pane: r.Key, Input: r.Input, News: r.Changed}, "a local shell changed or read input",
			"pane", r.Key, "changed", r.Changed, "input", r.Input)
		if r.Input {
			l.agentInput = l.d.now()
			l.planPolls(l.local.allWatched)
		}
		if r.Changed {
			l.nudged(r.Key, nil)
		}
	}
}

// agentsUnwatched says whether an agent runs in a pane whose terminal
// input the watch does not see: its status may change unannounced.
func (l *loop) agentsUnwatched() bool {
	for _, p := range l.d.last.agents() {
		if l.local.w == nil || !l.local.w.InputWatched(p.ID) {
			return true
		}
	}
	return false
}
