package integration

// Ownership under races, measured against a real herdr 0.8.2 and against
// herdrsim playing the same release (protocol 20), with real shells in
// both: a person's rename or a lock that lands while a pass renames the
// tab, and a daemon SIGKILLed with a rename on the way. Each trial's
// timing is an input (random sleeps); every wait is a poll. Each test logs
// its counts and fails when a name is lost.

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// everyProtocol runs an ownership case on herdrsim playing every protocol
// the daemon supports, beside real herdr 0.8.2: 0.7 (19) and earlier
// replay history on every subscribe like 0.8, 0.9 (22) does not.
var everyProtocol = worldOptions{Protocols: []int{17, 19, 22}}

// everyProtocolInTurn is everyProtocol one world at a time, for the races
// of 40 person renames (serialTests).
var everyProtocolInTurn = worldOptions{Protocols: everyProtocol.Protocols, InTurn: true}

// TestRealHerdrPersonRenameRace: a person renames a tab 0-30 ms after a
// nudge started a pass that renames it (its shell has just changed
// directory). Whatever moment of the pass the person's rename lands in,
// their name must be the tab's at the end. The trials run once the
// daemon's first stream has delivered its history, where the daemon puts
// back a rename that landed inside its own at its echo.
func TestRealHerdrPersonRenameRace(t *testing.T) {
	onWorlds(t, everyProtocolInTurn, func(t *testing.T, w world) { personRenameRace(t, w, true) })
}

// TestRealHerdrPersonRenameRaceDuringReplay is the same race in the first
// seconds of a daemon, while its first stream may still replay herdr's
// history: the fate of each rename is known when the replay ends.
func TestRealHerdrPersonRenameRaceDuringReplay(t *testing.T) {
	onWorlds(t, everyProtocolInTurn, func(t *testing.T, w world) { personRenameRace(t, w, false) })
}

// personRenameRace runs one trial per tab of a 40-tab session, after the
// stream's replay when pastReplay, and fails on every name lost.
func personRenameRace(t *testing.T, w world, pastReplay bool) {
	const tabs = 40
	ws, tabIDs, panes := raceSession(t, w, tabs, "a")
	// The default --poll, as people run it: its passes also expire the
	// renames whose echo comes late.
	born := time.Now()
	d := startWorldDaemon(t, w, "--format", "{dir}", "--poll", "3s")
	waitWorldLabels(t, w, ws, raceNames("a", tabs)...)
	if pastReplay {
		// Once the stream's tab.renamed history is delivered, every
		// rename's fate is known at its echo.
		poll(waitTimeout, func() bool { return len(jsonLogLines(d.Log(), "replay_over", "tab.renamed")) > 0 })
		if len(jsonLogLines(d.Log(), "replay_over", "tab.renamed")) == 0 {
			t.Fatalf("%s: the daemon never saw the end of its stream's replay:\n%s", w.Name(), d.Log())
		}
	}
	from := time.Since(born)
	sock := w.Sandbox().NudgeSocket(w.Socket())
	person := func(i int) string { return fmt.Sprintf("person %d", i) }
	for i := range tabs {
		cdAndWait(t, w, panes[i], w.Sandbox().HomePath(fmt.Sprintf("b%d", i)))
		if err := nudge.Send(sock, panes[i], nudge.WhenNow); err != nil {
			t.Fatal(err)
		}
		// An input, not a wait: the person renames at a random moment of
		// the pass the nudge started.
		time.Sleep(time.Duration(rand.IntN(30_000)) * time.Microsecond)
		w.PersonRename(t, tabIDs[i], person(i))
	}
	to := time.Since(born)
	// A rename that lands inside ours is put back when its event arrives
	// (one event per 100 ms tick): give that whole passes.
	nudgedPasses(t, w, d, 3)
	kept := func() int { return keptCount(t, w, tabIDs, person) }
	poll(waitTimeout, func() bool { return kept() == tabs })
	k := kept()
	t.Logf("%s: person renames kept %d/%d (trials from %v to %v of the daemon's life; for these tabs the daemon logged %d renames (first names included), %d echoes watched, %d kept at its re-read, %d put back; slowest echo %v)",
		w.Name(), k, tabs, from.Round(time.Millisecond), to.Round(time.Millisecond),
		recordCount(d, tabIDs, "new", "lead"), recordCount(d, tabIDs, "ours", "read", "!label"),
		recordCount(d, tabIDs, "was", "now"), recordCount(d, tabIDs, "name", "ours"), slowestEcho(d).Round(time.Millisecond))
	if k != tabs {
		reportLosses(t, w, d, tabIDs, person)
	}
}

