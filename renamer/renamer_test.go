package renamer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

var tab = state.TabTarget("w1:t1")

// named sets up a target we named: herdr shows label, the memory says ours.
func (g *rig) named(t state.Target, label string) {
	g.h.set(t, label)
	g.mem.InMemory(func(tx *state.Tx) { tx.Named(t, label) })
	g.read = len(g.h.events)
}

// Only the label reported right before our echo tells what our rename
// replaced. A label neither ours nor what our look saw is a person's, set
// inside the window, even one the tab had before (they renamed it back):
// herdr keeps the order, replayed or live. While the entry may still
// replay, the fate waits for the replay's end and the last echo, and a
// person's rename after ours stands.
func TestPutBackActsOnlyOnTheLabelOursReplaced(t *testing.T) {
	for _, tt := range []struct {
		name string
		live bool
		seq  []string
		back string // the label put back, "" for none
		// shows: what herdr shows at the replay's end, when not ours.
		shows string
	}{
		{"live, renamed back to an old label", true, []string{"old person", "b"}, "old person", ""},
		{"live, before our look", true, []string{"new person", "a", "b"}, "", ""},
		{"live, a new label right before the echo", true, []string{"a", "mine now", "b"}, "mine now", ""},
		{"live, ours is followed by a person's", true, []string{"mine now", "b", "later"}, "", ""},
		{"replay, renamed back to an old label", false, []string{"old person", "b"}, "old person", ""},
		{"replay, an old echo then ours", false, []string{"new person", "b", "a", "b"}, "", ""},
		{"replay, an old echo, then a window hit", false, []string{"old person", "b", "a", "mine now", "b"}, "mine now", ""},
		{"replay, a person's label after ours", false, []string{"mine now", "b", "later"}, "", "later"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := newRig(t, 20)
			g.named(tab, "a")
			if tt.live {
				g.replayOver(tab)
			}
			g.name(tab, "a", "b", false)
			before := len(g.h.events)
			g.echo(tab, tt.seq...)
			if tt.shows != "" {
				g.h.set(tab, tt.shows)
				before = len(g.h.events)
			}
			if !tt.live {
				g.replayOver(tab)
			}
			g.runSpawned()
			got := ""
			if evs := g.h.events[before:]; len(evs) > 0 {
				got = evs[len(evs)-1].Label
			}
			if got != tt.back {
				t.Fatalf("put back %q, want %q (renames %+v)", got, tt.back, g.h.events[before:])
			}
		})
	}
}

// Two renames of ours to one target go out during a 0.7/0.8 replay; a
// person's rename landed inside the first. The second one's echo comes
// after the first one's: the first's put-back still happens when the
// replay ends, for a tab and for a workspace.
func TestSecondRenameDuringAReplayKeepsTheFirstsPutBack(t *testing.T) {
	for _, tg := range []state.Target{tab, state.WorkspaceTarget("w1")} {
		t.Run(tg.Kind.String(), func(t *testing.T) {
			g := newRig(t, 20)
			g.named(tg, "a")
			g.h.set(tg, "mine now")
			// Young looks: the pass's snapshot stood in for the re-reads.
			g.name(tg, "a", "b", true)
			g.name(tg, "b", "c", true)
			g.echo(tg, "a", "mine now", "b", "c")
			g.replayOver(tg)
			g.runSpawned()
			if got := g.h.label(tg); got != "mine now" {
				t.Fatalf("%s shows %q, want the person's %q", tg.Kind, got, "mine now")
			}
		})
	}
}

// A 0.7/0.8 entry can still replay after its replay looked over (herdr
// stalled, or an entry busy with renames every tick). An old event with
// our label then looks like our echo; the true echo, after the person's
// rename, still puts their name back.
func TestReplayTakenForOverStillPutsBackAPersonsRename(t *testing.T) {
	g := newRig(t, 20)
	g.named(tab, "a")
	g.replayOver(tab)
	g.h.set(tab, "mine now")
	g.name(tab, "a", "b", true)
	g.echo(tab, "b", "a", "mine now", "b")
	g.runSpawned()
	if got := g.h.label(tab); got != "mine now" {
		t.Fatalf("tab shows %q, want the person's", got)
	}
}

