package renamer

import (
	"sync"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// sending are the renames this Renamer recorded and has not concluded
// yet (recordBefore to recordAfter): its own, which the memory holds but
// take must not adopt. Put-backs record on their own goroutine.
type sending struct {
	mu sync.Mutex
	m  map[sendKey]bool
}

type sendKey struct {
	t          state.Target
	want, seen string
	at         time.Time
}

func (s *sending) add(rs []*Rename) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[sendKey]bool{}
	}
	for _, x := range rs {
		s.m[sendKey{x.Target, x.Want, x.recorded, x.sent}] = true
	}
}

func (s *sending) done(rs []*Rename) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, x := range rs {
		delete(s.m, sendKey{x.Target, x.Want, x.recorded, x.sent})
	}
}

func (s *sending) has(t state.Target, f state.Flight) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[sendKey{t, f.Want, f.Seen, f.Sent}]
}

// recordBefore saves edits with the record of every rename about to be
// sent, in one write. No rename may go out unless it returned nil. A
// send with nothing to record and no edits writes nothing.
func (r *Renamer) recordBefore(rs []*Rename, edits state.Edits) error {
	if len(rs) == 0 && len(edits) == 0 {
		return nil
	}
	now := r.now()
	for _, x := range rs {
		x.sent, x.recorded = now, x.Seen
	}
	// Ours before the record is: an echo taken in meanwhile must not
	// adopt it as another process's.
	r.sending.add(rs)
	return r.save(func(tx *state.Tx) {
		edits.Apply(tx)
		for _, x := range rs {
			if e := tx.Entry(x.Target); x.Kind == OurName && e.Label != "" && e.Label == x.recorded {
				// Our last label replaced: what our rename to it
				// replaced tells a person's choice of it since.
				x.over = e.Over
			}
			f := state.Flight{Want: x.Want, Seen: x.recorded, Sent: now, After: x.After, Over: x.over}
			switch x.Kind {
			case OurName:
				tx.Pend(x.Target, f)
			case PersonPrefix:
				// The person's text goes on disk before the rename: a
				// label of ours whose text is lost would take a
				// person's leading digit for our prefix, or the prefix
				// for their text. No pending label: the label stays a
				// person's, so the next pass prefixes it again rather
				// than naming the tab.
				tx.PersonPrefix(x.Target, x.Text, x.Want, f)
			case GiveBack:
				// Not ours: only followed, so a person's rename inside
				// it goes back too.
				tx.Follow(x.Target, f)
			}
		}
	})
}

// recordAfter saves what each rename did, with edits, in one write, follows the ones
// herdr applied or may still apply, and logs them: a label herdr set is
// ours; one herdr refused, or that was never sent, is not.
func (r *Renamer) recordAfter(rs []*Rename, edits state.Edits) {
	defer r.sending.done(rs)
	for _, x := range rs {
		if x.Out == Done || x.Out == LockedBack {
			edits.Add(answered(x))
		}
		switch {
		case x.Target.Kind == state.Pane:
			// herdr tells of no pane rename (docs/herdr.md §13): no echo
			// will decide it, so its flight ends with its answer. A
			// label of ours still landing reads as ours by its pending
			// label alone.
			edits.Add(ended(x)...)
		case x.Out == Done || x.Out == InFlight || x.Out == LockedBack:
			// Applied, or maybe: a person's rename inside it goes back,
			// even under a lock's label put back over it.
			f := &flight{want: x.Want, seen: x.recorded, after: x.After, gen: r.gen(), at: x.sent, watched: x.sent, given: x.Kind != OurName,
				seenOver: x.over}
			if x.Seen != x.recorded {
				// The re-read found a newer label of ours to replace.
				f.later = append(f.later, x.Seen)
			}
			r.follow(x.Target, f)
		default:
			// Never sent, or refused: an echo taken in meanwhile may
			// have followed it from its record.
			r.unfollow(x.Target, x.Want, x.recorded, x.sent)
		}
		edits.Add(r.outcome(x)...)
		for _, b := range x.backs {
			if x.Target.Kind == state.Pane {
				break
			}
			r.follow(x.Target, &flight{want: b.Want, seen: b.Seen, gen: r.gen(), at: b.Sent, watched: b.Sent, given: true})
			if b.out == Done {
				edits.Add(func(tx *state.Tx) { tx.Answer(x.Target, b.Want, b.Sent) })
			}
		}
	}
	if len(edits) == 0 {
		return
	}
	if err := r.save(edits.Apply); err != nil {
		r.log.Warn("could not save state; keeping it in memory", "err", err)
	}
}

// ended ends the flights of a rename whose fate nothing more will tell:
// its own, and a lock's label put back over it.
func ended(x *Rename) []func(*state.Tx) {
	t, want, sent := x.Target, x.Want, x.sent
	out := []func(*state.Tx){func(tx *state.Tx) { tx.Settle(t, want, sent) }}
	for _, b := range x.backs {
		out = append(out, func(tx *state.Tx) { tx.Settle(t, b.Want, b.Sent) })
	}
	return out
}

func answered(x *Rename) func(*state.Tx) {
	return func(tx *state.Tx) { tx.Answer(x.Target, x.Want, x.sent) }
}

// outcome is what the memory learns from one rename's outcome.
func (r *Renamer) outcome(x *Rename) []func(*state.Tx) {
	t, want := x.Target, x.Want
	switch {
	case x.Out == InFlight:
		// Sent but unanswered: herdr may still apply it, so its record
		// stays, and its echo is watched for.
		return nil
	case x.Kind == GiveBack:
		if x.Out == Done || x.Out == LockedBack {
			r.log.Info("gave a label back", t.Kind.String(), t.ID, "label", want, "why", x.Why)
			return nil
		}
		return []func(*state.Tx){func(tx *state.Tx) { tx.Settle(t, want, x.sent) }}
	case x.Kind == PersonPrefix:
		if x.Out == Done || x.Out == LockedBack {
			r.log.Info("renamed", t.Kind.String(), t.ID, "old", x.Seen, "new", want, "why", x.Why)
			return nil
		}
		return []func(*state.Tx){func(tx *state.Tx) { tx.Settle(t, want, x.sent) }}
	}
	switch x.Out {
	case Done:
		// Pending keeps the label: other requests (a killed daemon's)
		// may still land after this one.
		r.log.Info("renamed", t.Kind.String(), t.ID, "old", x.Seen, "new", want, "why", x.Why)
		seen := x.Seen
		return []func(*state.Tx){func(tx *state.Tx) { tx.NamedOver(t, want, seen) }}
	case Landed:
		// What the rename that landed replaced is in its own record.
		return []func(*state.Tx){func(tx *state.Tx) {
			tx.NamedOver(t, want, tx.Entry(t).SeenBefore(want))
			tx.Settle(t, want, x.sent)
		}}
	case LockedBack:
		// Put back for a lock: the pending label stays, and the rename
		// is followed to its echo like one done.
		return nil
	}
	// Not sent, or herdr answered no: the label is not ours.
	return []func(*state.Tx){func(tx *state.Tx) { tx.Unpend(t, want, x.sent) }}
}
