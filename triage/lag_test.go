package triage

import (
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// panesAt are two panes at the revisions given.
func panesAt(chatty, quiet uint64) []herdr.Pane {
	return []herdr.Pane{{ID: "w1:p1", Revision: chatty}, {ID: "w1:p2", Revision: quiet}}
}

// A lagging pane.updated is answered: at once (Delivered says so when the
// answer begins), without pane.updated once the backlog is live or the
// session changes faster than herdr drains, and with it again once the
// session is calm; a subscription herdr does not pace never lags.
func TestLag(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	var l Lag
	l.Subscribed(t0, true)
	now := t0.Add(time.Second)
	// A pane at eight updates a second leaves gaps: no lag.
	for i := range 40 {
		gap := 100 * time.Millisecond
		if i%4 == 3 {
			gap = 200 * time.Millisecond
		}
		now = now.Add(gap)
		if l.Delivered(now, false) {
			t.Fatalf("an entry that keeps up lagged at %d", i)
		}
	}
	// One a tick, in the first minute: the replay's pace, or a live
	// backlog; answered, pane.updated kept until the session says which.
	began := false
	for range lagRun + 1 {
		now = now.Add(herdr.Tick)
		began = l.Delivered(now, false) || began
	}
	if !began || !l.Answering(now) || !l.Subscribe() {
		t.Fatalf("at herdr's pace: began %v answering %v subscribe %v", began, l.Answering(now), l.Subscribe())
	}
	l.Looked(panesAt(100, 5), now)
	now = now.Add(2 * time.Second)
	l.Looked(panesAt(140, 5), now) // 20 revisions a second
	if l.Subscribe() {
		t.Fatal("a session busier than herdr's pace kept pane.updated")
	}
	// Without pane.updated, calm snapshots bring it back after calmFor.
	for i := range 3 {
		now = now.Add(5 * time.Second)
		l.Looked(panesAt(140, 5+uint64(i)), now)
	}
	if !l.Subscribe() {
		t.Fatal("a calm session went on without pane.updated")
	}
	// Its replay lags again, is answered, and keeps pane.updated: the
	// session is calm. Caught up, the answer ends.
	l.Subscribed(now, true)
	for range dropRun + 1 {
		now = now.Add(herdr.Tick)
		l.Delivered(now, true)
	}
	if !l.Answering(now) || !l.Subscribe() {
		t.Fatalf("a replay in a calm session: answering %v subscribe %v", l.Answering(now), l.Subscribe())
	}
	if now = now.Add(time.Second); l.Answering(now) {
		t.Fatal("still answering with no pane.updated for a second")
	}
	// New events at herdr's pace for three seconds: the session makes
	// them that fast, dropped whatever the replay.
	l.Subscribed(now, true)
	for range dropRun + 1 {
		now = now.Add(herdr.Tick)
		l.Delivered(now, false)
	}
	if l.Subscribe() {
		t.Fatal("new events at herdr's pace kept pane.updated")
	}
	for i := range 3 {
		now = now.Add(5 * time.Second)
		l.Looked(panesAt(140, 10+uint64(i)), now)
	}
	// A backlog past the longest replay is live: dropped at once.
	now = now.Add(herdr.ReplayWindow)
	for range lagRun + 1 {
		now = now.Add(herdr.Tick)
		l.Delivered(now, true)
	}
	if l.Subscribe() {
		t.Fatal("a live backlog kept pane.updated")
	}
	var live Lag
	live.Subscribed(t0, false)
	for i := range 50 {
		if live.Delivered(t0.Add(time.Duration(i)*herdr.Tick), true) || live.Answering(t0) {
			t.Fatal("a subscription herdr does not pace lagged")
		}
	}
}
