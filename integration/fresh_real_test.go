package integration

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// Freshness: a tab shows what runs in it within a second of the change,
// for a person with no shell hooks and no terminal title. The daemons
// here poll every ten minutes (freshArgs), so a name that comes at all
// came by herdr's events, the kernel's local watch or a watch of session
// files, never by a poll. The wait for it is long (freshBound) so that a
// loaded machine fails nothing; the latency is measured and logged
// instead. fresh_test.go holds the cases that read /proc.

// freshArgs leave the daemon no poll within a test's life: only herdr's
// events, the local watch and the session files' watch can rename. The
// debounce is the default a person runs with.
var freshArgs = []string{"--poll", "10m", "--rest-poll", "10m", "--debounce", "400ms"}

// freshBound is how long a test waits for a name. The promise is well
// within a second on an idle machine; the bound is for a loaded 2-core CI
// machine running -race, and far below the polls of freshArgs.
const freshBound = 10 * time.Second

// freshFollow does act and waits until changed holds (the change itself,
// read off /proc while act runs; nil: the change is act's return), then
// until tab's label is want, and returns how long the name took from the
// change. The figure is when herdr answered the daemon's rename, from
// the daemon's log record of it, when there is one; else when the test
// saw the label. Both are logged.
func freshFollow(t *testing.T, w world, d *daemonProc, what, tab, want string, act func(), changed func() bool) time.Duration {
	t.Helper()
	start := changedAt(t, w, what, act, changed)
	var got string
	if !poll(freshBound, func() bool { got = worldLabel(t, w, tab); return got == want }) {
		t.Fatalf("%s: %s: tab %s is %q, want %q (waited %v; the daemon polls every 10m, so only an event, the kernel or a file watch can name it)\n%s",
			w.Name(), what, tab, got, want, freshBound, d.Log())
	}
	seen := time.Since(start)
	took := seen
	var at time.Time
	// herdr's answer may show before the daemon has logged it.
	if poll(2*time.Second, func() bool { var ok bool; at, ok = renamedAt(d, tab, want, start); return ok }) {
		took = at.Sub(start)
	}
	t.Logf("%s: %s: tab %s became %q in %v (seen by the test after %v)", w.Name(), what, tab, want,
		took.Round(time.Millisecond), seen.Round(time.Millisecond))
	return took
}

// changedAt does act and returns when changed first held, looking every
// millisecond from before act starts; with changed nil, when act returned.
func changedAt(t *testing.T, w world, what string, act func(), changed func() bool) time.Time {
	t.Helper()
	if changed == nil {
		act()
		return time.Now()
	}
	seen, stop := make(chan time.Time, 1), make(chan struct{})
	defer close(stop)
	go func() {
		for !changed() {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
		seen <- time.Now()
	}()
	act()
	select {
	case at := <-seen:
		return at
	case <-time.After(waitTimeout):
		t.Fatalf("%s: %s: the change never came (waited %v)", w.Name(), what, waitTimeout)
	}
	return time.Time{}
}

// renamedAt is when herdr answered a rename of d's of tab to label after
// start, from the time of the JSON log record that carries both.
func renamedAt(d *daemonProc, tab, label string, start time.Time) (time.Time, bool) {
	for _, m := range daemonRecords(d) {
		if m["tab"] != tab || m["new"] != label {
			continue
		}
		s, _ := m["time"].(string)
		if at, err := time.Parse(time.RFC3339Nano, s); err == nil && !at.Before(start) {
			return at, true
		}
	}
	return time.Time{}, false
}

// freshDaemon starts `run --apply` against w with freshArgs and the
// test's flags, and waits until its subscription's full pass has run.
func freshDaemon(t *testing.T, w world, args ...string) *daemonProc {
	t.Helper()
	d := startWorldDaemon(t, w, append(append([]string{}, freshArgs...), args...)...)
	settled(t, d)
	return d
}

// TestRealHerdrFreshTabsAfterARestartWithoutItsSession: herdr restarted
// without its session numbers tabs from 1 again while the daemon runs on.
// The new server's tabs, which carry the old tabs' ids, are named as fast
// as the old server's were: at their events, never at a poll.
func TestRealHerdrFreshTabsAfterARestartWithoutItsSession(t *testing.T) {
	t.Parallel()
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		dirs := mkdirs(t, w.Sandbox(), "old/a0", "old/a1", "old/a2", "new/x0", "new/x1", "new/x2")
		d := freshDaemon(t, w)
		before := freshNewTabs(t, w, d, dirs[:3], "before the restart")
		subscribed := len(testutil.Traced(d.Log(), "subscribed"))
		w = restartWithoutSession(t, w)
		testutil.WaitFor(t, "the daemon subscribed to the new server and ran the pass it asks for", func() bool {
			return len(testutil.Traced(d.Log(), "subscribed")) > subscribed && testutil.SubscribePassesDone(d.Log())
		}, d.Log)
		after := freshNewTabs(t, w, d, dirs[3:], "after the restart")
		if !slices.Equal(after, before) {
			t.Fatalf("%s: the new server's tabs are %v, not the old ids %v: the test cannot hold", w.Name(), after, before)
		}
	})
}

// freshNewTabs makes a workspace and more tabs, one per folder of dirs,
// each once the last is named, and returns their ids. Each name is timed
// from herdr's answer to the tab's creation.
func freshNewTabs(t *testing.T, w world, d *daemonProc, dirs []string, when string) []string {
	t.Helper()
	var ws string
	var tabs []string
	for i, dir := range dirs {
		var tab string
		if i == 0 {
			ws, tab, _ = w.NewWorkspace(t, dir)
		} else {
			tab, _ = w.NewTab(t, ws, dir)
		}
		tabs = append(tabs, tab)
		freshFollow(t, w, d, fmt.Sprintf("new tab %d %s", i, when), tab, filepath.Base(dir), func() {}, nil)
	}
	return tabs
}
