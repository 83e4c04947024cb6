package renamer

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/owner"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// one re-reads the target and sends its rename. It is safe on any
// goroutine: it touches only the memory and herdr, and x.
func (r *Renamer) one(ctx context.Context, x *Rename, young bool) (Outcome, error) {
	send, out, err := r.reread(ctx, x, young)
	if err != nil {
		x.Err = err
		if !herdr.IsServerGone(err) {
			r.log.Warn("not renamed: could not look at it first", x.Target.Kind.String(), x.Target.ID, "err", err)
		}
		return out, err
	}
	if !send {
		return out, nil
	}
	out, err = r.request(ctx, x.Target, x.Want)
	if err != nil {
		x.Err = err
		if out == InFlight {
			return out, err
		}
		if notFound(err) {
			r.log.Debug("gone before its rename", x.Target.Kind.String(), x.Target.ID)
		} else {
			r.log.Warn("rename failed", x.Target.Kind.String(), x.Target.ID, "want", x.Want, "err", err)
		}
		return Refused, nil
	}
	if r.putBackLock(ctx, x) {
		return LockedBack, nil
	}
	return Done, nil
}

// notFound: the target is gone (herdr never reuses an id).
func notFound(err error) bool { return errors.Is(err, herdr.ErrNotFound) }

// putBackLock closes the window after the last look at the memory: a lock
// written while the rename was on its way is on disk by the time herdr
// answers, and the label the target showed when it was locked goes back,
// whatever the rename set (a name of ours, a label given back). lock
// itself puts it back when the rename lands after its own look, but it
// waits for renames on their way only so long. A lock taken anew while
// that put-back was on its way is kept the same way. It reports whether
// a label went back.
func (r *Renamer) putBackLock(ctx context.Context, x *Rename) bool {
	label, back := x.Want, false
	for range maxLockBacks {
		// The label just set landed after the lock: a rename of ours.
		f := owner.For(x.Target.Kind)(owner.Case{Label: label, Memory: r.memory(x.Target).WithLanding(label)})
		if f.Do != owner.PutBack || !r.lockBack(ctx, x, label, f.To) {
			break
		}
		label, back = f.To, true
	}
	return back
}

// maxLockBacks bounds the put-backs of locks taken one inside another's.
const maxLockBacks = 3

// lockBack puts to back over label, a lock's, after x: recorded first,
// followed like any rename of ours. It reports whether herdr applied it.
func (r *Renamer) lockBack(ctx context.Context, x *Rename, label, to string) bool {
	back := state.Flight{Want: to, Seen: label, Sent: r.now()}
	if err := r.save(func(tx *state.Tx) { tx.Follow(x.Target, back) }); err != nil {
		r.log.Warn("could not put back a locked tab's label: its record was not saved", "tab", x.Target.ID, "label", to, "err", err)
		return false
	}
	out, err := r.request(ctx, x.Target, to)
	if out == InFlight || out == Done {
		x.backs = append(x.backs, lockBack{back, out})
	}
	if err != nil {
		r.log.Warn("could not put back a locked tab's label", "tab", x.Target.ID, "label", to, "err", err)
		return false
	}
	r.log.Info("the tab was locked while it was renamed; put its label back", "tab", x.Target.ID, "label", to)
	x.Shows = to
	return true
}

// reread looks at the target again right before renaming it: the
// caller's look may be many requests old, and a person's rename since
// must win. send: the rename goes ahead. What remains is the flight of
// the request itself, which Echo closes where it can.
func (r *Renamer) reread(ctx context.Context, x *Rename, young bool) (send bool, out Outcome, err error) {
	if x.Kind == OurName {
		return r.recheck(ctx, x, young)
	}
	label, err := r.label(ctx, x.Target)
	switch {
	case notFound(err):
		return false, NotSent, nil
	case err != nil:
		return false, NotSent, fmt.Errorf("re-read %s %s before renaming it: %w", x.Target.Kind, x.Target.ID, err)
	case x.Over != nil && !x.Over(label, r.memory(x.Target)) || x.Over == nil && label != x.Seen:
		// Renamed since the look: the next pass judges the new label.
		x.Now, x.Shows = label, label
		r.log.Debug("not giving a label back: the target shows another", x.Target.Kind.String(), x.Target.ID, "label", x.Want, "shows", label)
		return false, NotSent, nil
	}
	return true, NotSent, nil
}

// recheck is the re-read of a target we name: besides a person's rename,
// a lock since the pass began must win, while a rename of ours that
// landed in between (a killed daemon's) is ours to keep. A young look
// stands in for the read.
func (r *Renamer) recheck(ctx context.Context, x *Rename, young bool) (send bool, out Outcome, err error) {
	got := x.Seen
	// A pane's rename has no echo to watch for (docs/herdr.md §13): only
	// the read right before it tells a person's label since.
	if !young || x.Target.Kind == state.Pane {
		got, err = r.label(ctx, x.Target)
		if notFound(err) {
			r.log.Debug("vanished before rename", x.Target.Kind.String(), x.Target.ID)
			return false, NotSent, nil
		} else if err != nil {
			return false, NotSent, fmt.Errorf("re-read %s %s before renaming: %w", x.Target.Kind, x.Target.ID, err)
		}
	}
	m := r.memory(x.Target)
	if got == x.Seen && !m.Locked {
		return true, NotSent, nil
	}
	c := x.Case
	c.Label, c.Memory = got, m
	f := owner.For(x.Target.Kind)(c)
	x.Now, x.Verdict, x.Judged = got, f.Verdict, true
	if f.Do == owner.Rename {
		x.Seen = got
		return true, NotSent, nil
	}
	x.Shows = got
	if f.Verdict.MayRename() {
		// Ours to rename, and our name already: a rename of ours landed.
		return false, Landed, nil
	}
	r.log.Info("label changed during the pass; keeping it", x.Target.Kind.String(), x.Target.ID, "now", got, "why", f.Why)
	return false, NotSent, nil
}

// label reads a target's label now.
func (r *Renamer) label(ctx context.Context, t state.Target) (string, error) {
	if t.Kind == state.Workspace {
		wss, err := r.herdr.Workspaces(ctx)
		if err != nil {
			return "", err
		}
		if i := slices.IndexFunc(wss, func(w herdr.Workspace) bool { return w.ID == t.ID }); i >= 0 {
			return wss[i].Label, nil
		}
		return "", &herdr.APIError{Method: "workspace.list", Code: herdr.CodeWorkspaceNotFound, Message: "workspace " + t.ID + " not found"}
	}
	if t.Kind == state.Pane {
		pane, err := r.herdr.Pane(ctx, t.ID)
		return pane.Label, err
	}
	tab, err := r.herdr.Tab(ctx, t.ID)
	return tab.Label, err
}

// request sends one rename, its record already in the memory, and says
// what came of it: done, refused (herdr said no), or in flight (cut off:
// herdr may still apply it). It is safe on any goroutine.
func (r *Renamer) request(ctx context.Context, t state.Target, want string) (Outcome, error) {
	var err error
	switch t.Kind {
	case state.Workspace:
		_, err = r.herdr.RenameWorkspace(ctx, t.ID, want)
	case state.Pane:
		_, err = r.herdr.RenamePane(ctx, t.ID, want)
	default:
		_, err = r.herdr.RenameTab(ctx, t.ID, want)
	}
	if r.hooks.Renamed != nil {
		r.hooks.Renamed(err)
	}
	switch {
	case err == nil:
		return Done, nil
	case herdr.IsServerGone(err) || ctx.Err() != nil:
		return InFlight, err
	}
	return Refused, err
}
