package daemon

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// Outcomes of one rename.
type renameOutcome int

// recheck is what the look at a tab right before renaming it decides.
type recheck int

// renameWorkers bounds concurrent renames: a first pass over a big session
// renames thousands of tabs, each a re-read and a rename.
const renameWorkers = 8

// tabRenamer sends one pass's tab renames from several workers at once.
// It owns the lock over what they share (the daemon's state and last
// snapshot while they run), so no mutex travels as a parameter.
type tabRenamer struct {
	d     *Daemon
	young bool // the pass's snapshot stands in for each re-read
	mu    sync.Mutex
	rows  []*row
	next  int
	gone  error // the first error after which nothing more can be sent
}

// renameAll re-checks and renames the rows' tabs, concurrently, and sets
// each row's outcome. When the pass's deadline comes near, tabs not
// started yet are left for the next pass rather than cut off mid-request
// (which would read as herdr being gone). It returns the first error after
// which nothing more can be sent.
func (d *Daemon) renameAll(ctx context.Context, rows []*row, young bool) error {
	if len(rows) == 0 {
		return nil
	}
	r := &tabRenamer{d: d, young: young, rows: rows}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for range min(renameWorkers, len(rows)) {
		wg.Go(func() { r.work(ctx, rctx, cancel) })
	}
	wg.Wait()
	return r.gone
}

// work renames rows until none is left or herdr is gone. rctx is ctx,
// cut by cancel once herdr is gone.
func (r *tabRenamer) work(ctx, rctx context.Context, cancel func()) {
	for {
		row, ok := r.take()
		if !ok {
			return
		}
		if dl, ok := rctx.Deadline(); rctx.Err() != nil || ok && time.Until(dl) < renameMargin {
			row.report.Action, row.report.Error = ActionKeep, "deferred to the next pass: this one ran out of time"
			continue
		}
		out, err := r.renameOne(rctx, &row.report, row.decision)
		row.outcome = out
		// The pass's own deadline cutting a request is no outage.
		if err != nil && herdr.IsServerGone(err) && ctx.Err() == nil {
			r.mu.Lock()
			if r.gone == nil {
				r.gone = err
			}
			r.mu.Unlock()
			cancel()
		}
	}
}

// take hands out the next row, none once herdr is gone.
func (r *tabRenamer) take() (*row, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.gone != nil || r.next == len(r.rows) {
		return nil, false
	}
	r.next++
	return r.rows[r.next-1], true
}

// memory is the tab's state now, a lock taken since the pass began
// included (it is on disk only).
func (r *tabRenamer) memory(id string) state.TabMemory {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.d.state.Refresh(); err != nil {
		r.d.log.Warn("state file", "err", err)
	}
	return r.d.state.Tabs[id]
}

// note records a label the tab shows now in the last snapshot.
func (r *tabRenamer) note(id, label string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.d.noteLabel(id, label)
}

// renameOne re-checks one tab and renames it.
func (r *tabRenamer) renameOne(ctx context.Context, rep *TabReport, dec namer.Decision) (renameOutcome, error) {
	d := r.d
	switch rc, err := r.recheck(ctx, rep, dec); {
	case err != nil:
		rep.Action, rep.Error = ActionFailed, err.Error()
		return renameNotSent, err
	case rc == recheckKeep:
		return renameNotSent, nil
	case rc == recheckLanded:
		return renameLanded, nil
	}
	out, err := d.request(ctx, target{tabTarget, rep.TabID}, rep.Want)
	if err != nil {
		rep.Action, rep.Error = ActionFailed, err.Error()
		if out == renameInFlight {
			return out, err
		}
		if herdr.IsCode(err, "tab_not_found") {
			d.log.Debug("tab vanished before rename", "tab", rep.TabID)
		} else {
			d.log.Warn("rename failed", "tab", rep.TabID, "want", rep.Want, "err", err)
		}
		return renameRefused, nil
	}
	rep.Action = ActionRenamed
	if r.putBackLock(ctx, rep) {
		return renameLockedBack, nil
	}
	return renameDone, nil
}

// putBackLock closes the window after the pass's last look at the state
// file: a lock written while the rename was on its way is on disk by the
// time herdr answers, and the label the tab showed when it was locked
// goes back. lock itself puts it back when the rename lands after its
// own look (setTabFlags). It reports whether the label went back.
func (r *tabRenamer) putBackLock(ctx context.Context, rep *TabReport) bool {
	d := r.d
	f := namer.FateOf(namer.Case{Label: rep.Want, Memory: memoryOf(r.memory(rep.TabID), d.now())})
	if f.Do != namer.PutBack {
		return false
	}
	if _, err := d.request(ctx, target{tabTarget, rep.TabID}, f.To); err != nil {
		d.log.Warn("could not put back a locked tab's label", "tab", rep.TabID, "label", f.To, "err", err)
		return false
	}
	d.log.Info("the tab was locked while it was renamed; put its label back", "tab", rep.TabID, "label", f.To)
	r.note(rep.TabID, f.To)
	rep.Action, rep.Label = ActionKeep, f.To
	return true
}

