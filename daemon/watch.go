package daemon

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
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
func (d *Daemon) watchEvents(ctx context.Context, client *herdr.Client, out chan<- streamEvent, subscribed chan<- struct{}, agents <-chan []string) {
	var b backoff
	lostInARow := 0
	var agentPanes []string
	for ctx.Err() == nil {
		select {
		case a := <-agents:
			agentPanes = a
		default:
		}
		sctx, cancel := context.WithCancel(ctx)
		stream, err := client.Subscribe(sctx, subscriptions(agentPanes))
		if err != nil {
			cancel()
			d.subscribeFailed(err, subscribed)
			if !sleep(ctx, b.next()) {
				return
			}
			continue
		}
		began := d.now()
		changed, endErr := d.stream1(sctx, cancel, client, stream, out, subscribed, agents, len(agentPanes))
		if changed != nil {
			// We ended it to change what we listen to: resubscribe now.
			agentPanes = *changed
			continue
		}
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
// request most likely means a per-pane entry names a pane that is gone:
// the loop is asked for a pass, which sends the current agent panes for
// the next attempt.
func (d *Daemon) subscribeFailed(err error, subscribed chan<- struct{}) {
	pass := "none"
	var apiErr *herdr.APIError
	if errors.As(err, &apiErr) {
		pass = askFullPass(subscribed)
	}
	d.trace(Trace{Kind: TraceSubscribeFailed, FullPass: pass == "asked"}, "subscribe failed", "err", err, "full_pass", pass)
}

// stream1 serves one acked subscription until it ends: it learns the
// protocol, asks for the full pass, and forwards events. It returns the
// new agent panes when the stream was ended to subscribe to them, and the
// error that ended it.
func (d *Daemon) stream1(sctx context.Context, cancel context.CancelFunc, client *herdr.Client, stream *herdr.Stream,
	out chan<- streamEvent, subscribed chan<- struct{}, agents <-chan []string, agentPanes int) (*[]string, error) {
	gen := d.stream.gen.Add(1)
	d.stream.first.CompareAndSwap(0, d.now().UnixNano())
	// Learn the protocol (and warn once about an unknown one) after
	// every (re)subscribe: a restarted herdr may be another version.
	if _, err := client.Ping(sctx); err != nil {
		d.log.Debug("ping failed", "err", err)
	}
	pass := askFullPass(subscribed)
	d.trace(Trace{Kind: TraceSubscribed, AgentPanes: agentPanes, FullPass: pass == "asked"},
		"subscribed to events", "agent_panes", agentPanes, "full_pass", pass)
	// The stream ends on server loss, or when the set of agent panes
	// changes and needs a new subscription.
	next := make(chan []string, 1)
	watcherDone := make(chan struct{})
	go func() {
		defer close(watcherDone)
		select {
		case a := <-agents:
			next <- a
			cancel()
		case <-sctx.Done():
		}
	}()
	endErr := d.forward(sctx, stream, gen, out)
	stream.Close()
	cancel()
	<-watcherDone
	select {
	case a := <-next:
		return &a, endErr
	default:
		return nil, endErr
	}
}
