package integration

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
)

// lockTrials is how many tabs each world locks while our rename of them
// may be on its way.
const lockTrials = 10

// TestRealHerdrKeepLockDoesNotFlicker: a tab is locked 0-30 ms after a
// nudge started a pass that renames it (its shell has just moved). Once
// lock returns, no rename of ours that was on its way may still land: the
// tab shows the label lock locked (the state file's locked_label) at every
// look for the next 500 ms. A look every 5 ms misses a rename put back
// within milliseconds, so herdr's own order of renames decides too: a tab
// renamed right after lock returned (a mark) must show the locked label
// then, and be renamed to nothing else after. On real herdr 0.8.2 and
// herdrsim playing 0.7, 0.8.0 and 0.8.2, ten tabs each; again with herdr
// reading each rename 50 ms late (a relay holds it, as herdr's 100 ms read
// poll can), which keeps our rename on its way while lock runs.
func TestRealHerdrKeepLockDoesNotFlicker(t *testing.T) {
	t.Parallel()
	for _, slow := range []bool{false, true} {
		t.Run(map[bool]string{false: "direct", true: "slow renames"}[slow], func(t *testing.T) {
			t.Parallel()
			onWorlds(t, worldOptions{Protocols: []int{17, 19}}, func(t *testing.T, w world) {
				socket := w.Socket()
				if slow {
					r := newRelayed(t, w)
					r.slowRenames(t, 50*time.Millisecond)
					socket = r.relay.path
				}
				lockFlicker(t, w, socket)
			})
		})
	}
}

// lockFlicker locks lockTrials tabs of w, each while the daemon (reaching
// herdr at socket, as lock does) renames it, and fails for every tab that
// showed another label than the one locked after lock returned.
func lockFlicker(t *testing.T, w world, socket string) {
	sb := w.Sandbox()
	ws, tabs, panes := raceSession(t, w, lockTrials, "f")
	mark, _ := w.NewTab(t, ws, mkdirs(t, sb, "mark")[0])
	events := watchRenames(t, w.Socket())
	// Passes only when nudged, so the nudge starts the rename.
	d := startDaemonAt(t, w, socket, "--poll", "0", "--no-local-watch")
	waitWorldLabels(t, w, ws, append(raceNames("f", lockTrials), "mark")...)
	look := labelLook(t, w)
	locked := make([]string, lockTrials)
	sampled, ordered := 0, 0
	for i := range lockTrials {
		var seen []string
		locked[i], seen = lockAndWatch(t, w, socket, look, tabs[i], panes[i], mark, i)
		if len(seen) > 0 {
			sampled++
			t.Errorf("%s: tab %s locked as %q showed %q at a look after lock returned\n%s", w.Name(), tabs[i], locked[i], seen, tabRecords(d, tabs[i]))
		}
	}
	apiRename(t, w.Socket(), mark, "end")
	got := events.until(t, mark, "end")
	for i, tab := range tabs {
		after := labelsAfterMark(got, tab, mark, fmt.Sprintf("m%d", i), fmt.Sprintf("f%d", i))
		if slices.ContainsFunc(after, func(l string) bool { return l != locked[i] }) {
			ordered++
			t.Errorf("%s: tab %s locked as %q: herdr showed it as %q from the moment lock returned\n%s", w.Name(), tab, locked[i], after, tabRecords(d, tab))
		}
	}
	t.Logf("%s: of %d tabs locked as our rename was on its way, %d showed another label at a look after lock returned, %d in herdr's order of renames",
		w.Name(), lockTrials, sampled, ordered)
}

// lockAndWatch moves pane's shell to home/g<i>, nudges the daemon, runs
// lock for tab 0-30 ms later, renames the mark tab m<i> at once, and then
// looks at tab every 5 ms for 500 ms. It returns the label lock locked and
// every other label a look found.
func lockAndWatch(t *testing.T, w world, socket string, look func(tab string) string, tab, pane, mark string, i int) (locked string, seen []string) {
	t.Helper()
	sb := w.Sandbox()
	cdAndWait(t, w, pane, sb.HomePath(fmt.Sprintf("g%d", i)))
	if err := nudge.Send(sb.NudgeSocket(socket), pane, nudge.WhenNow); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Duration(rand.IntN(30_000)) * time.Microsecond) // an input
	if out, stderr, code := runCLI(t, sb, "lock", tab, "--socket", socket, "--state", sb.StatePath); code != 0 {
		t.Fatalf("%s: lock %s: exit %d: %s%s", w.Name(), tab, code, out, stderr)
	}
	apiRename(t, w.Socket(), mark, fmt.Sprintf("m%d", i))
	m, ok := keptTabs(t, sb.StatePath)[tab]
	if !ok || !m.Locked {
		t.Fatalf("%s: lock returned, but the state file has no lock on %s: %+v", w.Name(), tab, m)
	}
	return m.LockedLabel, watchLabel(look, tab, m.LockedLabel)
}

// slowRenames makes herdr read every tab.rename that comes through the
// relay delay after it came, as herdr's read poll can, until the test
// ends.
func (r *relayed) slowRenames(t *testing.T, delay time.Duration) {
	t.Helper()
	stop, done := make(chan struct{}), make(chan struct{})
	var held sync.WaitGroup
	go func() {
		defer close(done)
		arrived, release := r.relay.holdNext("tab.rename")
		for {
			select {
			case <-arrived:
			case <-stop:
				release()
				return
			}
			// The next one is held as soon as this one came.
			this := release
			arrived, release = r.relay.holdNext("tab.rename")
			held.Go(func() {
				select {
				case <-time.After(delay):
				case <-stop:
				}
				this()
			})
		}
	}()
	t.Cleanup(func() { close(stop); <-done; held.Wait() })
}

// watchLabel looks at tab every 5 ms for 500 ms and returns every label
// other than want that a look found.
func watchLabel(look func(tab string) string, tab, want string) (seen []string) {
	for end := time.Now().Add(500 * time.Millisecond); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if l := look(tab); l != want && !slices.Contains(seen, l) {
			seen = append(seen, l)
		}
	}
	return seen
}

// apiRename renames tab through herdr's API, as a person's script would.
func apiRename(t *testing.T, socket, tab, label string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := herdr.New(socket).RenameTab(ctx, tab, label); err != nil {
		t.Fatalf("rename %s to %q: %v", tab, label, err)
	}
}

// labelsAfterMark is what tab showed from the event renaming mark to
// markLabel on: its label then (first, or else when it had no event before
// the mark), then every label it was renamed to after.
func labelsAfterMark(events []renamed, tab, mark, markLabel, first string) []string {
	at := slices.Index(events, renamed{mark, markLabel})
	if at < 0 {
		return []string{"(no mark " + markLabel + ")"}
	}
	shows := first
	for _, ev := range events[:at] {
		if ev.tab == tab {
			shows = ev.label
		}
	}
	out := []string{shows}
	for _, ev := range events[at:] {
		if ev.tab == tab {
			out = append(out, ev.label)
		}
	}
	return out
}