// After a release, a rename of ours replaces a person's label with the
// label an older rename of ours set. The newer one's echo looks like an
// echo of the older one, with the person's label right before it: the
// older one must not put that label back, as the newer one's look judged
// it ours to replace.
func TestOlderRenameDoesNotTakeALaterOnesEchoForItsOwn(t *testing.T) {
	g := newRig(t, 20)
	g.named(tab, "1")
	g.replayOver(tab)
	g.name(tab, "1", "nixos", false)
	g.echo(tab, "nixos", "notes")
	g.h.set(tab, "notes")
	g.mem.InMemory(func(tx *state.Tx) { tx.Release(tab, "notes") })
	g.now = g.now.Add(time.Second)
	g.name(tab, "notes", "nixos", false)
	g.echo(tab, "nixos")
	g.runSpawned()
	if got := g.h.label(tab); got != "nixos" {
		t.Fatalf("tab shows %q, want ours", got)
	}
}

// Two renames of ours to one tab are on their way when the first one's
// echo shows it replaced a person's name: the person's name is what the
// tab shows in the end, whatever the second one saw.
func TestSeveralRenamesInFlightKeepAPersonsRename(t *testing.T) {
	g := newRig(t, 20)
	g.named(tab, "a")
	g.replayOver(tab)
	g.h.set(tab, "mine now")
	g.name(tab, "a", "b", true)
	g.name(tab, "b", "c", true)
	g.echo(tab, "mine now", "b", "c")
	g.runSpawned()
	if got := g.h.label(tab); got != "mine now" {
		t.Fatalf("tab shows %q, want the person's", got)
	}
}

// A rename is watched on the renamer's clock: on a 0.7/0.8 stream for
// herdr.ReplayWindow and inflightTTL, replay over or not (an entry can
// lag that far behind after it looked caught up); its record in the
// memory goes with it.
func TestRenameWatchFollowsTheClock(t *testing.T) {
	for _, tt := range []struct {
		live  bool
		after time.Duration
		kept  bool
	}{
		{true, inflightTTL + time.Millisecond, true},
		{true, herdr.ReplayWindow + inflightTTL, true}, // at the bound exactly, still waiting
		{true, herdr.ReplayWindow + inflightTTL + time.Millisecond, false},
		{false, inflightTTL + time.Millisecond, true},
		{false, herdr.ReplayWindow + inflightTTL + time.Millisecond, false},
	} {
		g := newRig(t, 20)
		g.named(tab, "1")
		if tt.live {
			g.replayOver(tab)
		}
		start := g.now
		g.name(tab, "1", "a", false)
		g.now = start.Add(tt.after)
		g.r.Expire()
		if ok := len(g.r.flights.by[tab]) > 0; ok != tt.kept {
			t.Fatalf("live %v, %v after the rename: watched = %v, want %v", tt.live, tt.after, ok, tt.kept)
		}
		if ok := len(g.mem.Tab(tab.ID).Flights) > 0; ok != tt.kept {
			t.Fatalf("live %v, %v after the rename: recorded = %v, want %v", tt.live, tt.after, ok, tt.kept)
		}
	}
}

// A put-back asks the memory what is ours when it looks at the target,
// not when it starts: a pass that renamed the target meanwhile set a
// label of ours there, which the person's name replaces.
func TestPutBackKnowsWhatAPassDidMeanwhile(t *testing.T) {
	g := newRig(t, 22)
	g.named(tab, "a")
	g.nameWithPersonInside(tab, "a", "b", "mine")
	g.name(tab, "b", "c", false) // a pass renames the tab before the echo
	g.feed()                     // mine, b, c: the put-back starts, and waits
	if len(g.spawned) != 1 {
		t.Fatalf("%d put-backs started, want 1", len(g.spawned))
	}
	g.runSpawned()
	if got := g.h.label(tab); got != "mine" {
		t.Fatalf("tab shows %q, want the person's %q", got, "mine")
	}
}

// A rename of ours is held back while a put-back is on its way to its
// target: sent then, it could land after the person's label and take it
// again. The owner hears when the put-back ends, to decide again.
func TestARenameWaitsForAPutBackOnItsWay(t *testing.T) {
	for _, proto := range []int{20, 22} {
		t.Run(fmt.Sprint("protocol ", proto), func(t *testing.T) {
			g := newRig(t, proto)
			g.named(tab, "a")
			g.replayOver(tab)
			g.nameWithPersonInside(tab, "a", "b", "mine")
			g.feed() // mine, b: the put-back starts, and waits
			if len(g.spawned) != 1 {
				t.Fatalf("%d put-backs started, want 1", len(g.spawned))
			}
			renames := len(g.h.events)
			x := g.name(tab, "b", "c", true) // a pass, from a look before the put-back
			other := g.name(state.TabTarget("w1:t2"), "2", "d", true)
			if x.Out != Held || len(g.h.events) != renames+1 || other.Out != Done {
				t.Fatalf("outcomes %v and %v, renames %+v: want the put-back's target held, another renamed", x.Out, other.Out, g.h.events[renames:])
			}
			f := g.spawned[0]
			g.spawned = nil
			f()
			if _, again := g.r.PutBackDone(<-g.r.PutBacks()); !again {
				t.Fatal("the put-back ended without asking for the pass it held back")
			}
			if got := g.h.label(tab); got != "mine" {
				t.Fatalf("tab shows %q, want the person's %q", got, "mine")
			}
			if x := g.name(tab, "mine", "mine2", true); x.Out == Held {
				t.Fatal("a rename is held back with no put-back on its way")
			}
		})
	}
}

