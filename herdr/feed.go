package herdr

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// A Feed keeps one event subscription open for as long as it runs,
// resubscribing with capped, jittered backoff, and hands on what it reads
// in order: events, and notes of its own (subscribed, a subscribe that
// failed, events herdr dropped, a pause before resubscribing, the end of
// a 0.7/0.8 entry's replay). Everything goes through one channel, so a
// reader sees a note after every event that came before it.

// The stream's timings, counted in herdr's tick: herdr looks for a request
// line every 100 ms, and each subscription entry sends at most one event
// per 100 ms tick (docs/herdr.md §2, §7).
const (
	// Tick is herdr's read poll and event tick.
	Tick = 100 * time.Millisecond
	// ReplayWindow bounds a 0.7/0.8 subscription's replay: herdr's ring
	// holds 512 events and an entry sends one per tick. 0.9 (protocol
	// 22) does not replay.
	ReplayWindow = 512*Tick + time.Second
	// replayQuiet is how long an entry of a 0.7/0.8 subscription must
	// send nothing for its replay to count as over: ten ticks without
	// one, where a replay sends one every tick.
	replayQuiet = 10 * Tick
	// backoffMin and backoffMax bound the jittered wait between attempts
	// to (re)subscribe: the first retry is about one tick away, and a
	// server that is gone is asked every few seconds.
	backoffMin = Tick
	backoffMax = 5 * time.Second
	// healthyStream is how long a subscription must last before its end
	// counts as a normal disconnect rather than a server refusing us.
	healthyStream = 2 * backoffMax
)

// Note is what a FeedItem is.
type Note uint8

// The notes of a Feed.
const (
	// NoteEvent: Event is one of herdr's.
	NoteEvent Note = iota
	// NoteSubscribed: a subscription was acked (Gen is its number); what
	// came before it may be lost, so the reader reads the session anew.
	NoteSubscribed
	// NoteSubscribeFailed: a subscribe failed (Err); Refused: herdr
	// answered and refused it, so no event will come.
	NoteSubscribeFailed
	// NoteEventsLost: herdr dropped events the stream was too slow for;
	// the Feed resubscribes at once.
	NoteEventsLost
	// NotePause: the stream ended early; the Feed waits Pause before it
	// resubscribes.
	NotePause
	// NoteReplayOver: the entry for ReplayOver ("tab.renamed",
	// "workspace.renamed") has delivered its history: it was quiet since
	// QuietFrom, or (QuietFrom zero) it ran as long as any replay can, or
	// (protocol 22) there is none. What it sends from now on is live.
	NoteReplayOver
)

// FeedItem is one thing a Feed hands on.
type FeedItem struct {
	Note  Note
	Event Event
	// Gen is the subscription the item came on, counting from 1.
	Gen        uint64
	ReplayOver EventKind
	QuietFrom  time.Time
	// At is when an event's line was read off the stream.
	At      time.Time
	Err     error
	Refused bool
	Pause   time.Duration
}

// Feed is a long-lived subscription. Run runs it; the other methods are
// safe from any goroutine.
type Feed struct {
	client *Client
	subs   []Subscription
	// replayed are the kinds whose replay's end the Feed notes.
	replayed []EventKind
	now      func() time.Time
	cap      time.Duration

	gen   atomic.Uint64 // counts subscriptions
	first atomic.Int64  // when the first one was acked, unix ns
	up    atomic.Bool   // a subscription is open now

	// without are the kinds left out of the subscription (Without);
	// switched ends the current one when they change.
	mu       sync.Mutex
	without  map[EventKind]bool
	switched chan struct{}
}

// errSwitched ends a subscription whose kinds changed (Without).
var errSwitched = errors.New("the subscription's kinds changed")

// NewFeed is a Feed of kinds (bus events, no per-pane entries) that notes
// the end of the replay of each of replayed. now is its clock (nil: the
// wall clock); replayCap bounds how long an entry counts as replaying
// (0: ReplayWindow).
func NewFeed(c *Client, kinds, replayed []EventKind, now func() time.Time, replayCap time.Duration) *Feed {
	if now == nil {
		now = time.Now
	}
	if replayCap <= 0 {
		replayCap = ReplayWindow
	}
	subs := make([]Subscription, 0, len(kinds))
	for _, k := range kinds {
		subs = append(subs, Subscription{Type: string(k)})
	}
	return &Feed{client: c, subs: subs, replayed: replayed, now: now, cap: replayCap,
		without: map[EventKind]bool{}, switched: make(chan struct{}, 1)}
}

