package herdr_test

import (
	"context"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrtest"
)

// A kind left out of the feed (Without) ends the subscription and starts
// one without it at once; put back, it comes again.
func TestFeedWithout(t *testing.T) {
	srv := herdrtest.Start(t, herdrsim.WithProtocol(20), herdrsim.WithTick(fastTick))
	_, _, p := srv.NewWorkspace("a", "/tmp")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	f := herdr.NewFeed(herdr.New(srv.SocketPath()), []herdr.EventKind{herdr.TabCreated, herdr.PaneUpdated}, nil, nil, 0)
	out := make(chan herdr.FeedItem, 64)
	go f.Run(ctx, out)
	next := func(want func(herdr.FeedItem) bool) herdr.FeedItem {
		t.Helper()
		for {
			select {
			case it := <-out:
				if want(it) {
					return it
				}
			case <-ctx.Done():
				t.Fatal("no such item")
			}
		}
	}
	subscribed := func(it herdr.FeedItem) bool { return it.Note == herdr.NoteSubscribed }
	updated := func(it herdr.FeedItem) bool { return it.Note == herdr.NoteEvent && it.Event.Kind == herdr.PaneUpdated }
	next(subscribed)
	srv.SetTitle(p, "one")
	next(updated)

	f.Without(herdr.PaneUpdated, true)
	if it := next(subscribed); it.Gen != 2 {
		t.Fatalf("resubscribed as %d, want 2", it.Gen)
	}
	srv.SetTitle(p, "two")
	srv.NewTab(srv.Snapshot().Workspaces[0].ID, "/tmp")
	// The replay of the new subscription brings tab.created twice
	// (both tabs); no pane.updated comes.
	for range 2 {
		if it := next(func(it herdr.FeedItem) bool { return it.Note == herdr.NoteEvent }); it.Event.Kind != herdr.TabCreated {
			t.Fatalf("without pane.updated, got %v", it.Event.Kind)
		}
	}
	f.Without(herdr.PaneUpdated, false)
	next(subscribed)
	next(updated)
	if f.Gen() != 3 {
		t.Fatalf("%d subscriptions, want 3", f.Gen())
	}
}