// Every rename of ours has a flight and is followed to its echo: a label
// given back (restore), and a lock's put-back. A person's rename landing
// inside restore's goes back; inside a lock's, the locked label stays,
// which no put-back changes.
func TestGiveBacksAreFollowed(t *testing.T) {
	for _, tt := range []struct {
		name string
		send func(g *rig) error
		want string
	}{
		{"restore's number", func(g *rig) error { return g.r.GiveBack(context.Background(), tab, "web", "1") }, "mine"},
		{"a lock's put-back", func(g *rig) error {
			g.mem.InMemory(func(tx *state.Tx) {
				tx.Pend(tab, state.Flight{Want: "web", Seen: "notes", Sent: g.now})
				tx.Answer(tab, "web", g.now)
				tx.Lock(tab, "notes")
			})
			return g.r.PutBackLock(context.Background(), tab, "notes", g.now)
		}, "notes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := newRig(t, 22)
			g.named(tab, "web")
			g.h.before = func(t state.Target, label string) { g.h.before = nil; g.h.set(t, "mine") }
			if err := tt.send(g); err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(g.r.flights.by[tab], func(f *flight) bool { return f.given }) {
				t.Fatal("the label given back is not followed")
			}
			g.feed()
			g.runSpawned()
			if got := g.h.label(tab); got != tt.want {
				t.Fatalf("tab shows %q, want %q", got, tt.want)
			}
		})
	}
}

