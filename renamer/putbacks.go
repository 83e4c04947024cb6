package renamer

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/owner"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// putBackTimeout bounds one put-back: a look at the target and a rename.
const putBackTimeout = 5 * time.Second

// putBacks runs the put-backs of names a person set inside our renames
// off the owner's goroutine: the look at the target and the rename are
// socket calls, and the owner must wait on none. What came of each comes
// back to the owner through done, which concludes it (PutBackDone).
type putBacks struct {
	done chan PutBack
	stop chan struct{}
	wg   sync.WaitGroup
	// open counts the put-backs started and not settled yet; running
	// are their flights, by target. The owner's goroutine alone reads
	// and writes both.
	open    int
	running map[state.Target][]*flight
	// held are the targets a Send held back while their put-back ran:
	// the owner runs a pass once it ends.
	held map[state.Target]bool
}

// start notes f's put-back on t as running, and supersedes the ones
// running on t already: put-backs start in the order herdr applied our
// renames (their echoes'), so the label a person set inside the later
// rename is newer than one set inside an earlier, and only it stands,
// in whatever order the put-backs then run.
func (b *putBacks) start(t state.Target, f *flight) {
	for _, g := range b.running[t] {
		if g != f {
			g.superseded.Store(true)
		}
	}
	b.running[t] = append(b.running[t], f)
}

// end forgets f's put-back on t, and says whether a Send held a rename
// of t back while put-backs ran on it, now that none does.
func (b *putBacks) end(t state.Target, f *flight) (held bool) {
	b.running[t] = slices.DeleteFunc(b.running[t], func(g *flight) bool { return g == f })
	if len(b.running[t]) > 0 {
		return false
	}
	delete(b.running, t)
	held = b.held[t]
	delete(b.held, t)
	return held
}

// hold takes out of rs the renames of ours whose target has a put-back
// on its way, marked Held, and returns the rest. herdr applies renames
// in the order they arrive, so one sent now may land after the person's
// label goes back and take it again; and a pass that sees our label
// where the put-back is about to land judges a label about to stop
// being ours. Labels given back (a lock's, restore's) are never held.
func (r *Renamer) hold(rs []*Rename) []*Rename {
	if r.backs == nil || len(r.backs.running) == 0 {
		return rs
	}
	out := rs[:0:0]
	for _, x := range rs {
		if x.Kind != GiveBack && len(r.backs.running[x.Target]) > 0 {
			x.Out, x.Err = Held, ErrHeld
			r.backs.held[x.Target] = true
			continue
		}
		out = append(out, x)
	}
	return out
}

// PutBack is a put-back sent, and the flight it was for.
type PutBack struct {
	x *Rename
	f *flight
}

func newPutBacks() *putBacks {
	return &putBacks{done: make(chan PutBack, 64), stop: make(chan struct{}), running: map[state.Target][]*flight{}, held: map[state.Target]bool{}}
}

// putBack gives the target back the label someone set inside our rename,
// unless it shows a label that is neither ours nor that one: then someone
// renamed it again since, and that stands. What is ours is asked of the
// memory when the target is looked at as well as now: a pass may rename
// the target meanwhile, and its label is ours too.
func (r *Renamer) putBack(t state.Target, f *flight) {
	switch {
	case f.adopted || f.backTo != "" && f.backTo == f.putBack:
		// Not ours to decide, or put back already (its end records
		// the decision).
		return
	case f.backTo == "":
		if edits := r.decided(t, f); edits != nil {
			if err := r.save(edits.Apply); err != nil {
				r.log.Warn("could not save state; keeping it in memory", "err", err)
			}
		}
		return
	}
	back, want, ours := f.backTo, f.want, !f.given
	// What is ours now (a flight retired meanwhile set it), and when the
	// target is looked at (a pass renamed it meanwhile). A label given
	// back is a person's, never ours to replace.
	superseded := new(atomic.Bool)
	f.superseded = superseded
	ret := owner.Return{Back: back, Want: want, Ours: ours, Then: r.oursOf(t)}
	x := &Rename{Kind: GiveBack, Target: t, Want: back, Seen: want, After: want, Why: "a person renamed it as we did: their name goes back",
		Over: func(label string, m owner.Memory) bool {
			// A person renamed it since: theirs stands.
			return !superseded.Load() && owner.ReturnOver(t.Kind, label, ret, m)
		}}
	// Claimed now: an echo seen again meanwhile does not send it twice.
	f.putBack = back
	b := r.backs
	b.start(t, f)
	b.open++
	b.wg.Add(1)
	r.spawn(func() {
		defer b.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), putBackTimeout)
		defer cancel()
		switch err := r.recordBefore([]*Rename{x}, nil); {
		case state.IsDamaged(err):
			// A lock the file may hold is unknown: it waits until the
			// file reads again (RetryPutBacks).
			x.Out, x.Err = Deferred, err
		case err != nil:
			// The person's name goes back all the same: see Send.
			r.log.Info("putting a person's label back though its record could not be saved", "err", err)
			fallthrough
		default:
			var err error
			if x.Out, err = r.one(ctx, x, false); err != nil && x.Err == nil {
				x.Err = err
			}
		}
		select {
		case b.done <- PutBack{x, f}:
		case <-b.stop:
		}
	})
}

