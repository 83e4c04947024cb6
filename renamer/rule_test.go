package renamer

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// A person renames a tab away from our label and, seconds or a minute
// later, back to it. On 0.7/0.8 the second echo of our label is not
// ours: the label our look saw before ours was not reported between the
// two (a replay's old echo of ours always is), so nothing goes back,
// replay over or not.
func TestAPersonsRenameBackToOurLabelIsNoEchoOfOurs(t *testing.T) {
	for _, tt := range []struct {
		name  string
		proto int
		live  bool
		after time.Duration
	}{
		{"0.8 live, 36 s after", 20, true, 36 * time.Second},
		{"0.8 live, 5 s after", 20, true, 5 * time.Second},
		{"0.7 live, 55 s after", 17, true, 55 * time.Second},
		{"0.8 replaying", 20, false, 36 * time.Second},
		{"0.9", 22, true, 36 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, tg := range []state.Target{tab, state.WorkspaceTarget("w1")} {
				g := newRig(t, tt.proto)
				g.named(tg, "seen")
				if tt.live {
					g.replayOver(tg)
				}
				g.name(tg, "seen", "alpha", false)
				g.feed()
				g.now = g.now.Add(tt.after / 2)
				g.h.set(tg, "older")
				g.feed()
				g.now = g.now.Add(tt.after / 2)
				g.h.set(tg, "alpha")
				g.feed()
				if !tt.live {
					g.replayOver(tg)
				}
				g.runSpawned()
				if got := g.h.label(tg); got != "alpha" {
					t.Fatalf("%s shows %q, want the person's %q", tg.Kind, got, "alpha")
				}
			}
		})
	}
}

// Our last label is ours only while the target shows it since our
// rename: a person renames it away and back, and a rename of ours that
// had not heard of it replaces their label. The echo shows it: right
// before it the label our look saw, and before that not the label our
// rename to it had replaced. The person's label goes back, heard live or
// replayed to the next daemon.
func TestOurLastLabelChosenAgainGoesBack(t *testing.T) {
	for _, tt := range []struct {
		name   string
		proto  int
		replay bool // the next daemon, which replays herdr's history
	}{
		{"0.8 live", 20, false},
		{"0.8 next daemon", 20, true},
		{"0.7 next daemon", 17, true},
		{"0.9 live", 22, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, tg := range []state.Target{tab, state.WorkspaceTarget("w1")} {
				g := newRig(t, tt.proto)
				g.named(tg, "seen")
				g.replayOver(tg)
				g.name(tg, "seen", "alpha", false)
				g.feed()
				g.now = g.now.Add(30 * time.Second)
				g.h.set(tg, "older")
				g.now = g.now.Add(35 * time.Second)
				g.h.set(tg, "alpha")
				if tt.replay {
					g.next()
				}
				// A pass that has not heard the person's renames.
				g.name(tg, "alpha", "beta", true)
				g.feed()
				g.replayOver(tg)
				g.runSpawned()
				if got := g.h.label(tg); got != "alpha" {
					t.Fatalf("%s shows %q, want the person's %q", tg.Kind, got, "alpha")
				}
			}
		})
	}
}

// Without a person between, our rename of our own last label keeps our
// new name, live and replayed, and so does a rename of ours over a label
// we set long ago whose own rename's history herdr no longer holds.
func TestOurLastLabelRenamedStaysOurs(t *testing.T) {
	for _, replay := range []bool{false, true} {
		g := newRig(t, 20)
		g.named(tab, "seen")
		g.replayOver(tab)
		g.name(tab, "seen", "alpha", false)
		g.feed()
		g.now = g.now.Add(65 * time.Second)
		if replay {
			g.next()
		}
		g.name(tab, "alpha", "beta", true)
		g.feed()
		g.replayOver(tab)
		g.runSpawned()
		if got := g.h.label(tab); got != "beta" {
			t.Fatalf("replay %v: tab shows %q, want ours", replay, got)
		}
	}
	g := newRig(t, 20)
	g.named(tab, "alpha")
	g.replayOver(tab)
	g.name(tab, "alpha", "beta", true)
	g.feed()
	g.runSpawned()
	if got := g.h.label(tab); got != "beta" {
		t.Fatalf("tab shows %q, want ours", got)
	}
}

