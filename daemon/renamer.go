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

// One renamer sends every rename the daemon makes (our names on tabs and
// workspaces, a person's label with its position in front, and labels
// given back: a locked tab's, a person's set inside our rename, herdr's
// number on restore) with one protocol:
//
//	record   what deciding each rename's fate needs goes into the state
//	         file, in one write before any request (records.go): a rename
//	         herdr applies but whose reply is lost still reads as ours
//	         later, and a daemon killed meanwhile leaves its flight to the
//	         next
//	re-read  the target right before its request: a person's rename or a
//	         lock since the pass's snapshot wins
//	request  the rename, from several workers at once
//	settle   what came of each into the state file, in one write, and its
//	         echo followed for a person's rename inside it (overwrite.go)

// renameKind is what a rename sets, and so what the state file records
// of it.
type renameKind uint8

const (
	ourTabName       renameKind = iota // pending while on its way, ours once set
	personPrefix                       // a person's label, its position put in front: still theirs
	giveBack                           // a label not ours, back over one of ours: nothing to record
	ourWorkspaceName                   // as ourTabName, for a workspace
)

// renameOutcome is what came of one rename: the one account of a tab's
// fate in a pass, from which its report's action follows.
type renameOutcome uint8

const (
	renameNotSent  renameOutcome = iota // kept at the re-read, deferred, or not sent
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

// rename is one rename on its way through the renamer.
type rename struct {
	kind renameKind
	t    target
	seen string // the label the last look saw
	want string
	text string         // personPrefix: the person's text in want
	dec  namer.Decision // ourTabName: the pass's decision, for the re-read
	// rep is the tab's report, which the renamer keeps current; a
	// workspace's is the renamer's alone (no report shows workspaces).
	rep *TabReport
	// over, when set, says whether the label the re-read finds may be
	// replaced; else only the one the last look saw may.
	over func(label string) bool
	why  string // for the log
	out  renameOutcome
	// shows is a label the worker found the target showing, or put there
	// besides want (a lock's); settling notes it in the last snapshot.
	shows string
}

// renameWorkers bounds concurrent renames: a first pass over a big session
// renames thousands of tabs, each a re-read and a rename.
const renameWorkers = 8

// renamer sends one pass's renames from several workers at once. It owns
// the lock over what they share (the daemon's state file while they run),
// so no mutex travels as a parameter. Workers change nothing else of the
// daemon's: what they learn stays in their rename until recordAfter.
type renamer struct {
	d     *Daemon
	young bool // the pass's snapshot stands in for each tab's re-read
	mu    sync.Mutex
	rs    []*rename
	next  int
	gone  error // the first error after which nothing more can be sent
}

// sendRenames runs the protocol over a pass's renames: it saves their
// records with the pass's other changes so far, sends them, and adds what
// they did to w. ok is false when the records could not be saved: then
// nothing was sent. gone is the first error after which nothing more can
// be sent (herdr went away).
func (d *Daemon) sendRenames(ctx context.Context, rs []*rename, young bool, w *stateWrites, stats *PassStats) (ok bool, gone error) {
	if len(rs) == 0 {
		return true, nil
	}
	if err := d.recordBefore(w, rs); err != nil {
		d.log.Warn("not renaming: could not save the labels about to be set", "err", err)
		for _, r := range rs {
			r.rep.Action, r.rep.Error = ActionFailed, "not renamed: state not saved: "+err.Error()
		}
		return false, nil
	}
	rn := &renamer{d: d, young: young, rs: rs}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for range min(renameWorkers, len(rs)) {
		wg.Go(func() { rn.work(ctx, rctx, cancel) })
	}
	wg.Wait()
	d.recordAfter(rs, w, stats)
	return true, rn.gone
}

// work sends renames until none is left or herdr is gone. rctx is ctx,
// cut by cancel once herdr is gone. When the pass's deadline comes near,
// renames not started yet are left for the next pass rather than cut off
// mid-request (which would read as herdr being gone).
func (rn *renamer) work(ctx, rctx context.Context, cancel func()) {
	for {
		r, ok := rn.take()
		if !ok {
			return
		}
		if dl, ok := rctx.Deadline(); rctx.Err() != nil || ok && time.Until(dl) < renameMargin {
			r.rep.Action, r.rep.Error = ActionKeep, "deferred to the next pass: this one ran out of time"
			continue
		}
		out, err := rn.one(rctx, r)
		r.out = out
		// The pass's own deadline cutting a request is no outage.
		if err != nil && herdr.IsServerGone(err) && ctx.Err() == nil {
			rn.mu.Lock()
			if rn.gone == nil {
				rn.gone = err
			}
			rn.mu.Unlock()
			cancel()
		}
	}
}

// take hands out the next rename, none once herdr is gone.
func (rn *renamer) take() (*rename, bool) {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	if rn.gone != nil || rn.next == len(rn.rs) {
		return nil, false
	}
	rn.next++
	return rn.rs[rn.next-1], true
}

// memory is the tab's state now, a lock taken since the pass began
// included (it is on disk only).
func (rn *renamer) memory(id string) state.TabMemory {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	if err := rn.d.state.Refresh(); err != nil {
		rn.d.log.Warn("state file", "err", err)
	}
	return rn.d.state.Tabs[id]
}

// one re-reads the target and sends its rename.
func (rn *renamer) one(ctx context.Context, r *rename) (renameOutcome, error) {
	d := rn.d
	send, out, err := rn.reread(ctx, r)
	if err != nil {
		r.rep.Action, r.rep.Error = ActionFailed, err.Error()
		if !herdr.IsServerGone(err) {
			d.log.Warn("not renamed: could not look at it first", r.t.key(), r.t.id, "err", err)
		}
		return out, err
	}
	if !send {
		return out, nil
	}
	out, err = d.request(ctx, r.t, r.want)
	if err != nil {
		r.rep.Action, r.rep.Error = ActionFailed, err.Error()
		if out == renameInFlight {
			return out, err
		}
		if herdr.IsCode(err, "tab_not_found") || herdr.IsCode(err, "workspace_not_found") {
			d.log.Debug("gone before its rename", r.t.key(), r.t.id)
		} else {
			d.log.Warn("rename failed", r.t.key(), r.t.id, "want", r.want, "err", err)
		}
		return renameRefused, nil
	}
	r.rep.Action = ActionRenamed
	if r.kind == ourTabName && rn.putBackLock(ctx, r) {
		return renameLockedBack, nil
	}
	return renameDone, nil
}

// putBackLock closes the window after the pass's last look at the state
// file: a lock written while the rename was on its way is on disk by the
// time herdr answers, and the label the tab showed when it was locked
// goes back. lock itself puts it back when the rename lands after its
// own look. It reports whether the label went back.
func (rn *renamer) putBackLock(ctx context.Context, r *rename) bool {
	d := rn.d
	f := namer.FateOf(namer.Case{Label: r.want, Memory: memoryOf(rn.memory(r.t.id), d.now())})
	if f.Do != namer.PutBack {
		return false
	}
	if _, err := d.request(ctx, r.t, f.To); err != nil {
		d.log.Warn("could not put back a locked tab's label", "tab", r.t.id, "label", f.To, "err", err)
		return false
	}
	d.log.Info("the tab was locked while it was renamed; put its label back", "tab", r.t.id, "label", f.To)
	r.shows = f.To
	r.rep.Action, r.rep.Label = ActionKeep, f.To
	return true
}

// reread looks at the target again right before renaming it: the pass's
// snapshot may be many requests old, and a person's rename since must
// win. send: the rename goes ahead.
//
// What remains is the flight of the rename request itself (one round
// trip, plus herdr's request-read poll, docs/herdr.md §2): herdr has no
// conditional rename. checkOverwrite closes that from the event stream
// where it can.
func (rn *renamer) reread(ctx context.Context, r *rename) (send bool, out renameOutcome, err error) {
	if r.kind == ourTabName {
		return rn.recheckTab(ctx, r)
	}
	label, err := rn.d.currentLabel(ctx, r.t)
	switch {
	case herdr.IsCode(err, "tab_not_found") || herdr.IsCode(err, "workspace_not_found"):
		r.rep.Action = ActionKeep
		return false, renameNotSent, nil
	case err != nil:
		return false, renameNotSent, fmt.Errorf("re-read %s %s before renaming it: %w", r.t.key(), r.t.id, err)
	case r.over != nil && !r.over(label) || r.over == nil && label != r.seen:
		// Renamed since the snapshot: the next pass judges the new label.
		r.rep.Action, r.rep.Label = ActionKeep, label
		r.shows = label
		return false, renameNotSent, nil
	}
	return true, renameNotSent, nil
}

// recheckTab is the re-read of a tab we name: besides a person's rename,
// a lock since the pass began must win, while a rename of ours that
// landed in between (a killed daemon's) is ours to keep. A young
// snapshot (see sendRenames's caller) stands in for the read.
func (rn *renamer) recheckTab(ctx context.Context, r *rename) (send bool, out renameOutcome, err error) {
	d, rep := rn.d, r.rep
	got := herdr.Tab{ID: r.t.id, Label: r.seen}
	if !rn.young {
		if got, err = d.client.Tab(ctx, r.t.id); herdr.IsCode(err, "tab_not_found") {
			rep.Action = ActionKeep
			d.log.Debug("tab vanished before rename", "tab", r.t.id)
			return false, renameNotSent, nil
		} else if err != nil {
			return false, renameNotSent, fmt.Errorf("re-read tab %s before renaming: %w", r.t.id, err)
		}
	}
	mem := rn.memory(r.t.id)
	if got.Label == r.seen && !mem.Locked {
		return true, renameNotSent, nil
	}
	f := r.dec.Fate(namer.Case{Label: got.Label, Want: r.want, Memory: memoryOf(mem, d.now()), Force: d.opt.Force})
	r.seen, rep.Label = got.Label, got.Label
	rep.judge(f.Verdict)
	if f.Do == namer.Rename {
		return true, renameNotSent, nil
	}
	rep.Action = ActionKeep
	r.shows = got.Label
	if f.Verdict.MayRename() {
		// Ours to rename, and our name already: a rename of ours landed.
		return false, renameLanded, nil
	}
	d.log.Info("label changed during the pass; keeping it", "tab", r.t.id, "now", got.Label, "why", f.Why)
	return false, renameNotSent, nil
}

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