// TestRealHerdrLockRace: `lock` races a pass that renames the tab (its
// shell has just changed directory; the nudge that starts the pass comes
// up to 50 ms before or after lock starts). The lock must hold: the tab
// ends on the label it showed when lock read it (the state file's
// locked_label), through later passes and a later directory change, also
// when the pass's rename lands after lock read it.
func TestRealHerdrLockRace(t *testing.T) {
	t.Parallel()
	const tabs = 20
	onWorlds(t, everyProtocol, func(t *testing.T, w world) {
		sb := w.Sandbox()
		ws, tabIDs, panes := raceSession(t, w, tabs, "a")
		d := startWorldDaemon(t, w, "--format", "{dir}", "--poll", "3s")
		waitWorldLabels(t, w, ws, raceNames("a", tabs)...)
		look := labelLook(t, w)
		atLock := make([]string, tabs)
		for i := range tabs {
			atLock[i] = lockTrial(t, w, look, tabIDs[i], panes[i], sb.HomePath(fmt.Sprintf("b%d", i)))
		}
		// The shells move on: an unlocked tab would now be renamed.
		for i := range tabs {
			cdAndWait(t, w, panes[i], sb.HomePath(fmt.Sprintf("c%d", i)))
		}
		nudgedPasses(t, w, d, 3)
		st, warn := state.Load(sb.StatePath, w.Socket())
		if warn != nil {
			t.Fatal(warn)
		}
		got := labelsOfTabs(t, w, tabIDs)
		kept, afterLock, passFirst := 0, 0, 0
		for i, tab := range tabIDs {
			m := st.Tab(tab)
			if m.LockedLabel == fmt.Sprintf("b%d", i) {
				passFirst++
			}
			if atLock[i] != m.LockedLabel {
				afterLock++ // the pass's rename landed after lock read the tab
			}
			if !m.Locked || got[i] != m.LockedLabel {
				t.Errorf("%s: tab %s locked as %q (locked %v), shows %q", w.Name(), tab, m.LockedLabel, m.Locked, got[i])
				continue
			}
			kept++
		}
		t.Logf("%s: locks kept %d/%d (the pass renamed before lock read the tab %d; showed another label when lock returned %d)",
			w.Name(), kept, tabs, passFirst, afterLock)
		if kept != tabs {
			t.Logf("%s daemon log:\n%s", w.Name(), d.Log())
		}
	})
}

// lockTrial moves the pane's shell to dir, then starts `lock` for its tab
// and nudges the daemon, in a random order 0-50 ms apart, so that lock's
// write to the state file lands before, inside or after the pass's
// re-read and rename. It returns the tab's label once lock has returned,
// read through look.
func lockTrial(t *testing.T, w world, look func(tab string) string, tab, pane, dir string) string {
	t.Helper()
	sb := w.Sandbox()
	cdAndWait(t, w, pane, dir)
	var stderr strings.Builder
	cmd := exec.Command(binPath, "lock", tab, "--socket", w.Socket(), "--state", sb.StatePath)
	cmd.Env, cmd.Stderr = sb.Environ(), &stderr
	done := make(chan error, 1)
	lock := func() {
		if err := cmd.Start(); err != nil {
			t.Fatalf("start lock: %v", err)
		}
		go func() { done <- cmd.Wait() }()
	}
	nudgeIt := func() {
		if err := nudge.Send(sb.NudgeSocket(w.Socket()), pane, nudge.WhenNow); err != nil {
			t.Fatal(err)
		}
	}
	first, second := lock, nudgeIt
	if rand.IntN(2) == 0 {
		first, second = nudgeIt, lock
	}
	first()
	time.Sleep(time.Duration(rand.IntN(50_000)) * time.Microsecond) // an input
	second()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: lock %s: %v: %s", w.Name(), tab, err, stderr.String())
		}
	case <-time.After(waitTimeout):
		_ = cmd.Process.Kill()
		t.Fatalf("%s: lock %s did not return within %v", w.Name(), tab, waitTimeout)
	}
	return look(tab)
}