// lock wins over a rename of ours on its way when the lock was written:
// PutBackLock waits until herdr answered it, so that once lock returns
// none can land any more, and puts the locked label back.
func TestPutBackLockWaitsForRenamesOnTheirWay(t *testing.T) {
	g := newRig(t, 20)
	g.named(tab, "notes")
	sent := time.Now()
	g.mem.InMemory(func(tx *state.Tx) {
		tx.Pend(tab, state.Flight{Want: "web", Seen: "notes", Sent: sent})
		tx.Lock(tab, "notes")
	})
	landed := make(chan struct{})
	go func() {
		defer close(landed)
		time.Sleep(100 * time.Millisecond)
		g.h.set(tab, "web") // herdr applies our rename, late
		g.mem.InMemory(func(tx *state.Tx) { tx.Answer(tab, "web", sent) })
	}()
	if err := g.r.PutBackLock(context.Background(), tab, "notes", sent.Add(10*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-landed:
	default:
		t.Fatal("PutBackLock returned before the rename on its way was answered")
	}
	<-landed
	var labels []string
	for _, ev := range g.h.events {
		labels = append(labels, ev.Label)
	}
	if got := g.h.label(tab); got != "notes" || !slices.Equal(labels[len(labels)-2:], []string{"web", "notes"}) {
		t.Fatalf("tab shows %q after lock returned (renames %q), want the locked label put back", got, labels)
	}
}

// A killed daemon's put-back is adopted by the next one, whose 0.7/0.8
// subscription replays herdr's history from the start: the person's own
// rename to the label it gives back, before our rename that replaced it,
// is no echo of the put-back (which went out only after our rename's
// echo), so the label before it is nobody's to put back.
func TestAnAdoptedPutBackIsNotEchoedByWhatCameBefore(t *testing.T) {
	ws := state.WorkspaceTarget("w1")
	g := newRig(t, 20)
	g.h.set(ws, "alpha")
	g.h.set(ws, "mine") // a person
	g.h.set(ws, "ws-alpha")
	g.mem.InMemory(func(tx *state.Tx) {
		tx.Pend(ws, state.Flight{Want: "ws-alpha", Seen: "alpha", Sent: g.now})
		tx.Answer(ws, "ws-alpha", g.now)
		tx.Follow(ws, state.Flight{Want: "mine", Seen: "ws-alpha", After: "ws-alpha", Sent: g.now.Add(time.Millisecond)})
	})
	g.r.Adopt()
	g.feed()
	g.replayOver(ws)
	g.runSpawned()
	if got := g.h.label(ws); got != "mine" {
		t.Fatalf("workspace shows %q, want the person's %q", got, "mine")
	}
}

// On a live stream, a person who renamed the tab to our very label
// inside our rename's window and then to another sends two echoes of our
// label: the last is ours, and the person's last label goes back.
func TestAPersonsRenameToOurLabelIsNotOurEcho(t *testing.T) {
	g := newRig(t, 22)
	g.named(tab, "a")
	g.h.before = func(t state.Target, label string) {
		g.h.before = nil
		g.h.set(t, "b")
		g.h.set(t, "mine")
	}
	g.name(tab, "a", "b", false)
	g.feed()
	g.runSpawned()
	if got := g.h.label(tab); got != "mine" {
		t.Fatalf("tab shows %q, want the person's %q", got, "mine")
	}
	g.now = g.now.Add(2 * echoGrace)
	g.r.Expire()
	if n := len(g.r.flights.by[tab]); n != 1 {
		t.Fatalf("%d flights watched after the grace, want only the put-back's", n)
	}
}

// A put-back due while the memory is damaged waits: a lock the file may
// hold is unknown, and a locked label never changes. Once the file reads
// again (here: removed, the lock with it), the person's name goes back.
func TestAPutBackWaitsForADamagedMemory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	g := newRig(t, 22)
	g.mem, _ = state.Load(path, "")
	g.r = New(Options{Herdr: g.h, Memory: g.mem, Now: func() time.Time { return g.now }, Follow: true,
		Gen: func() uint64 { return g.gen }, Spawn: func(f func()) { g.spawned = append(g.spawned, f) }})
	g.h.set(tab, "a")
	if err := g.mem.Update(func(tx *state.Tx) { tx.Named(tab, "a") }); err != nil {
		t.Fatal(err)
	}
	g.read = len(g.h.events)
	g.h.before = func(t state.Target, label string) { g.h.before = nil; g.h.set(t, "mine") }
	g.name(tab, "a", "b", false)
	g.feed()
	lock, _ := state.Load(path, "")
	if err := lock.Edit(func(tx *state.Tx) { tx.Lock(tab, "b") }); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("{"), 0o600); err != nil {
		t.Fatal(err)
	}
	g.runSpawned()
	if got := g.h.label(tab); got != "b" {
		t.Fatalf("with the memory damaged the tab shows %q, want the locked %q", got, "b")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := g.mem.Refresh(); err != nil {
		t.Fatal(err)
	}
	g.r.RetryPutBacks()
	g.runSpawned()
	if got := g.h.label(tab); got != "mine" {
		t.Fatalf("once the memory reads, the tab shows %q, want the person's %q", got, "mine")
	}
}

// On 0.9 a killed daemon's rename lands after the next daemon subscribed,
// over a person's rename made before: no event told of theirs, the
// session did, and it goes back.
func TestAnAdoptedRenameKnowsWhatTheSessionShowed(t *testing.T) {
	g := newRig(t, 22)
	g.mem.InMemory(func(tx *state.Tx) { tx.Pend(tab, state.Flight{Want: "b", Seen: "2", Sent: g.now}) })
	g.h.set(tab, "mine") // before we subscribed: never fed
	g.read = len(g.h.events)
	g.r.Adopt()
	g.r.Saw(map[state.Target]string{tab: "mine"})
	g.h.set(tab, "b") // the killed daemon's rename lands
	g.feed()
	g.runSpawned()
	if got := g.h.label(tab); got != "mine" {
		t.Fatalf("tab shows %q, want the person's %q", got, "mine")
	}
}

// On 0.7/0.8 a daemon that heard a rename's echo live records that it
// decided it. A successor replaying herdr's history must not take a
// person's later rename to the same label for that rename's echo, and put
// back what they had set before it.
func TestADecidedRenameIsNotDecidedAgain(t *testing.T) {
	g := newRig(t, 20)
	g.named(tab, "1")
	g.read = 0
	g.replayOver(tab)
	g.name(tab, "1", "alpha", false)
	g.feed()
	g.h.set(tab, "notes")
	g.h.set(tab, "alpha") // a person, later
	next := New(Options{Herdr: g.h, Memory: g.mem, Now: func() time.Time { return g.now }, Follow: true,
		Gen: func() uint64 { return 2 }, Spawn: func(f func()) { g.spawned = append(g.spawned, f) }})
	next.Adopt()
	for _, ev := range g.h.events {
		next.Echo(ev, 2)
	}
	next.ReplayOver(2, herdr.TabRenamed)
	for len(g.spawned) > 0 {
		f := g.spawned[0]
		g.spawned = g.spawned[1:]
		f()
		next.PutBackDone(<-next.PutBacks())
	}
	if got := g.h.label(tab); got != "alpha" {
		t.Fatalf("tab shows %q, want the person's %q", got, "alpha")
	}
}