// Without leaves kind out of the subscription (off) or puts it back in.
// When that changes what the subscription carries, the open one ends and
// the Feed subscribes again at once (NoteSubscribed follows; on 0.7/0.8
// its entries replay as any new subscription's do).
func (f *Feed) Without(kind EventKind, off bool) {
	f.mu.Lock()
	changed := f.without[kind] != off
	f.without[kind] = off
	f.mu.Unlock()
	if changed {
		select {
		case f.switched <- struct{}{}:
		default:
		}
	}
}

// subscriptions are the entries to subscribe to now.
func (f *Feed) subscriptions() []Subscription {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Subscription, 0, len(f.subs))
	for _, s := range f.subs {
		if !f.without[EventKind(s.Type)] {
			out = append(out, s)
		}
	}
	return out
}

// Gen is the number of the newest subscription, 0 before the first.
func (f *Feed) Gen() uint64 { return f.gen.Load() }

// Up reports whether a subscription is open now.
func (f *Feed) Up() bool { return f.up.Load() }

// Started reports whether any subscription was ever acked.
func (f *Feed) Started() bool { return f.first.Load() != 0 }

// Run keeps a subscription open until ctx ends, handing what it reads to
// out.
func (f *Feed) Run(ctx context.Context, out chan<- FeedItem) {
	var b backoff
	lostInARow := 0
	for ctx.Err() == nil {
		select {
		case <-f.switched: // taken up by this subscribe
		default:
		}
		stream, err := f.client.Subscribe(ctx, f.subscriptions())
		if err != nil {
			var apiErr *APIError
			if !f.send(ctx, out, FeedItem{Note: NoteSubscribeFailed, Err: err, Refused: errors.As(err, &apiErr)}) || !sleep(ctx, b.next()) {
				return
			}
			continue
		}
		began := f.now()
		endErr := f.serve(ctx, stream, out)
		if errors.Is(endErr, errSwitched) {
			continue
		}
		// A server that acks and then closes (or sends garbage) would
		// otherwise get a subscribe and a pass per loop: only a stream
		// that stayed up for a while earns a reset backoff.
		if f.now().Sub(began) >= healthyStream {
			b.reset()
			lostInARow = 0
			continue
		}
		if IsEventsLost(endErr) {
			// herdr is fine, we fell behind: resubscribe now. Twice in a
			// row quickly is a server that does nothing else: back off.
			lostInARow++
			if !f.send(ctx, out, FeedItem{Note: NoteEventsLost}) {
				return
			}
			if lostInARow == 1 {
				continue
			}
		}
		pause := b.next()
		if !f.send(ctx, out, FeedItem{Note: NotePause, Pause: pause}) || !sleep(ctx, pause) {
			return
		}
	}
}

// serve hands on one acked subscription until it ends: it learns the
// protocol (a restarted herdr may be another version), notes the
// subscription, and forwards events. It returns the error that ended
// the stream.
func (f *Feed) serve(ctx context.Context, stream *Stream, out chan<- FeedItem) error {
	defer stream.Close()
	gen := f.gen.Add(1)
	f.up.Store(true)
	defer f.up.Store(false)
	f.first.CompareAndSwap(0, f.now().UnixNano())
	_, _ = f.client.Ping(ctx)
	if !f.send(ctx, out, FeedItem{Note: NoteSubscribed, Gen: gen}) {
		return ctx.Err()
	}
	return f.forward(ctx, stream, gen, out)
}

// send hands one item on; false when ctx ended first.
func (f *Feed) send(ctx context.Context, out chan<- FeedItem, it FeedItem) bool {
	select {
	case out <- it:
		return true
	case <-ctx.Done():
		return false
	}
}

// backoff is the capped, jittered wait between attempts to (re)subscribe.
type backoff struct{ step time.Duration }

// next returns the wait before the next attempt (half the step plus up to
// as much again, so clients that lost one server do not come back in
// step) and doubles the step up to backoffMax.
func (b *backoff) next() time.Duration {
	if b.step == 0 {
		b.step = backoffMin
	}
	sleep := b.step/2 + rand.N(b.step/2+1)
	b.step = min(b.step*2, backoffMax)
	return sleep
}

func (b *backoff) reset() { b.step = backoffMin }

// sleep waits d or until ctx ends; false when ctx ended.
func sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}
