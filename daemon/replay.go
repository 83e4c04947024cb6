package daemon

import (
	"context"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// Where a 0.7/0.8 replay ends. Each subscription entry of herdr up to
// 0.8.2 starts at the beginning of a 512-event ring and, every 100 ms
// tick, sends the next event of its kind it has not sent, or nothing when
// it has caught up (docs/herdr.md §7). Lines carry no sequence, so the
// one sign that an entry has caught up is a tick with nothing to send:
// an entry quiet for replayQuiet, while we were ready to read, has sent
// all its history, and all it sends afterwards is live. A tab renamed
// more often than that (an agent's status icon flapping, say) keeps its
// entry from ever being quiet; the ring bounds the history, so an entry
// has sent all of it ReplayWindow after the subscribe in any case.
//
// forward is the only writer of the stream's events to the loop, so the
// word that an entry's replay is over reaches the loop after every event
// that came before it.

// streamLine is one result of the stream's reader.
type streamLine struct {
	ev  herdr.Event
	err error
}

// forward reads the stream and hands its events to the loop in order,
// adding a replayDone event for each rename entry whose replay ends. It
// returns the error that ended the stream.
func (d *Daemon) forward(ctx context.Context, stream *herdr.Stream, gen uint64, out chan<- streamEvent) error {
	lines := make(chan streamLine)
	go func() {
		for {
			ev, err := stream.Next()
			select {
			case lines <- streamLine{ev, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	// quiet holds, per rename entry still replaying, since when we have
	// been ready to read and it sent nothing.
	quiet := map[string]time.Time{}
	start := d.now()
	for _, k := range renamedEvent {
		if d.client.Protocol() < 22 {
			quiet[k] = start
			continue
		}
		// Traced as the end of a replay, which tests and the built
		// binary's log (its replay_over field) wait for.
		d.trace(Trace{Kind: TraceReplayOver, Event: k}, "0.9 subscriptions do not replay; its events are live", "replay_over", k, "gen", gen)
	}
	for {
		var wake <-chan time.Time
		if len(quiet) > 0 {
			now := d.now()
			wake = time.After(min(replayQuiet-now.Sub(earliest(quiet)), d.replayCap-now.Sub(start)))
		}
		var l streamLine
		select {
		case l = <-lines:
		case <-wake:
			select {
			case l = <-lines: // a line that came as the quiet ended ends it
			default:
				if !d.endReplays(ctx, quiet, start, gen, out) {
					return ctx.Err()
				}
				continue
			}
		case <-ctx.Done():
			return ctx.Err()
		}
		if l.err != nil {
			return l.err
		}
		if _, ok := quiet[l.ev.Kind]; ok {
			quiet[l.ev.Kind] = d.now()
		}
		if !d.send(ctx, out, streamEvent{Event: l.ev, gen: gen}, quiet) {
			return ctx.Err()
		}
	}
}

// endReplays tells the loop about every entry quiet for replayQuiet, and
// about every entry once the subscription that began at start is older
// than the longest replay. It then looks at the reader again before any
// other: a line it holds came while we were not looking, so each entry's
// quiet starts anew.
func (d *Daemon) endReplays(ctx context.Context, quiet map[string]time.Time, start time.Time, gen uint64, out chan<- streamEvent) bool {
	now := d.now()
	capped := now.Sub(start) >= d.replayCap
	for k, since := range quiet {
		from := since
		if now.Sub(since) < replayQuiet {
			if !capped {
				continue
			}
			// Busy, not quiet: a rename of ours not echoed yet waits in
			// the entry's queue, and its echo comes live.
			from = time.Time{}
		}
		delete(quiet, k)
		if !d.send(ctx, out, streamEvent{gen: gen, replayDone: k, quietFrom: from}, quiet) {
			return false
		}
	}
	return true
}

// send hands one event to the loop. A send that had to wait means the
// loop was busy and lines may be waiting unread: a quiet measured across
// it would not be herdr's, so every entry's quiet starts anew.
func (d *Daemon) send(ctx context.Context, out chan<- streamEvent, ev streamEvent, quiet map[string]time.Time) bool {
	select {
	case out <- ev:
		return true
	default:
	}
	select {
	case out <- ev:
	case <-ctx.Done():
		return false
	}
	now := d.now()
	for k := range quiet {
		quiet[k] = now
	}
	return true
}

func earliest(m map[string]time.Time) time.Time {
	var first time.Time
	for _, t := range m {
		if first.IsZero() || t.Before(first) {
			first = t
		}
	}
	return first
}