// A person renames the tab while our put-back of their earlier label is
// on its way, and its event comes before the put-back's reply: the
// put-back, already recorded, is ours, not one to adopt from the memory,
// and its echo puts the newer name back.
func TestAPersonsRenameInsideOurPutBackGoesBack(t *testing.T) {
	for _, proto := range []int{20, 22} {
		t.Run(fmt.Sprint(proto), func(t *testing.T) {
			g := newRig(t, proto)
			g.named(tab, "a")
			g.replayOver(tab)
			g.h.before = func(t state.Target, label string) {
				if label == "b" {
					g.h.set(t, "first")
				}
				if label == "first" {
					g.h.before = nil
					g.h.set(t, "second")
					g.feed()
				}
			}
			g.name(tab, "a", "b", false)
			g.feed()
			g.runSpawned()
			g.feed()
			g.runSpawned()
			if got := g.h.label(tab); got != "second" {
				t.Fatalf("tab shows %q, want the person's %q", got, "second")
			}
		})
	}
}

// Three renames of ours during a replay: to alpha, over it to beta, and
// back to alpha; a person renamed the tab inside the first. The last echo
// of alpha is the third's: the first's own came before beta's, and the
// person's name goes back.
func TestALaterRenameToTheSameLabelIsNotTheFirstsEcho(t *testing.T) {
	g := newRig(t, 20)
	g.named(tab, "1")
	g.h.before = func(t state.Target, label string) { g.h.before = nil; g.h.set(t, "mine") }
	g.name(tab, "1", "alpha", true)
	g.name(tab, "alpha", "beta", true)
	g.name(tab, "beta", "alpha", true)
	g.feed()
	g.replayOver(tab)
	g.runSpawned()
	if got := g.h.label(tab); got != "mine" {
		t.Fatalf("tab shows %q, want the person's %q", got, "mine")
	}
}

// lock's put-back records the label it replaces, which tells an echo of
// ours before it from one after; a tab that shows the locked label
// already is not renamed, nor its record written.
func TestPutBackLockRecordsWhatItReplaces(t *testing.T) {
	g := newRig(t, 22)
	g.named(tab, "notes")
	g.h.set(tab, "web") // a rename of ours on its way as the tab was locked
	g.mem.InMemory(func(tx *state.Tx) {
		tx.Pend(tab, state.Flight{Want: "web", Seen: "notes", Sent: g.now})
		tx.Answer(tab, "web", g.now)
		tx.Lock(tab, "notes")
		tx.Settle(tab, "web", g.now)
	})
	if err := g.r.PutBackLock(context.Background(), tab, "notes", g.now); err != nil {
		t.Fatal(err)
	}
	fs := g.mem.Entry(tab).Flights
	if len(fs) != 1 || fs[0].Want != "notes" || fs[0].Seen != "web" {
		t.Fatalf("put-back recorded as %+v, want notes over web", fs)
	}
	before := len(g.h.events)
	if err := g.r.PutBackLock(context.Background(), tab, "notes", g.now); err != nil {
		t.Fatal(err)
	}
	if len(g.h.events) != before || len(g.mem.Entry(tab).Flights) != 1 {
		t.Fatalf("a tab showing its locked label renamed or recorded again: %+v", g.mem.Entry(tab).Flights)
	}
}

// Two renames of ours replace a person's labels in turn during a replay
// (a killed daemon's, then the next one's): only the person's newer
// label goes back.
func TestOnlyThePersonsNewerLabelGoesBack(t *testing.T) {
	ws := state.WorkspaceTarget("w1")
	g := newRig(t, 20)
	g.named(ws, "alpha")
	g.h.before = func(t state.Target, label string) {
		g.h.set(t, map[string]string{"ws-alpha": "mine", "ws-beta": "notes"}[label])
	}
	g.name(ws, "alpha", "ws-alpha", true)
	g.name(ws, "ws-alpha", "ws-beta", true)
	g.h.before = nil
	g.feed()
	g.replayOver(ws)
	g.runSpawned()
	g.feed()
	g.runSpawned()
	if got := g.h.label(ws); got != "notes" {
		t.Fatalf("workspace shows %q, want the person's newer %q", got, "notes")
	}
}

