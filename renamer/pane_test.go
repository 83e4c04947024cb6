package renamer

import (
	"context"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

var pane = state.PaneTarget("w1:p2")

// A pane's rename goes through the same protocol as a tab's, less what
// needs an echo: herdr tells of no pane rename, so the read right before
// the request always happens (a young look does not stand in for it), no
// flight is followed or left in the memory, and a label of ours reads as
// ours by its pending label while it may still land.
func TestPaneRenames(t *testing.T) {
	for _, tt := range []struct {
		name   string
		person string // a person's label set after the pass's look, before the re-read
		lock   bool   // a person locks the pane while our rename is on its way
		out    Outcome
		shows  string
		ours   string // the memory's last label of ours
	}{
		{name: "ours lands", out: Done, shows: "claude", ours: "claude"},
		{name: "a person's label since the look stays", person: "reviewer", out: NotSent, shows: "reviewer"},
		{name: "a lock on the way puts the label back", lock: true, out: LockedBack, shows: ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := newRig(t, 20)
			if tt.person != "" {
				g.h.set(pane, tt.person)
			}
			if tt.lock {
				g.h.before = func(state.Target, string) {
					g.h.before = nil
					g.mem.InMemory(func(tx *state.Tx) { tx.Lock(pane, "") })
				}
			}
			x := g.name(pane, "", "claude", true)
			if x.Out != tt.out {
				t.Errorf("outcome %v, want %v (%s)", x.Out, tt.out, x.Err)
			}
			if got := g.h.label(pane); got != tt.shows {
				t.Errorf("pane shows %q, want %q", got, tt.shows)
			}
			e := g.mem.Entry(pane)
			if e.Label != tt.ours {
				t.Errorf("memory's label %q, want %q", e.Label, tt.ours)
			}
			if len(e.Flights) != 0 || len(g.r.flights.by[pane]) != 0 {
				t.Errorf("flights left: memory %+v, followed %d", e.Flights, len(g.r.flights.by[pane]))
			}
			if tt.out == Done && !e.PendingLanded("claude", g.now.Add(time.Second)) && e.Label != "claude" {
				t.Errorf("our label is not ours while it may land: %+v", e)
			}
		})
	}
}

// restore gives a pane back by clearing its label: "" is herdr's own.
func TestGiveBackClearsAPane(t *testing.T) {
	g := newRig(t, 20)
	g.named(pane, "claude")
	if err := g.r.GiveBack(context.Background(), pane, "claude", ""); err != nil {
		t.Fatal(err)
	}
	if got := g.h.label(pane); got != "" {
		t.Errorf("pane shows %q, want no label", got)
	}
	g.h.set(pane, "reviewer")
	if err := g.r.GiveBack(context.Background(), pane, "claude", ""); err == nil {
		t.Error("a person's label since the look was cleared")
	}
	if got := g.h.label(pane); got != "reviewer" {
		t.Errorf("pane shows %q, want the person's", got)
	}
}

// lock --pane on a pane with no label: a rename of ours that landed as
// the lock was written goes, and the pane shows none again; a person's
// label there is theirs and stays.
func TestPutBackLockClearsAPane(t *testing.T) {
	for _, tt := range []struct {
		name, shows, want string
	}{
		{name: "ours landed", shows: "claude", want: ""},
		{name: "a person's", shows: "reviewer", want: "reviewer"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := newRig(t, 20)
			g.h.set(pane, tt.shows)
			g.mem.InMemory(func(tx *state.Tx) {
				tx.Pend(pane, state.Flight{Want: "claude", Seen: "", Sent: g.now})
				tx.Answer(pane, "claude", g.now)
				tx.Settle(pane, "claude", g.now)
				tx.Lock(pane, "")
			})
			if err := g.r.PutBackLock(context.Background(), pane, "", g.now); err != nil {
				t.Fatal(err)
			}
			if got := g.h.label(pane); got != tt.want {
				t.Errorf("pane shows %q, want %q", got, tt.want)
			}
		})
	}
}
