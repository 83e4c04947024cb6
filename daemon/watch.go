package daemon

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
)

// backoff is the capped, jittered wait between attempts to (re)subscribe.
type backoff struct{ step time.Duration }

// next returns the wait before the next attempt (half the step plus up to
// as much again, so daemons that lost one server do not come back in
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

// watchEvents keeps one subscription open, reconnecting with capped
// backoff and jitter. After every (re)subscribe it asks for a full pass.
func (d *Daemon) watchEvents(ctx context.Context, client *herdr.Client, out chan<- streamEvent, subscribed chan<- struct{}) {
	var b backoff
	lostInARow := 0
	for ctx.Err() == nil {
		stream, err := client.Subscribe(ctx, subscriptions())
		if err != nil {
			d.subscribeFailed(err, subscribed)
			if !sleep(ctx, b.next()) {
				return
			}
			continue
		}
		began := d.now()
		endErr := d.stream1(ctx, client, stream, out, subscribed)
		// A server that acks and then closes (or sends garbage) would
		// otherwise get a subscribe, a snapshot and a pass per loop: only
		// a stream that stayed up for a while earns a reset backoff.
		if d.now().Sub(began) >= healthyStream {
			b.reset()
			lostInARow = 0
			continue
		}
		if herdr.IsEventsLost(endErr) {
			// herdr is fine, we fell behind: resubscribe now, and the
			// full pass after it resyncs. Twice in a row quickly is a
			// server that does nothing else: back off then.
			lostInARow++
			d.traceAt(slog.LevelInfo, Trace{Kind: TraceEventsLost}, "herdr dropped events we were too slow for (events_lost); resubscribing")
			if lostInARow == 1 {
				continue
			}
		}
		pause := b.next()
		d.trace(Trace{Kind: TraceResubscribePause, Pause: pause}, "event stream ended early; resubscribing after a pause", "after", pause)
		if !sleep(ctx, pause) {
			return
		}
	}
}

// subscribeFailed reports a failed subscribe. herdr up but refusing the
// request (a herdr that knows fewer event kinds, say) still has tabs to
// name: the loop is asked for a pass.
func (d *Daemon) subscribeFailed(err error, subscribed chan<- struct{}) {
	pass := "none"
	var apiErr *herdr.APIError
	if errors.As(err, &apiErr) {
		pass = askFullPass(subscribed)
		// herdr answers and refuses: no event will come.
		d.health.fail(rundir.TroubleSubscribe, err)
	}
	d.trace(Trace{Kind: TraceSubscribeFailed, FullPass: pass == "asked"}, "subscribe failed", "err", err, "full_pass", pass)
}

// stream1 serves one acked subscription until it ends: it learns the
// protocol, asks for the full pass, and forwards events. It returns the
// error that ended the stream (on server loss, mostly).
func (d *Daemon) stream1(ctx context.Context, client *herdr.Client, stream *herdr.Stream, out chan<- streamEvent, subscribed chan<- struct{}) error {
	defer stream.Close()
	gen := d.stream.gen.Add(1)
	d.stream.up.Store(true)
	defer d.stream.up.Store(false)
	d.stream.first.CompareAndSwap(0, d.now().UnixNano())
	// Learn the protocol (and warn once about an unknown one) after
	// every (re)subscribe: a restarted herdr may be another version.
	if _, err := client.Ping(ctx); err != nil {
		d.log.Debug("ping failed", "err", err)
	}
	d.health.ok(rundir.TroubleSubscribe)
	pass := askFullPass(subscribed)
	d.trace(Trace{Kind: TraceSubscribed, FullPass: pass == "asked"}, "subscribed to events", "full_pass", pass)
	return d.forward(ctx, stream, gen, out)
}