// A killed daemon's rename of the same label lands after our put-back
// of a person's name: that name goes back again.
func TestAPutBackIsDoneAgainWhenOursLandsAgain(t *testing.T) {
	g := newRig(t, 22)
	g.named(tab, "2")
	g.h.before = func(t state.Target, label string) { g.h.before = nil; g.h.set(t, "alpha") }
	g.name(tab, "2", "beta", false)
	g.feed()
	g.runSpawned()
	g.feed()
	g.h.set(tab, "beta") // the late one lands
	g.feed()
	g.runSpawned()
	if got := g.h.label(tab); got != "alpha" {
		t.Fatalf("tab shows %q, want the person's %q", got, "alpha")
	}
}

// A killed daemon's rename herdr never answered may land yet: an echo of
// its label (the next daemon's rename to it) does not decide it for
// whoever comes after.
func TestAnUnansweredRenameIsNeverRecordedDecided(t *testing.T) {
	ws := state.WorkspaceTarget("w1")
	g := newRig(t, 20)
	g.named(ws, "alpha")
	g.mem.InMemory(func(tx *state.Tx) {
		tx.Pend(ws, state.Flight{Want: "ws-alpha", Seen: "alpha", Sent: g.now.Add(-time.Second)})
	})
	g.r.Adopt()
	g.replayOver(ws)
	g.name(ws, "alpha", "ws-alpha", false)
	g.feed()
	for _, f := range g.mem.Entry(ws).Flights {
		if f.Decided && !f.Answered {
			t.Fatalf("an unanswered rename recorded as decided: %+v", f)
		}
	}
}

// On 0.7/0.8 our put-back of a person's name is heard live; the person
// renames the tab again, and seconds later back to that name: their
// rename is not our put-back's echo, and nothing goes back.
func TestAPersonRenamingBackToAPutBackLabelKeepsIt(t *testing.T) {
	g := newRig(t, 20)
	g.named(tab, "a")
	g.replayOver(tab)
	g.h.before = func(t state.Target, label string) {
		if label == "b" {
			g.h.before = nil
			g.h.set(t, "notes")
		}
	}
	g.name(tab, "a", "b", false)
	g.feed()
	g.runSpawned()
	g.h.set(tab, "mine")
	g.feed()
	g.now = g.now.Add(30 * time.Second)
	g.h.set(tab, "notes")
	g.feed()
	g.runSpawned()
	if got := g.h.label(tab); got != "notes" {
		t.Fatalf("tab shows %q, want the person's %q", got, "notes")
	}
}

// A killed daemon's put-back of a person's name, itself put back over by
// another of ours; the person later renames the tab to the first one's
// label. A successor replaying herdr's history takes that for no echo of
// ours: the second put-back closed the first.
func TestAPutBackClosedByTheNextIsNotEchoedAgain(t *testing.T) {
	ws := state.WorkspaceTarget("w1")
	g := newRig(t, 20)
	g.named(ws, "alpha")
	g.h.set(ws, "notes")
	g.h.set(ws, "ws-alpha")
	g.h.set(ws, "mine")
	g.h.set(ws, "notes") // our put-back
	g.h.set(ws, "mine")  // our put-back of what came inside it
	g.h.set(ws, "notes") // a person, later
	at := g.now
	g.mem.InMemory(func(tx *state.Tx) {
		tx.Pend(ws, state.Flight{Want: "ws-alpha", Seen: "alpha", Sent: at})
		tx.Answer(ws, "ws-alpha", at)
		tx.Follow(ws, state.Flight{Want: "notes", Seen: "ws-alpha", After: "ws-alpha", Sent: at.Add(time.Millisecond)})
		tx.Follow(ws, state.Flight{Want: "mine", Seen: "notes", After: "notes", Sent: at.Add(2 * time.Millisecond)})
	})
	g.read = 0
	g.r.Adopt()
	g.feed()
	g.replayOver(ws)
	g.runSpawned()
	if got := g.h.label(ws); got != "notes" {
		t.Fatalf("workspace shows %q, want the person's %q", got, "notes")
	}
}

// On 0.9 another process's rename that herdr answered landed before we
// subscribed: no echo of it comes, and a person's later rename to its
// label is not taken for one.
func TestAnAnsweredRenameIsNotAdoptedOn09(t *testing.T) {
	g := newRig(t, 22)
	g.mem.InMemory(func(tx *state.Tx) {
		tx.Follow(tab, state.Flight{Want: "notes", Seen: "web", After: "web", Sent: g.now})
		tx.Answer(tab, "notes", g.now)
	})
	g.h.set(tab, "mine")
	g.read = len(g.h.events)
	g.r.Adopt()
	g.r.Saw(map[state.Target]string{tab: "mine"})
	g.h.set(tab, "notes") // a person
	g.feed()
	g.runSpawned()
	if got := g.h.label(tab); got != "notes" {
		t.Fatalf("tab shows %q, want the person's %q", got, "notes")
	}
}