// labelLook reads a tab's label as soon after the call as w allows, so
// that a rename landing just after lock returned is seen as landing after
// it: herdrsim's state directly; on real herdr a tab.get (most are read at
// once, some wait herdr's 100 ms read poll, which only moves the count the
// trial logs).
func labelLook(t *testing.T, w world) func(tab string) string {
	if sim, ok := w.(*simWorld); ok {
		return func(tab string) string { tb, _ := sim.srv.Tab(tab); return tb.Label }
	}
	c := herdr.New(w.Socket(), herdr.WithTimeout(10*time.Second))
	return func(tab string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var got struct {
			Tab herdr.Tab `json:"tab"`
		}
		if err := c.Call(ctx, "tab.get", map[string]string{"tab_id": tab}, &got); err != nil {
			t.Fatalf("%s: tab.get %s: %v", w.Name(), tab, err)
		}
		return got.Tab.Label
	}
}

// TestRealHerdrSIGKILLWithImmediateRestartLosesNoLabel: 30 rounds of a
// daemon SIGKILLed a random moment after it saved the labels it is about
// to set (so often with a rename on its way), restarted at once, while
// the shells move on 0-200 ms later (so the new daemon wants either the
// label that may still be on its way or another). A late rename of a
// killed daemon must still read as ours: at the end every tab carries the
// label the last daemon wants, none is left frozen as a person's.
func TestRealHerdrSIGKILLWithImmediateRestartLosesNoLabel(t *testing.T) {
	t.Parallel()
	const tabs, rounds = 4, 30
	onWorlds(t, everyProtocol, func(t *testing.T, w world) {
		sb := w.Sandbox()
		ws, tabIDs, panes := raceSession(t, w, tabs, "k0-")
		k := &killTrial{t: t, w: w, tabIDs: tabIDs, panes: panes,
			args: []string{"run", "--apply", "--socket", w.Socket(), "--state", sb.StatePath,
				"--poll", "200ms", "--rest-poll", "200ms", "--debounce", "20ms", "--log-format", "json", "--log-level", "debug", "--format", "{dir}"}}
		k.sim, _ = w.(*simWorld)
		k.spawn()
		waitWorldLabels(t, w, ws, raceNames("k0-", tabs)...)
		for r := 1; r <= rounds; r++ {
			k.round(r)
		}
		final := k.daemons[len(k.daemons)-1]
		t.Cleanup(func() { final.Stop() })
		want := raceNames(fmt.Sprintf("k%d-n", rounds), tabs)
		poll(waitTimeout, func() bool { return sameCount(labelsOfTabs(t, w, tabIDs), want) == tabs })
		lost := 0
		for i, got := range labelsOfTabs(t, w, tabIDs) {
			if got != want[i] {
				lost++
				t.Errorf("%s: tab %s = %q, want %q: a label of ours now reads as a person's", w.Name(), tabIDs[i], got, want[i])
				k.explain(tabIDs[i])
			}
		}
		t.Logf("%s: SIGKILL + immediate restart, %d rounds × %d tabs: labels lost %d (rounds whose pending labels were saved before the kill %d; of %d renames, landed by the kill %d, answered before it %d)",
			w.Name(), rounds, tabs, lost, k.sent, rounds*tabs, k.landed, k.acked)
	})
}

// killTrial is the SIGKILL test's session and its daemons, oldest first.
type killTrial struct {
	t                   *testing.T
	w                   world
	sim                 *simWorld // nil on real herdr
	tabIDs, panes, args []string
	daemons             []*daemonProc
	landed, acked, sent int
}

// spawn starts a daemon, not waiting for it: the next round kills it
// whenever it has saved its labels.
func (k *killTrial) spawn() {
	k.daemons = append(k.daemons, spawnDaemon(k.t, k.w.Sandbox(), nil, k.args...))
}