// recheck looks at the tab again right before renaming it: the label the
// pass decided on came from a snapshot that may be many requests old, and
// a person's rename or a lock in between must win, while a rename of ours
// that landed in between (a killed daemon's) is ours to keep.
//
// What remains is the flight of the tab.rename request itself (one
// round trip, plus herdr's request-read poll, docs/herdr.md §2): herdr has
// no conditional rename. checkOverwrite closes that from the event stream
// where it can.
func (r *tabRenamer) recheck(ctx context.Context, rep *TabReport, dec namer.Decision) (recheck, error) {
	d := r.d
	// The pass's snapshot is the re-read when young (see renameAll's
	// caller).
	got := herdr.Tab{ID: rep.TabID, Label: rep.Label}
	if !r.young {
		var err error
		if got, err = d.client.Tab(ctx, rep.TabID); herdr.IsCode(err, "tab_not_found") {
			rep.Action = ActionKeep
			d.log.Debug("tab vanished before rename", "tab", rep.TabID)
			return recheckKeep, nil
		} else if err != nil {
			return recheckRename, fmt.Errorf("re-read tab %s before renaming: %w", rep.TabID, err)
		}
	}
	mem := r.memory(rep.TabID)
	label := got.Label
	if label == rep.Label && !mem.Locked {
		return recheckRename, nil
	}
	f := dec.Fate(namer.Case{Label: label, Want: rep.Want, Memory: memoryOf(mem, d.now()), Force: d.opt.Force})
	rep.Label = label
	rep.judge(f.Verdict)
	switch {
	case f.Do == namer.Rename:
		return recheckRename, nil
	case f.Verdict.MayRename():
		// Ours to rename, and our name already: a rename of ours landed.
		rep.Action = ActionKeep
		r.note(rep.TabID, label)
		return recheckLanded, nil
	}
	d.log.Info("label changed during the pass; keeping it", "tab", rep.TabID, "now", label, "why", f.Why)
	rep.Action = ActionKeep
	r.note(rep.TabID, label)
	return recheckKeep, nil
}

// dropPending forgets a rename that was not sent or that herdr refused.
func dropPending(id, label string) func(map[string]state.TabMemory) {
	return func(tabs map[string]state.TabMemory) {
		if m, ok := tabs[id]; ok {
			m.Pending = m.Pending.Remove(label)
			m.Flights = dropFlight(m.Flights, label)
			tabs[id] = m
		}
	}
}

// dropSavedFlight forgets a rename's saved flight, its fate known.
func dropSavedFlight(id, label string) func(map[string]state.TabMemory) {
	return func(tabs map[string]state.TabMemory) {
		if m, ok := tabs[id]; ok {
			m.Flights = dropFlight(m.Flights, label)
			tabs[id] = m
		}
	}
}

const (
	renameNotSent  renameOutcome = iota // kept, deferred or refused before sending
	renameRefused                       // herdr answered no
	renameInFlight                      // sent, no answer: it may still land
	renameDone
	// renameLanded: not sent, because the re-read found the tab already
	// showing the label wanted, ours to set (a killed daemon's rename of
	// it, still pending, landed during the pass).
	renameLanded
	// renameLockedBack: sent and applied, but a lock came while it was on
	// its way, and the label the lock kept was put back.
	renameLockedBack
)

const (
	recheckRename recheck = iota // rename it as the pass decided
	recheckKeep                  // leave it: a person's name, a lock, gone
	recheckLanded                // it already shows the wanted label, ours
)

// request sends one rename of ours, its record already in the state file,
// and says what came of it: done, refused (herdr said no), or in flight
// (cut off: herdr may still apply it). It is safe on any goroutine; the
// loop then settles it.
func (d *Daemon) request(ctx context.Context, t target, want string) (renameOutcome, error) {
	var err error
	if t.kind == workspaceTarget {
		_, err = d.client.RenameWorkspace(ctx, t.id, want)
	} else {
		_, err = d.client.RenameTab(ctx, t.id, want)
	}
	d.renamed(err)
	switch {
	case err == nil:
		return renameDone, nil
	case herdr.IsServerGone(err) || ctx.Err() != nil:
		return renameInFlight, err
	}
	return renameRefused, err
}

// settle follows a rename of ours that herdr applied, or may still apply,
// on the loop goroutine: the label goes into the last snapshot (its echo
// is old news) and its echo is watched for a person's rename inside it.
func (d *Daemon) settle(t target, want, seen string, out renameOutcome) {
	switch out {
	case renameDone:
		d.note(t, want)
		fallthrough
	case renameInFlight:
		d.noteOurRename(t, want, seen)
	}
}

// note records a label a target shows now in the last snapshot.
func (d *Daemon) note(t target, label string) {
	if t.kind == workspaceTarget {
		d.noteWorkspaceLabel(t.id, label)
	} else {
		d.noteLabel(t.id, label)
	}
}