// The echoes of two renames of ours to one label come seconds after they
// were sent (a busy daemon): the grace after an echo counts from when it
// came, and a person's rename inside the second still goes back.
func TestTheGraceCountsFromTheEcho(t *testing.T) {
	ws := state.WorkspaceTarget("w1")
	g := newRig(t, 22)
	g.named(ws, "alpha")
	g.name(ws, "alpha", "ws-alpha", false)
	g.h.set(ws, "alpha")
	g.now = g.now.Add(time.Millisecond)
	g.h.before = func(t state.Target, label string) { g.h.before = nil; g.h.set(t, "mine") }
	g.name(ws, "alpha", "ws-alpha", false)
	g.now = g.now.Add(2 * echoGrace)
	g.feed()
	g.runSpawned()
	if got := g.h.label(ws); got != "mine" {
		t.Fatalf("workspace shows %q, want the person's %q", got, "mine")
	}
}

// While our put-back of a person's name is on its way, an echo seen
// again does not record the rename as decided: if we are killed before
// the put-back lands, whoever follows must still put the name back.
func TestADecisionIsRecordedOnlyOnceItsPutBackEnded(t *testing.T) {
	g := newRig(t, 20)
	g.named(tab, "a")
	g.replayOver(tab)
	g.h.before = func(t state.Target, label string) { g.h.before = nil; g.h.set(t, "mine") }
	g.name(tab, "a", "b", false)
	g.feed()
	g.echo(tab, "b") // seen again, the put-back not run yet
	for _, f := range g.mem.Entry(tab).Flights {
		if f.Want == "b" && f.Decided {
			t.Fatalf("decided while its put-back is on its way: %+v", f)
		}
	}
	g.runSpawned()
	if got := g.h.label(tab); got != "mine" {
		t.Fatalf("tab shows %q, want the person's %q", got, "mine")
	}
}

// A put-back adopted on 0.7/0.8 follows the echo of ours that replaced
// its label: an older echo of the same label of ours in herdr's history,
// not preceded by it, is not its anchor.
func TestAPutBacksAnchorIsItsLabelThenOurs(t *testing.T) {
	g := newRig(t, 20)
	g.named(tab, "2")
	for _, l := range []string{"beta", "2", "alpha", "mine", "beta"} {
		g.h.set(tab, l)
	}
	at := g.now
	g.mem.InMemory(func(tx *state.Tx) {
		tx.Pend(tab, state.Flight{Want: "beta", Seen: "alpha", Sent: at})
		tx.Answer(tab, "beta", at)
		tx.Follow(tab, state.Flight{Want: "mine", Seen: "beta", After: "beta", Sent: at.Add(time.Millisecond)})
	})
	g.read = 0
	g.r.Adopt()
	g.feed()
	g.replayOver(tab)
	g.runSpawned()
	g.feed()
	g.runSpawned()
	if got := g.h.label(tab); got != "mine" {
		t.Fatalf("tab shows %q, want the person's %q", got, "mine")
	}
}

// A tab released while lock was still looking at it is no longer
// lock's to keep: its put-back is not sent.
func TestPutBackLockRespectsARelease(t *testing.T) {
	g := newRig(t, 22)
	g.named(tab, "notes")
	g.h.set(tab, "web")
	g.mem.InMemory(func(tx *state.Tx) {
		tx.Pend(tab, state.Flight{Want: "web", Seen: "notes", Sent: g.now})
		tx.Answer(tab, "web", g.now)
		tx.Lock(tab, "notes")
		tx.Release(tab, "web")
	})
	if err := g.r.PutBackLock(context.Background(), tab, "notes", g.now); err != nil {
		t.Fatal(err)
	}
	if got := g.h.label(tab); got != "web" {
		t.Fatalf("a released tab shows %q, want %q left alone", got, "web")
	}
}