// restore gives a tab its number back; a person renames it inside that
// rename to a label a stopped daemon asked for over a minute before, and
// whose flight it left in the memory. That rename can no longer land:
// the label is the person's, and goes back.
func TestAGiveBackCountsOnlyRenamesThatMayStillLand(t *testing.T) {
	for _, proto := range []int{20, 22} {
		g := newRig(t, proto)
		old := g.now
		g.mem.InMemory(func(tx *state.Tx) {
			tx.Pend(tab, state.Flight{Want: "alpha", Seen: "1", Sent: old})
			tx.Named(tab, "alpha")
			tx.Pend(tab, state.Flight{Want: "beta", Seen: "alpha", Sent: old.Add(5 * time.Second)})
			tx.Named(tab, "beta")
		})
		g.h.set(tab, "alpha")
		g.h.set(tab, "beta")
		if proto >= 22 {
			g.read = len(g.h.events)
		}
		g.now = old.Add(70 * time.Second)
		g.gen++
		g.r.Adopt()
		g.h.before = func(t state.Target, label string) { g.h.before = nil; g.h.set(t, "alpha") }
		if err := g.r.GiveBack(context.Background(), tab, "beta", "1"); err != nil {
			t.Fatal(err)
		}
		g.feed()
		g.replayOver(tab)
		g.runSpawned()
		if got := g.h.label(tab); got != "alpha" {
			t.Fatalf("protocol %d: tab shows %q, want the person's %q", proto, got, "alpha")
		}
	}
}

// next is the next daemon over the same memory and herdr: a renamer that
// adopts what the memory holds and, on 0.7/0.8, hears herdr's history
// from the start on a subscription of its own.
func (g *rig) next() {
	g.runSpawned()
	g.r.Close()
	g.gen++
	g.r = New(Options{Herdr: g.h, Memory: g.mem, Now: func() time.Time { return g.now }, Follow: true,
		Gen: func() uint64 { return g.gen }, Spawn: func(f func()) { g.spawned = append(g.spawned, f) }})
	g.r.Adopt()
	if g.h.proto < 22 {
		g.read = 0
	}
}

// A person who names a released tab ends its release: heard live, at
// once, so a pass that comes after does not take their return to the
// released label for the release. An old event replayed tells nothing.
func TestAReleaseEndsAtAPersonsRenameHeardLive(t *testing.T) {
	for _, tt := range []struct {
		proto int
		live  bool
		ends  bool
	}{{20, true, true}, {22, true, true}, {20, false, false}} {
		g := newRig(t, tt.proto)
		g.h.set(tab, "notes")
		g.read = len(g.h.events)
		g.mem.InMemory(func(tx *state.Tx) { tx.Release(tab, "notes") })
		if tt.live {
			g.replayOver(tab)
		}
		g.h.set(tab, "mine")
		g.h.set(tab, "notes")
		g.feed()
		if got := g.mem.Tab(tab.ID).Released; got == tt.ends {
			t.Errorf("protocol %d live %v: released %v after a person's rename, want %v", tt.proto, tt.live, got, !tt.ends)
		}
	}
}

// Heard live, a person's return to our last label after another is
// theirs at once: the memory no longer holds it for ours, for the passes
// and the daemons that come after. Our own echo, or a rename over the
// label ours replaced, leaves it ours.
func TestOurLastLabelChosenAgainIsDisownedWhenHeard(t *testing.T) {
	for _, proto := range []int{20, 22} {
		g := newRig(t, proto)
		g.named(tab, "seen")
		g.replayOver(tab)
		g.name(tab, "seen", "alpha", false)
		g.feed()
		if e := g.mem.Tab(tab.ID); e.Label != "alpha" || e.Over != "seen" {
			t.Fatalf("protocol %d: after our rename the memory holds %+v", proto, e)
		}
		g.h.set(tab, "seen")
		g.h.set(tab, "alpha") // back over what ours replaced: no one can tell
		g.feed()
		if e := g.mem.Tab(tab.ID); e.Label != "alpha" {
			t.Fatalf("protocol %d: disowned after a return over the label ours replaced: %+v", proto, e)
		}
		g.now = g.now.Add(2 * echoGrace) // a person's hands
		g.h.set(tab, "older")
		g.h.set(tab, "alpha")
		g.feed()
		if e := g.mem.Tab(tab.ID); e.Label != "" {
			t.Fatalf("protocol %d: the person's alpha is still held ours: %+v", proto, e)
		}
	}
}

