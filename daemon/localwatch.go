package daemon

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/herdrtabrenamer/herdrtabrenamer/pass"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
	"github.com/herdrtabrenamer/herdrtabrenamer/procwatch"
	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
)

// The local watch: for lead panes whose shells run on this machine (the
// planner's local shells), the kernel says when a program starts or
// exits or the shell changes directory (package procwatch), so a shell
// with no hooks that sets no title still names its tab at once. What it
// reports is handled as a nudge for the pane: the quick-command rules,
// --settle and whose a label is apply unchanged. With every tab's lead
// pane watched, the full poll only catches what nothing announces, and
// runs every Options.RestPoll.

// fronts hands the planner the local watch's last look at a shell while
// the watch runs and watches it (pass.Fronts). Safe from any goroutine.
type fronts struct {
	w atomic.Pointer[procwatch.Watcher]
}

func (f *fronts) Front(paneID string, shellPID int) (procinfo.Front, bool) {
	if w := f.w.Load(); w != nil {
		if fr, ok := w.Front(paneID); ok && fr.ShellPID == shellPID {
			return fr, true
		}
	}
	return procinfo.Front{}, false
}

// localWatch is the loop's part of the watch.
type localWatch struct {
	w *procwatch.Watcher // nil: off
	// shells are the shells given to the watch, by pane id.
	shells map[string]procwatch.Shell
	// allWatched: the last pass found every tab's lead pane watched.
	allWatched bool
	// fronts hands the planner the watch's looks while it runs.
	fronts *fronts
	// blind is the last Blind recorded ("<nil>" when none).
	blind string
}

// start starts the watch when the options ask for it and the platform
// has one.
func (lw *localWatch) start(d *Daemon) {
	if !d.opt.Naming.LocalWatch {
		return
	}
	w, err := procwatch.New()
	if err != nil {
		d.log.Info("no local watch of shells: without hooks or titles, program changes wait for the poll", "err", err)
		if !errors.Is(err, procwatch.ErrUnsupported) {
			d.trouble(rundir.TroubleLocalWatch, err)
		}
		return
	}
	*lw = localWatch{w: w, shells: map[string]procwatch.Shell{}, fronts: &d.fronts, blind: fmt.Sprint(nil)}
	d.fronts.w.Store(w)
}

func (lw *localWatch) stop() {
	if lw.w != nil {
		lw.fronts.w.Store(nil)
		_ = lw.w.Close()
	}
}

// changed fires when the watch has panes to report; nil (never) when off.
func (lw *localWatch) changed() <-chan struct{} {
	if lw.w == nil {
		return nil
	}
	return lw.w.Changed()
}

// watched says whether the watch looks at pane's shell.
func (lw *localWatch) watched(pane string) bool {
	_, ok := lw.shells[pane]
	return ok
}

// rewatch gives the watch the shells of the panes whose programs are read
// locally, asking for their terminal input where an agent runs, and says
// whether the lead pane of every tab reported is among them.
func (lw *localWatch) rewatch(d *Daemon, reps []pass.Report) bool {
	if lw.w == nil {
		return false
	}
	want := map[string]procwatch.Shell{}
	for id, sh := range d.planner.LocalShells() {
		p, _ := d.view.paneOf(id)
		want[id] = procwatch.Shell{Key: id, PID: sh.PID, Input: p.Agent != ""}
	}
	if !maps.Equal(want, lw.shells) {
		lw.shells = want
		lw.w.Set(slices.SortedFunc(maps.Values(want), func(a, b procwatch.Shell) int { return strings.Compare(a.Key, b.Key) }))
	}
	for _, r := range reps {
		if !lw.watched(r.Lead) {
			return false
		}
	}
	return len(reps) > 0
}

// noteBlind records, for status, that shells are watched by looking at
// them for want of the kernel's events (and which limit to raise), or
// that the events are back.
func (lw *localWatch) noteBlind(d *Daemon) {
	blind := lw.w.Blind()
	if text := fmt.Sprint(blind); text != lw.blind {
		lw.blind = text
		d.trouble(rundir.TroubleLocalWatch, blind)
	}
}

// inputWatched says whether the watch sees pane's terminal read input.
func (lw *localWatch) inputWatched(pane string) bool {
	return lw.w != nil && lw.w.InputWatched(pane)
}

// watchReported nudges the panes whose program or directory the watch
// says changed, and notes input read by an agent: its status may change
// next (agentsMayChange), and so may the session it runs: it returns
// those panes. The watch also signals when it took shells' input up or
// lost it, and when it went blind or saw again: the status poll's plan
// follows the one, status shows the other.
func (l *loop) watchReported() (input []string) {
	l.local.noteBlind(l.d)
	l.planPolls(l.local.allWatched)
	for _, r := range l.local.w.Take() {
		l.d.trace(Trace{Kind: TraceWatched, Pane: r.Key, Input: r.Input, News: r.Changed}, "a local shell changed or read input",
			"pane", r.Key, "changed", r.Changed, "input", r.Input)
		if r.Input {
			l.agentInput = l.d.now()
			l.planPolls(l.local.allWatched)
			input = append(input, r.Key)
		}
		if r.Changed {
			l.nudged(r.Key, nil)
		}
	}
	return input
}
