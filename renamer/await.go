package renamer

import (
	"context"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// Stream is what Await reads the fate of renames from: a herdr.Feed and
// the channel it hands its items to.
type Stream struct {
	Items <-chan herdr.FeedItem
	Gen   func() uint64
	Up    func() bool
}

// Await follows the owner's renames still on their way to their echoes,
// putting back a person's rename found inside one, until no put-back is
// on its way and no rename awaits its fate, or wait has passed. Items other than events and replay ends are
// dropped: the owner is stopping, or a command that only waits.
func (r *Renamer) Await(ctx context.Context, s Stream, wait time.Duration) {
	if r.flights == nil {
		return
	}
	deadline := time.After(wait)
	for r.backs.open > 0 || r.Awaiting(s.Gen(), s.Up()) {
		select {
		case it := <-s.Items:
			r.Take(it)
		case b := <-r.PutBacks():
			r.PutBackDone(b)
		case <-deadline:
			return
		case <-ctx.Done():
			return
		}
	}
}

// Take follows one item of the owner's feed: an event's echo, the end of
// an entry's replay, a subscription acked.
func (r *Renamer) Take(it herdr.FeedItem) {
	switch it.Note {
	case herdr.NoteEvent:
		r.Echo(it.Event, it.Gen)
	case herdr.NoteReplayOver:
		r.ReplayOver(it.Gen, it.ReplayOver)
	case herdr.NoteSubscribed:
		if r.flights != nil {
			r.subscribed = map[uint64]time.Time{it.Gen: r.now()}
		}
	}
}