// round moves every shell, kills the daemon once it has saved the labels
// it is about to set, restarts it, and moves the shells on again.
func (k *killTrial) round(r int) {
	t, w, sb := k.t, k.w, k.w.Sandbox()
	want, next := raceNames(fmt.Sprintf("k%d-", r), len(k.panes)), raceNames(fmt.Sprintf("k%d-n", r), len(k.panes))
	mkdirs(t, sb, append(want, next...)...)
	for i, p := range k.panes {
		w.Type(t, p, "cd "+sb.HomePath(want[i]))
	}
	if k.sim != nil {
		// herdrsim can hold the rename back, so that it surely lands
		// after the kill, as the herdrsim-only trial does.
		k.sim.srv.SetLatency("tab.rename", 300*time.Millisecond)
	}
	if waitPending(sb.StatePath, k.tabIDs, want) {
		k.sent++
	}
	// Inputs: kill before, during or after the rename's flight, and move
	// the shells on before or after the new daemon's first look.
	time.Sleep(time.Duration(rand.IntN(150_000)) * time.Microsecond)
	d := k.daemons[len(k.daemons)-1]
	d.Kill()
	k.landed += sameCount(labelsOfTabs(t, w, k.tabIDs), want)
	k.acked += countRenamed(d, k.tabIDs, want)
	if k.sim != nil {
		k.sim.srv.SetLatency("tab.rename", 0)
	}
	k.spawn()
	time.Sleep(time.Duration(rand.IntN(200_000)) * time.Microsecond)
	for i, p := range k.panes {
		w.Type(t, p, "cd "+sb.HomePath(next[i]))
	}
}

// explain logs what every daemon said about tab, event triage aside, and
// what the state file remembers of it.
func (k *killTrial) explain(tab string) {
	for n, d := range k.daemons {
		for _, l := range strings.Split(d.Log(), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(l), &m) == nil && m["tab"] == tab && m["then"] == nil {
				k.t.Logf("daemon %d: %s", n, l)
			}
		}
	}
	b, _ := os.ReadFile(k.w.Sandbox().StatePath)
	k.t.Logf("state file:\n%s", b)
}

// raceSession makes a workspace of n tabs whose shells start in the home
// folders prefix0..prefix(n-1).
func raceSession(t *testing.T, w world, n int, prefix string) (ws string, tabIDs, panes []string) {
	t.Helper()
	dirs := mkdirs(t, w.Sandbox(), raceNames(prefix, n)...)
	ws, tab, pane := w.NewWorkspace(t, dirs[0])
	tabIDs, panes = []string{tab}, []string{pane}
	for _, dir := range dirs[1:] {
		tab, pane := w.NewTab(t, ws, dir)
		tabIDs, panes = append(tabIDs, tab), append(panes, pane)
	}
	return ws, tabIDs, panes
}

// raceNames is prefix0 .. prefix(n-1).
func raceNames(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return out
}

// cdAndWait makes the folder, types a cd to it into the pane's shell and
// waits until herdr reports the shell there, so that the next pass reads
// the new folder.
func cdAndWait(t *testing.T, w world, pane, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	w.Type(t, pane, "cd "+dir)
	testutil.WaitFor(t, fmt.Sprintf("%s: pane %s in %s", w.Name(), pane, dir), func() bool {
		for _, p := range w.Snapshot(t).Panes {
			if p.ID == pane {
				return p.Cwd == dir || p.ForegroundCwd == dir
			}
		}
		return false
	})
}

// nudgedPasses waits until d has finished n whole passes that began after
// the call, nudging it for a pane that exists nowhere so that a daemon
// without --poll runs them. The first pass counted may have begun before
// the call, so it waits for n+1.
func nudgedPasses(t *testing.T, w world, d *daemonProc, n int) {
	t.Helper()
	nudgedPassesAt(t, w, d, w.Socket(), n)
}

// nudgedPassesAt is nudgedPasses for a daemon that reaches herdr at
// socket (a relay's).
func nudgedPassesAt(t *testing.T, w world, d *daemonProc, socket string, n int) {
	t.Helper()
	sock := w.Sandbox().NudgeSocket(socket)
	start := passSummaries(d)
	seen, sentAt := -1, time.Time{}
	testutil.WaitFor(t, fmt.Sprintf("%s: %d passes after %d", w.Name(), n+1, start), func() bool {
		c := passSummaries(d)
		if c >= start+n+1 || d.Exited() {
			return true
		}
		// One nudge per pass seen, and again after a second without one.
		if c != seen || time.Since(sentAt) > time.Second {
			seen, sentAt = c, time.Now()
			_ = nudge.Send(sock, fencePane, nudge.WhenNow)
		}
		return false
	}, d.Log)
	if d.Exited() {
		t.Fatalf("%s: the daemon exited\n%s", w.Name(), d.Log())
	}
}

// passSummaries is how many pass summaries (JSON lines with local_reads) d
// has logged.
func passSummaries(d *daemonProc) int {
	n := 0
	for _, m := range daemonRecords(d) {
		if m["local_reads"] != nil {
			n++
		}
	}
	return n
}

