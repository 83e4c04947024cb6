package herdr

import (
	"context"
	"time"
)

// Where a 0.7/0.8 replay ends. Each subscription entry of herdr up to
// 0.8.2 starts at the beginning of a 512-event ring and, every 100 ms
// tick, sends the next event of its kind it has not sent, or nothing when
// it has caught up (docs/herdr.md §7). Lines carry no sequence, so the
// one sign that an entry has caught up is a tick with nothing to send:
// an entry quiet for replayQuiet, while we were ready to read, has sent
// all its history, and all it sends afterwards is live. A target renamed
// more often than that (an agent's status icon flapping, say) keeps its
// entry from ever being quiet; the ring bounds the history, so an entry
// has sent all of it ReplayWindow after the subscribe in any case.
//
// forward is the only writer of the stream's items, so the note that an
// entry's replay is over comes after every event that came before it.

// streamLine is one result of the stream's reader.
type streamLine struct {
	ev  Event
	err error
	at  time.Time // when it was read
}

// forward reads the stream and hands its events on in order, adding a
// NoteReplayOver for each replayed entry whose replay ends. It returns
// the error that ended the stream.
func (f *Feed) forward(ctx context.Context, stream *Stream, gen uint64, out chan<- FeedItem) error {
	stop := make(chan struct{})
	defer close(stop) // a reader left behind (a switch of kinds) goes
	lines := f.read(ctx, stream, stop)
	// quiet holds, per entry still replaying, since when we have been
	// ready to read and it sent nothing.
	quiet := map[EventKind]time.Time{}
	start := f.now()
	for _, k := range f.replayed {
		if f.client.Protocol() < 22 {
			quiet[k] = start
		} else if !f.emit(ctx, out, FeedItem{Note: NoteReplayOver, Gen: gen, ReplayOver: k}, nil) {
			return ctx.Err()
		}
	}
	for {
		var wake <-chan time.Time
		if len(quiet) > 0 {
			now := f.now()
			wake = time.After(min(replayQuiet-now.Sub(earliest(quiet)), f.cap-now.Sub(start)))
		}
		var l streamLine
		select {
		case l = <-lines:
		case <-wake:
			select {
			case l = <-lines: // a line that came as the quiet ended ends it
			default:
				if !f.endReplays(ctx, quiet, start, gen, out) {
					return ctx.Err()
				}
				continue
			}
		case <-ctx.Done():
			return ctx.Err()
		case <-f.switched:
			return errSwitched
		}
		if l.err != nil {
			return l.err
		}
		if _, ok := quiet[l.ev.Kind]; ok {
			quiet[l.ev.Kind] = f.now()
		}
		if !f.emit(ctx, out, FeedItem{Note: NoteEvent, Event: l.ev, Gen: gen, At: l.at}, quiet) {
			return ctx.Err()
		}
	}
}

// read hands on the stream's lines, each with when it was read, until
// an error, ctx's end or stop.
func (f *Feed) read(ctx context.Context, stream *Stream, stop <-chan struct{}) <-chan streamLine {
	lines := make(chan streamLine)
	go func() {
		for {
			ev, err := stream.Next()
			select {
			case lines <- streamLine{ev, err, f.now()}:
			case <-ctx.Done():
				return
			case <-stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return lines
}

// endReplays notes every entry quiet for replayQuiet, and every entry
// once the subscription that began at start is older than the longest
// replay.
func (f *Feed) endReplays(ctx context.Context, quiet map[EventKind]time.Time, start time.Time, gen uint64, out chan<- FeedItem) bool {
	now := f.now()
	capped := now.Sub(start) >= f.cap
	for k, since := range quiet {
		from := since
		if now.Sub(since) < replayQuiet {
			if !capped {
				continue
			}
			// Busy, not quiet: a rename not echoed yet waits in the
			// entry's queue, and its echo comes live.
			from = time.Time{}
		}
		delete(quiet, k)
		if !f.emit(ctx, out, FeedItem{Note: NoteReplayOver, Gen: gen, ReplayOver: k, QuietFrom: from}, quiet) {
			return false
		}
	}
	return true
}

// emit hands one item on. One that had to wait means the reader was busy
// and lines may be waiting unread: a quiet measured across it would not
// be herdr's, so every entry's quiet starts anew.
func (f *Feed) emit(ctx context.Context, out chan<- FeedItem, it FeedItem, quiet map[EventKind]time.Time) bool {
	select {
	case out <- it:
		return true
	default:
	}
	if !f.send(ctx, out, it) {
		return false
	}
	now := f.now()
	for k := range quiet {
		quiet[k] = now
	}
	return true
}

func earliest(m map[EventKind]time.Time) time.Time {
	var first time.Time
	for _, t := range m {
		if first.IsZero() || t.Before(first) {
			first = t
		}
	}
	return first
}
