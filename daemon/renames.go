package daemon

import (
	"context"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/renamer"
)

// The daemon's renamer: made once, it follows every rename of ours to its
// echo on the feed while Run (or restore) reads one; a pass sends its
// renames through it (passes.go). Everything else the daemon does with
// it is here.

// initRenamer makes the daemon's renamer.
func (d *Daemon) initRenamer() {
	d.renamer = renamer.New(renamer.Options{Herdr: d.api, Memory: d.state, Now: d.clock, Log: d.log, Follow: true,
		Gen:   func() uint64 { return d.gen },
		Hooks: renamer.Hooks{Renamed: d.health.renamed, Saved: d.health.saved}})
}

// shows takes into the view what renames of ours left their targets
// showing: their echoes are old news.
func (d *Daemon) shows(ls []renamer.Label) {
	for _, l := range ls {
		d.view.Shows(l.Target, l.Label)
	}
}

// startRenames follows the renames a stopped or killed daemon left on
// their way; the function it returns waits for put-backs still on
// theirs.
func (d *Daemon) startRenames() (end func()) {
	d.renamer.Adopt()
	return d.renamer.Close
}

// follow takes a rename event or a replay's end to the renamer.
func (l *loop) follow(it herdr.FeedItem) { l.d.renamer.Take(it) }

// putBackDone concludes a put-back the renamer sent off the loop, and
// runs the pass a rename held back while it ran waits for.
func (l *loop) putBackDone(b renamer.PutBack) {
	shows, again := l.d.renamer.PutBackDone(b)
	l.d.shows(shows)
	if again {
		then := l.news()
		l.d.log.Debug("a put-back ended with a rename held back", "then", then)
	}
}

// endRenames gives the renames still on their way up to
// shutdownEchoWait to show their fate before the daemon stops.
func (l *loop) endRenames() {
	d := l.d
	d.renamer.Await(context.Background(), renamer.Stream{Items: l.items, Gen: d.feed.Gen, Up: d.feed.Up}, shutdownEchoWait)
}

// FollowRenames subscribes to herdr's events so that the renames the
// daemon's renamer sends from now on (restore's) are followed to their
// echoes, a person's rename inside one put back. It waits (bounded) for
// the subscription. done waits up to wait for every rename's fate, then
// ends the subscription.
func (d *Daemon) FollowRenames(ctx context.Context) (done func(wait time.Duration)) {
	d.feed = herdr.NewFeed(d.client, renamer.RenamedKinds, renamer.RenamedKinds, d.clock, d.replayCap)
	items := make(chan herdr.FeedItem, 256)
	fctx, stop := context.WithCancel(ctx)
	ended := make(chan struct{})
	go func() { defer close(ended); d.feed.Run(fctx, items) }()
	timeout := time.After(firstSubscribeWait)
wait:
	for {
		select {
		case it := <-items:
			d.renamer.Take(it)
			if it.Note == herdr.NoteSubscribed {
				d.gen = it.Gen
			}
			if it.Note == herdr.NoteSubscribed || it.Note == herdr.NoteSubscribeFailed {
				break wait
			}
		case <-timeout:
			break wait
		}
	}
	return func(wait time.Duration) {
		d.renamer.Await(ctx, renamer.Stream{Items: items, Gen: d.feed.Gen, Up: d.feed.Up}, wait)
		d.renamer.Close()
		stop()
		<-ended
	}
}