// daemonRecords are d's JSON log lines, decoded.
func daemonRecords(d *daemonProc) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(d.Log(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// recordCount counts d's log records about one of tabIDs that carry every
// one of fields (a field "!f": that lack f), and no err: which of the
// daemon's records these are is told by their fields, never by their
// wording.
func recordCount(d *daemonProc, tabIDs []string, fields ...string) int {
	ids := map[string]bool{}
	for _, id := range tabIDs {
		ids[id] = true
	}
	n := 0
next:
	for _, m := range daemonRecords(d) {
		if id, _ := m["tab"].(string); !ids[id] || m["err"] != nil {
			continue
		}
		for _, f := range fields {
			name, absent := strings.CutPrefix(f, "!")
			if (m[name] == nil) != absent {
				continue next
			}
		}
		n++
	}
	return n
}

// slowestEcho is the longest time between a rename the daemon logged and
// the tab.renamed event carrying it that it triaged next: how far the
// paced event stream trails (told by the records' fields and times).
func slowestEcho(d *daemonProc) time.Duration {
	sent := map[string]time.Time{} // tab + "\x00" + label -> when renamed
	var slowest time.Duration
	for _, m := range daemonRecords(d) {
		at, err := time.Parse(time.RFC3339Nano, fmt.Sprint(m["time"]))
		if err != nil {
			continue
		}
		tab := fmt.Sprint(m["tab"])
		switch {
		case m["new"] != nil && m["lead"] != nil:
			sent[tab+"\x00"+fmt.Sprint(m["new"])] = at
		case m["kind"] == "tab.renamed" && m["then"] != nil:
			key := tab + "\x00" + fmt.Sprint(m["label"])
			if s, ok := sent[key]; ok {
				slowest = max(slowest, at.Sub(s))
				delete(sent, key)
			}
		}
	}
	return slowest
}

// keptCount counts the tabs whose label is want(i).
func keptCount(t *testing.T, w world, tabIDs []string, want func(int) string) int {
	t.Helper()
	got := labelsOfTabs(t, w, tabIDs)
	n := 0
	for i := range tabIDs {
		if got[i] == want(i) {
			n++
		}
	}
	return n
}

// labelsOfTabs is the labels of tabIDs, in their order, from one snapshot.
func labelsOfTabs(t *testing.T, w world, tabIDs []string) []string {
	t.Helper()
	byID := map[string]string{}
	for _, tb := range w.Snapshot(t).Tabs {
		byID[tb.ID] = tb.Label
	}
	out := make([]string, len(tabIDs))
	for i, id := range tabIDs {
		out[i] = byID[id]
	}
	return out
}

// countRenamed counts the renames of tabIDs[i] to want[i] that d logged as
// answered.
func countRenamed(d *daemonProc, tabIDs, want []string) int {
	n := 0
	for _, m := range daemonRecords(d) {
		if m["lead"] == nil {
			continue
		}
		for i, id := range tabIDs {
			if m["tab"] == id && m["new"] == want[i] {
				n++
			}
		}
	}
	return n
}

// sameCount counts the positions at which a and b agree.
func sameCount(a, b []string) int {
	n := 0
	for i := range a {
		if a[i] == b[i] {
			n++
		}
	}
	return n
}

// reportLosses fails t with every lost name and the daemon's records
// about its tab.
func reportLosses(t *testing.T, w world, d *daemonProc, tabIDs []string, want func(int) string) {
	t.Helper()
	got := labelsOfTabs(t, w, tabIDs)
	for i, tab := range tabIDs {
		if got[i] == want(i) {
			continue
		}
		t.Errorf("%s: tab %s = %q, want the person's %q", w.Name(), tab, got[i], want(i))
		for _, l := range strings.Split(d.Log(), "\n") {
			if strings.Contains(l, `"`+tab+`"`) {
				t.Log(l)
			}
		}
	}
}

// waitPending polls the state file, every millisecond, until it shows
// that the daemon is about to set one of want (each tab's Pending has its
// label); it gives up after 10 s, for a daemon that wants nothing.
func waitPending(path string, tabIDs, want []string) bool {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var sf struct {
			Tabs map[string]struct {
				Pending state.LabelSet `json:"pending"`
			} `json:"tabs"`
		}
		if b, err := os.ReadFile(path); err == nil && json.Unmarshal(b, &sf) == nil {
			for i, id := range tabIDs {
				if slices.Contains(sf.Tabs[id].Pending, want[i]) {
					return true
				}
			}
		}
		time.Sleep(time.Millisecond)
	}
	return false
}