// decided is the edit that records f as decided, when the memory holds
// it and a successor could take a later rename to its label for its echo
// (0.7/0.8 replays); nil otherwise. Only a rename herdr answered is: one
// never answered (a killed daemon's) may land yet, and the echo we took
// for its own may have been another of ours to that label.
func (r *Renamer) decided(t state.Target, f *flight) state.Edits {
	if f.decided || r.herdr.Protocol() >= 22 {
		return nil
	}
	if !slices.ContainsFunc(r.mem.Entry(t).Flights, func(g state.Flight) bool {
		return g.Want == f.want && g.Seen == f.seen && g.Sent.Equal(f.at) && g.Answered
	}) {
		return nil
	}
	f.decided = true
	var edits state.Edits
	edits.Add(func(tx *state.Tx) { tx.Decide(t, f.want, f.at) })
	return edits
}

// PutBacks is where finished put-backs arrive, for PutBackDone; none for a
// Renamer that does not follow renames.
func (r *Renamer) PutBacks() <-chan PutBack {
	if r.backs == nil {
		return nil
	}
	return r.backs.done
}

// PutBackDone takes in, on the owner's goroutine, what a put-back did: its
// record and its flight. One that was not done may be tried again at a
// later echo. It returns what the target shows now (Showing), and again:
// a rename of the target was held back while it ran (Held), and a pass
// should decide it now.
func (r *Renamer) PutBackDone(b PutBack) (shows []Label, again bool) {
	r.backs.open--
	again = r.backs.end(b.x.Target, b.f)
	var decided state.Edits
	if x := b.x; x.Out == Done || x.Out == Refused || x.Out == NotSent && x.Err == nil {
		// Its fate is known: put back, or no longer to be.
		decided = r.decided(b.x.Target, b.f)
	}
	r.recordAfter([]*Rename{b.x}, decided)
	if b.x.Out != Done && b.f.putBack == b.x.Want {
		b.f.putBack = ""
	}
	// A look that failed (herdr slow past the put-back's bound, a relay
	// holding it) goes again at the next pass, as one that waited for the
	// memory does: given up, the person's name would be lost for a hiccup.
	// The flight's watch bounds the tries.
	b.f.deferred = b.x.Out == Deferred || b.x.Out == NotSent && b.x.Err != nil
	return Showing(b.x), again
}

// RetryPutBacks starts again the put-backs that waited for a damaged
// memory to read again, or whose look at the target failed: the owner
// calls it at each pass while the memory reads.
func (r *Renamer) RetryPutBacks() {
	if r.flights == nil {
		return
	}
	for _, t := range r.flights.targets() {
		for _, f := range r.flights.by[t] {
			if f.deferred {
				f.deferred = false
				r.putBack(t, f)
			}
		}
	}
}

// Close waits for the put-backs still on their way; what came of them is
// no longer concluded (the owner is stopping). Their records stay in the
// memory for whoever runs next. The Renamer may be used again after.
func (r *Renamer) Close() {
	if r.backs == nil {
		return
	}
	close(r.backs.stop)
	r.backs.wg.Wait()
	r.backs.stop, r.backs.open = make(chan struct{}), 0
}
