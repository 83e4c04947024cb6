package daemon

import (
	"context"
	"log/slog"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// passInput narrows what a pass must re-check.
type passInput struct {
	// forced panes were nudged: ask herdr for their program whatever the
	// cache says.
	forced map[string]bool
	// onlyTab, when set, limits the reports (explain TAB_ID); the pass
	// still reads the whole session.
	onlyTab string
	// readOnly: decide but never rename or save (explain).
	readOnly bool
	// urgent: someone waits for this pass (a nudge, event news), so a late
	// read may go out twice, and no pane is asked about without a sign of
	// change (its rename would wait on the answer). Poll ticks and
	// resyncs are not urgent: they refresh, and never hedge, so an idle
	// pass stays one connection.
	urgent bool
	// snap, when set, is a snapshot taken for this pass moments ago (while
	// a preexec nudge waited for its program): the pass uses it instead of
	// asking again.
	snap   *herdr.Snapshot
	snapAt time.Time // when snap was asked for
	// agentPoll: the status poll, for agents' statuses alone; it asks
	// herdr about no program.
	agentPoll bool
}

// pass reads the session once and brings every tab in scope to its wanted
// name. It returns reports for the tabs in scope.
func (d *Daemon) pass(ctx context.Context, in passInput) ([]TabReport, PassStats, error) {
	if !in.urgent {
		ctx = herdr.WithoutHedge(ctx)
	}
	before := d.hedged()
	reps, stats, err := d.readAndRename(ctx, in)
	stats.Hedges = int(d.hedged() - before)
	return reps, stats, err
}

// hedged is how many reads the client sent twice so far.
func (d *Daemon) hedged() uint64 {
	return d.client.HedgeStats().Hedged
}

// logOutage is how the loop reports a server that went away: one line per
// outage, not one per failed pass.
func (d *Daemon) logOutage(err error) {
	if d.down {
		// Debug only: tests count these to know passes ran meanwhile.
		d.trace(Trace{Kind: TraceDownSkip}, "herdr still down; pass skipped", "err", err)
		return
	}
	d.down = true
	d.traceAt(slog.LevelWarn, Trace{Kind: TraceOutage}, "herdr is not reachable; waiting for it", "socket", d.client.SocketPath(), "err", err)
}

func (d *Daemon) logBack() {
	if !d.down {
		return
	}
	d.down = false
	d.traceAt(slog.LevelInfo, Trace{Kind: TraceBack}, "herdr is back", "socket", d.client.SocketPath())
}

// memoryOf turns what the state file holds into namer's view of it.
func memoryOf(m state.TabMemory, now time.Time) namer.Memory {
	return namer.Memory{Locked: m.Locked, Released: m.Released, LockedLabel: m.LockedLabel,
		Labels: m.OurLabels(now), Landing: m.Landing(now)}
}

// noteLabel updates the last snapshot after our own rename, so the
// tab.renamed echo herdr sends back reads as old news and costs no pass.
func (d *Daemon) noteLabel(tabID, label string) {
	if d.last.setTabLabel(tabID, label) {
		d.seen.label(tabID, label)
	}
}

// setLast keeps the snapshot as the last one, and in the history.
func (d *Daemon) setLast(snap *herdr.Snapshot) {
	d.last.set(snap)
	d.seen.observe(snap)
}