// A killed process's rename recorded over PendingTTL ago and never
// answered can no longer land: on 0.9, whose stream shows only what lands
// after it started, a person's later rename to its label is theirs, not
// its echo, and what the tab showed before is not put back.
func TestAnOldUnansweredRenameIsNotAdoptedOn09(t *testing.T) {
	g := newRig(t, 22)
	g.mem.InMemory(func(tx *state.Tx) {
		tx.Pend(tab, state.Flight{Want: "beta", Seen: "2", Sent: g.now})
	})
	g.h.set(tab, "mine") // a person, inside the killed rename's window
	g.read = len(g.h.events)
	g.now = g.now.Add(state.PendingTTL + time.Second)
	g.r.Adopt()
	g.r.Saw(map[state.Target]string{tab: "mine"})
	g.h.set(tab, "beta") // the person again, after the label expired
	g.feed()
	g.runSpawned()
	if got := g.h.label(tab); got != "beta" {
		t.Fatalf("tab shows %q, want the person's %q", got, "beta")
	}
}

// The same when the killed process's rename was adopted while it could
// still land: past PendingTTL a person's rename to its label is theirs.
func TestAnAdoptedRenameExpiresOn09(t *testing.T) {
	g := newRig(t, 22)
	g.mem.InMemory(func(tx *state.Tx) {
		tx.Pend(tab, state.Flight{Want: "beta", Seen: "2", Sent: g.now})
	})
	g.h.set(tab, "mine") // a person, inside the killed rename's window
	g.read = len(g.h.events)
	g.now = g.now.Add(20 * time.Second)
	g.r.Adopt()
	g.r.Saw(map[state.Target]string{tab: "mine"})
	g.now = g.now.Add(state.PendingTTL - 20*time.Second + time.Millisecond)
	g.h.set(tab, "beta") // the person again, after the label expired
	g.feed()
	g.runSpawned()
	if got := g.h.label(tab); got != "beta" {
		t.Fatalf("tab shows %q, want the person's %q", got, "beta")
	}
}

// A person renames the tab inside two renames of ours in a row, before
// the daemon heard either echo: their later label is the one that goes
// back; the first put-back, superseded by it, changes nothing.
func TestTheLaterOfTwoPersonsRenamesInsideOursGoesBack(t *testing.T) {
	for _, proto := range []int{20, 22} {
		g := newRig(t, proto)
		g.h.before = func(t state.Target, label string) {
			if label == "beta" {
				g.h.set(t, "mine")
			}
		}
		g.name(tab, "2", "beta", false)
		g.h.before = func(t state.Target, label string) {
			if label == "alpha" {
				g.h.set(t, "notes")
			}
		}
		g.name(tab, "beta", "alpha", true) // a pass renames it meanwhile
		g.h.before = nil
		if proto < 22 {
			g.feed() // mine, beta, notes, alpha
			g.replayOver(tab)
		} else {
			g.feedN(2) // mine, beta: the first put-back starts and waits
			g.now = g.now.Add(2 * echoGrace)
			g.feed() // notes, alpha, past the first echo's grace
		}
		g.runSpawned()
		g.feed()
		g.runSpawned()
		if got := g.h.label(tab); got != "notes" {
			t.Fatalf("protocol %d: tab shows %q, want the person's later %q", proto, got, "notes")
		}
	}
}

// A rename of ours is followed for as long as its echo may come, not for
// as long as no pass runs: a person's rename to its label long after
// (with --poll 0, or between rest polls) is theirs, not its echo.
func TestAFlightEndsWithoutAPass(t *testing.T) {
	for _, proto := range []int{20, 22} {
		g := newRig(t, proto)
		g.name(tab, "1", "alpha", false)
		g.name(tab, "alpha", "beta", false)
		g.h.set(tab, "mine") // a person, after ours
		g.feed()
		g.replayOver(tab)
		g.runSpawned()
		g.now = g.now.Add(g.r.flightTTL() + time.Second)
		g.h.set(tab, "alpha") // the person again, to a label we once set
		g.feed()
		g.runSpawned()
		if got := g.h.label(tab); got != "alpha" {
			t.Fatalf("protocol %d: tab shows %q, want the person's %q", proto, got, "alpha")
		}
	}
}

// A put-back whose look at the target fails (herdr slow past its bound,
// a relay holding the request) is not given up: it goes again when the
// owner retries, and the person's name comes back.
func TestAPutBackWhoseLookFailedGoesAgain(t *testing.T) {
	g := newRig(t, 22)
	g.named(tab, "a")
	g.nameWithPersonInside(tab, "a", "b", "mine")
	g.h.lookErrs = 1
	g.feed()
	g.runSpawned()
	if got := g.h.label(tab); got != "b" {
		t.Fatalf("tab shows %q after a failed look, want our %q still", got, "b")
	}
	g.r.RetryPutBacks()
	g.runSpawned()
	if got := g.h.label(tab); got != "mine" {
		t.Fatalf("tab shows %q after the retry, want the person's %q", got, "mine")
	}
}