// A pass records its renames together and sends them one by one: lock
// of a tab whose rename was recorded seconds before, and is not sent
// yet, waits for it as for any rename on its way; it lands, and the
// locked label goes back before lock returns.
func TestPutBackLockWaitsForARenameRecordedSecondsBefore(t *testing.T) {
	g := newRig(t, 20)
	g.named(tab, "notes")
	sent := time.Now()
	g.mem.InMemory(func(tx *state.Tx) {
		tx.Pend(tab, state.Flight{Want: "web", Seen: "notes", Sent: sent})
		tx.Lock(tab, "notes")
	})
	landed := false
	land := func() {
		if !landed {
			landed = true
			g.h.set(tab, "web") // herdr applies our rename, late
			g.mem.InMemory(func(tx *state.Tx) { tx.Answer(tab, "web", sent) })
		}
	}
	r := New(Options{Herdr: g.h, Memory: g.mem, Now: time.Now, Sleep: func(context.Context, time.Duration) bool { land(); return true }})
	if err := r.PutBackLock(context.Background(), tab, "notes", sent.Add(5*time.Second)); err != nil {
		t.Fatal(err)
	}
	land() // had lock not waited, it lands now
	if got := g.h.label(tab); got != "notes" {
		t.Fatalf("tab shows %q after lock returned, want the locked label", got)
	}
}

// A label given back (restore's number) lands after a person locked the
// target inside that rename: the locked label goes back, as over a name
// of ours, and GiveBack says the person locked it.
func TestALockInsideAGiveBackKeepsItsLabel(t *testing.T) {
	g := newRig(t, 20)
	g.named(tab, "alpha")
	g.h.before = func(t state.Target, label string) {
		g.h.before = nil
		g.mem.InMemory(func(tx *state.Tx) { tx.Lock(t, "alpha") })
	}
	err := g.r.GiveBack(context.Background(), tab, "alpha", "1")
	if !errors.Is(err, ErrRenamedSince) {
		t.Errorf("GiveBack over a lock taken meanwhile: %v, want ErrRenamedSince", err)
	}
	if got := g.h.label(tab); got != "alpha" {
		t.Fatalf("tab shows %q, want its locked label", got)
	}
}

// A person locks a tab while a rename of ours is on its way, and again,
// with the label they see then, while the first lock's label goes back:
// the second lock's label is the one the tab keeps.
func TestALockInsideALocksPutBackKeepsItsLabel(t *testing.T) {
	g := newRig(t, 20)
	g.named(tab, "a")
	g.h.before = func(t state.Target, label string) {
		switch label {
		case "b": // our rename: the tab is locked as it shows a
			g.mem.InMemory(func(tx *state.Tx) { tx.Lock(t, "a") })
		case "a": // its put-back: locked again as it shows b
			g.h.before = nil
			g.mem.InMemory(func(tx *state.Tx) { tx.Lock(t, "b") })
		}
	}
	x := g.name(tab, "a", "b", false)
	if got := g.h.label(tab); got != "b" || x.Out != LockedBack {
		t.Fatalf("tab shows %q (outcome %d), want the second lock's %q", got, x.Out, "b")
	}
}

// On 0.9, once --apply beside a running daemon: its rename, answered, is
// in the memory before its echo reaches the daemon, which subscribed
// before it was sent; a person's rename inside it goes back. One answered
// before the daemon subscribed landed unheard.
func TestARenameOfAnotherProcessSentSinceWeSubscribedIsFollowedOn09(t *testing.T) {
	for _, before := range []bool{false, true} {
		g := newRig(t, 22)
		sent := g.now.Add(time.Second)
		if before {
			sent = g.now.Add(-time.Second)
		}
		g.r.Take(herdr.FeedItem{Note: herdr.NoteSubscribed, Gen: g.gen})
		g.h.set(tab, "mine") // a person, inside the other process's rename
		g.h.set(tab, "alpha")
		g.mem.InMemory(func(tx *state.Tx) {
			tx.Pend(tab, state.Flight{Want: "alpha", Seen: "3", Sent: sent})
			tx.Answer(tab, "alpha", sent)
			tx.Named(tab, "alpha")
		})
		g.now = g.now.Add(2 * time.Second)
		g.feed()
		g.runSpawned()
		want := "mine"
		if before {
			want = "alpha"
		}
		if got := g.h.label(tab); got != want {
			t.Fatalf("sent before we subscribed %v: tab shows %q, want %q", before, got, want)
		}
	}
}
