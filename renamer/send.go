package renamer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/owner"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// Workers bounds concurrent renames by default: a first pass over a big
// session renames thousands of tabs, each a re-read and a rename.
const Workers = 8

// ErrDeferred: a rename not sent, the caller's time being nearly up; the
// next pass decides again. ErrHeld: one not sent, a person's label being
// on its way back to its target.
var (
	ErrDeferred = errors.New("deferred to the next pass: this one ran out of time")
	ErrHeld     = errors.New("held: a person's label is on its way back to it")
)

// renameMargin is the time before the send's deadline after which no new
// rename starts: one re-read and rename, herdr's read poll included, with
// room to spare.
const renameMargin = 3 * herdr.Tick

// Hooks tell the Renamer's owner how its work goes, for its health
// record. Each may be nil.
type Hooks struct {
	// Renamed hears herdr's answer to each rename, from any goroutine.
	Renamed func(err error)
	// Saved hears whether the memory could be saved, from any goroutine.
	Saved func(err error)
}

// Options configure a Renamer.
type Options struct {
	Herdr  Herdr
	Memory Memory
	Now    func() time.Time // nil: time.Now
	Log    *slog.Logger     // nil: discard
	Hooks  Hooks
	// Workers bounds concurrent renames (0: Workers). Inline: none, the
	// caller's goroutine sends them one by one (tests that schedule
	// every request).
	Workers int
	Inline  bool
	// Follow: the owner reads herdr's events and follows each rename to
	// its echo (Echo, ReplayOver); gen is the subscription renames are
	// made on now. Without it renames are recorded and sent only.
	Follow bool
	Gen    func() uint64
	// Spawn runs a put-back off the owner's goroutine (nil: go f()).
	// Tests that explore interleavings run it when they choose.
	Spawn func(f func())
	// Sleep waits d, or until ctx ends (false then); nil: the wall
	// clock. Tests that explore interleavings hand control back.
	Sleep func(ctx context.Context, d time.Duration) bool
}

// Renamer sends renames and follows them. See the package doc for who
// may call what.
type Renamer struct {
	herdr   Herdr
	mem     Memory
	now     func() time.Time
	log     *slog.Logger
	hooks   Hooks
	workers int
	inline  bool
	gen     func() uint64
	spawn   func(func())
	sleep   func(context.Context, time.Duration) bool
	flights *flights // nil unless Options.Follow
	backs   *putBacks
	heard   heard
	// subscribed is when the current subscription was acked, by gen.
	subscribed map[uint64]time.Time
	sending    sending
}

// New makes a Renamer.
func New(o Options) *Renamer {
	r := &Renamer{herdr: o.Herdr, mem: o.Memory, now: o.Now, log: o.Log, hooks: o.Hooks,
		workers: o.Workers, inline: o.Inline, gen: o.Gen, spawn: o.Spawn, sleep: o.Sleep}
	if r.now == nil {
		r.now = time.Now
	}
	if r.log == nil {
		r.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if r.workers <= 0 {
		r.workers = Workers
	}
	if r.gen == nil {
		r.gen = func() uint64 { return 0 }
	}
	if r.spawn == nil {
		r.spawn = func(f func()) { go f() }
	}
	if r.sleep == nil {
		r.sleep = func(ctx context.Context, d time.Duration) bool {
			select {
			case <-ctx.Done():
				return false
			case <-time.After(d):
				return true
			}
		}
	}
	if o.Follow {
		r.flights = newFlights()
		r.backs = newPutBacks()
	}
	return r
}

// Send runs the protocol over renames: it saves their records with edits
// (what the caller learnt meanwhile, written in the same write), sends
// them, and saves what they did. ok is false when the records could not be
// saved: then nothing was sent (and edits were not written). gone is the
// first error after which nothing more could be sent (herdr went away).
// young: the caller's look is so recent, and the stream watches for the
// echo, that it stands in for each tab's re-read.
func (r *Renamer) Send(ctx context.Context, rs []*Rename, edits state.Edits, young bool) (ok bool, gone error) {
	rs = r.hold(rs)
	if err := r.recordBefore(rs, edits); err != nil && !givingBack(rs) {
		r.log.Warn("not renaming: could not save the labels about to be set", "err", err)
		for _, x := range rs {
			x.Err = fmt.Errorf("not renamed: state not saved: %w", err)
		}
		return false, nil
	} else if err != nil {
		// A label given back is a person's: without it their name is
		// lost for sure, with it only a rename inside its window may be.
		r.log.Info("giving labels back though their record could not be saved", "err", err)
	}
	if len(rs) == 0 {
		return true, nil
	}
	b := &batch{r: r, young: young, rs: rs}
	bctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if r.inline {
		b.work(ctx, bctx, cancel)
	} else {
		var wg sync.WaitGroup
		for range min(r.workers, len(rs)) {
			wg.Go(func() { b.work(ctx, bctx, cancel) })
		}
		wg.Wait()
	}
	r.recordAfter(rs, nil)
	return true, b.gone
}

// givingBack says whether every rename gives a label back.
func givingBack(rs []*Rename) bool {
	for _, x := range rs {
		if x.Kind != GiveBack {
			return false
		}
	}
	return len(rs) > 0
}

// batch is one Send's renames, handed out to its workers.
type batch struct {
	r     *Renamer
	young bool
	mu    sync.Mutex
	rs    []*Rename
	next  int
	gone  error
}

// work sends renames until none is left or herdr is gone. bctx is ctx,
// cut by cancel once herdr is gone. When the deadline comes near, renames
// not started yet are left for the next pass rather than cut off
// mid-request (which would read as herdr being gone).
func (b *batch) work(ctx, bctx context.Context, cancel func()) {
	for {
		x, ok := b.take()
		if !ok {
			return
		}
		if dl, ok := bctx.Deadline(); bctx.Err() != nil || ok && time.Until(dl) < renameMargin {
			x.Out, x.Err = Deferred, ErrDeferred
			continue
		}
		var err error
		x.Out, err = b.r.one(bctx, x, b.young)
		// The caller's own deadline cutting a request is no outage.
		if err != nil && herdr.IsServerGone(err) && ctx.Err() == nil {
			b.mu.Lock()
			if b.gone == nil {
				b.gone = err
			}
			b.mu.Unlock()
			cancel()
		}
	}
}

// take hands out the next rename, none once herdr is gone.
func (b *batch) take() (*Rename, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.gone != nil || b.next == len(b.rs) {
		return nil, false
	}
	b.next++
	return b.rs[b.next-1], true
}

// entry is the target's memory now, a lock taken since the caller's look
// included (it is on disk only).
func (r *Renamer) entry(t state.Target) state.Entry {
	if err := r.mem.Refresh(); err != nil {
		r.log.Warn("state file", "err", err)
	}
	return r.mem.Entry(t)
}

// memory is the target's memory now, as the ownership rule reads it.
func (r *Renamer) memory(t state.Target) owner.Memory { return owner.Of(r.entry(t), r.now()) }

// save writes fn and tells Hooks.Saved whether it could.
func (r *Renamer) save(fn func(*state.Tx)) error {
	err := r.mem.Update(fn)
	if r.hooks.Saved != nil {
		r.hooks.Saved(err)
	}
	return err
}
