package renamer

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/owner"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// ErrRenamedSince says a target's label changed after it was read, or a
// person locked it since: their name stays.
var ErrRenamedSince = errors.New("renamed since it was read")

// GiveBack gives a target a label that is not ours (restore's number, a
// person's own text) through the renamer: the target is looked at right
// before the request, and a label that changed since from was read stays
// (ErrRenamedSince, with the label it shows now), as does one a person
// locked meanwhile. With Follow, the rename is followed to its echo like
// any other.
func (r *Renamer) GiveBack(ctx context.Context, t state.Target, from, to string) error {
	x := &Rename{Kind: GiveBack, Target: t, Seen: from, Want: to, Why: "restore",
		Over: func(label string, m owner.Memory) bool { return owner.GiveBackOver(label, from, m) }}
	r.Send(ctx, []*Rename{x}, nil, false)
	switch {
	case x.Out == Done:
		return nil
	case x.Err != nil:
		return x.Err
	case x.Now != "" && x.Now != from:
		return fmt.Errorf("%w: it shows %q now", ErrRenamedSince, x.Now)
	case x.Now == from || x.Out == LockedBack:
		return fmt.Errorf("%w: a person locked it", ErrRenamedSince)
	}
	return fmt.Errorf("%s %s is gone", t.Kind, t.ID)
}

// lockWait bounds how long PutBackLock waits for renames of ours that
// were on their way when the lock was written: one request, herdr's read
// poll included, with room for a loaded machine.
const lockWait = 2 * time.Second

// PutBackLock looks at a tab or pane once more after lock saved the lock
// at locked. A rename of ours that was on its way then is waited for
// (bounded) until herdr answered it, so that once lock returns none can
// land any more; one that landed goes back to the label it was locked
// with (for a pane locked with none, none). This rename is recorded and followed like any other: a
// running daemon adopts its flight before its echo comes.
func (r *Renamer) PutBackLock(ctx context.Context, t state.Target, label string, locked time.Time) error {
	// The renames of ours on their way when the lock was written, of any
	// kind (a name of ours, a label given back): one of them landing
	// after the lock is what the locked label goes back over. A pass
	// records its renames together and sends them one by one, so one
	// recorded seconds ago may not even be sent yet; one recorded longer
	// ago than a rename can land is a killed process's, and never will.
	since := locked.Add(-state.PendingTTL)
	var onTheirWay []string
	for _, f := range r.entry(t).Unanswered(since) {
		onTheirWay = append(onTheirWay, f.Want)
	}
	deadline := r.now().Add(lockWait)
	for len(r.entry(t).Unanswered(since)) > 0 && r.now().Before(deadline) {
		if !r.sleep(ctx, 10*time.Millisecond) {
			return ctx.Err()
		}
	}
	// What it shows is in the record: the label our put-back replaces,
	// which tells an echo of ours before it from one after.
	shows, err := r.label(ctx, t)
	switch {
	case notFound(err):
		return nil // closed meanwhile: nothing to keep
	case err != nil:
		return fmt.Errorf("look at %s %s after locking it: %w", t.Kind, t.ID, err)
	case shows == label:
		return nil
	}
	x := &Rename{Kind: GiveBack, Target: t, Seen: shows, Want: label, Why: "a rename of ours landed as it was locked",
		Over: func(now string, m owner.Memory) bool {
			return owner.LockKept(t.Kind, now, label, m.WithLanding(onTheirWay...))
		}}
	r.Send(ctx, []*Rename{x}, nil, false)
	if x.Err != nil {
		return fmt.Errorf("a rename of ours may have landed as it was locked, and putting %q back failed: %w", label, x.Err)
	}
	return nil
}
