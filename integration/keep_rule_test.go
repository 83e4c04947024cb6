package integration

// The rule docs/names.md's "Names people chose" states, tried from outside on a
// real herdr 0.8.2 and on herdrsim (0.8, and 0.7 and 0.9 where the
// protocol matters), through the binary, its CLI, herdr's CLI and the
// state file only:
//
//   - a person who renames a tab away from our label and back to it keeps
//     it, however soon after our rename (a replay's old echo of ours
//     always comes after the label our look saw; theirs does not);
//   - our last label is ours only while the tab shows it since our
//     rename: renamed away and back while no daemon ran, it is the
//     person's (0.7/0.8 replay herdr's history to the next daemon; 0.9
//     does not, docs/names.md's limit);
//   - a release ends when a person names the tab;
//   - restore follows what it gives back against renames of ours that
//     may still land, not every one a stopped daemon left in the memory.
//
// Where a rule is about time (the 30 s a label we asked for may still
// land), the state file is aged instead of waiting: its times are what
// every process reads them by. Tabs are named after their folder alone
// ({dir}): a shell's first moments show herdr's own program in front.

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"testing"
	"time"
)

// ageState moves every time the state file at path records d into the
// past: for the memory, d has passed.
func ageState(t *testing.T, path string, d time.Duration) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("state file %s: %v", path, err)
	}
	out, err := json.MarshalIndent(shiftTimes(v, -d), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
}

// shiftTimes moves every RFC 3339 time in a decoded JSON value by d.
func shiftTimes(v any, d time.Duration) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = shiftTimes(e, d)
		}
	case []any:
		for i, e := range x {
			x[i] = shiftTimes(e, d)
		}
	case string:
		if at, err := time.Parse(time.RFC3339Nano, x); err == nil {
			return at.Add(d).Format(time.RFC3339Nano)
		}
	}
	return v
}

// heardTimes waits until d's stream has brought n renames of tab to
// label.
func heardTimes(t *testing.T, w world, d *daemonProc, tab, label string, n int) {
	t.Helper()
	if !poll(waitTimeout, func() bool {
		c := 0
		for _, m := range daemonRecords(d) {
			if m["kind"] == "tab.renamed" && m["tab"] == tab && m["label"] == label {
				c++
			}
		}
		return c >= n
	}) {
		t.Fatalf("%s: the daemon's stream never brought %d renames of %s to %q\n%s", w.Name(), n, tab, label, d.Log())
	}
}

// keptFor fails t unless tab shows label now and after n more passes.
func keptFor(t *testing.T, w world, d *daemonProc, socket, tab, label string, n int, what string) {
	t.Helper()
	if got := worldLabel(t, w, tab); got != label {
		t.Errorf("%s %s: the tab shows %q, not the person's %q\n%s", w.Name(), what, got, label, tabRecords(d, tab))
		return
	}
	nudgedPassesAt(t, w, d, socket, n)
	if got := worldLabel(t, w, tab); got != label {
		t.Errorf("%s %s: the person's %q became %q\n%s", w.Name(), what, label, got, tabRecords(d, tab))
	}
}

// TestRealHerdrKeepAPersonsReturnToOurLabel: the daemon names a tab; a
// person renames it away and, a second or 36 s after our rename, back to
// our label. Their label stays: nothing is "given back" over it. Three
// trials per world (herdr 0.7, 0.8 and 0.9), the last 36 s long.
func TestRealHerdrKeepAPersonsReturnToOurLabel(t *testing.T) {
	t.Parallel()
	onWorlds(t, everyProtocol, func(t *testing.T, w world) {
		r := newRelayed(t, w)
		d := r.daemon(t, "--format", "{dir}")
		liveStream(t, w, d)
		for i, after := range []time.Duration{time.Second, 2 * time.Second, 36 * time.Second} {
			name, older := fmt.Sprintf("rb%d", i), fmt.Sprintf("older %d", i)
			tab, _ := r.namedTab(t, d, name)
			asked := time.Now()
			w.PersonRename(t, tab, older)
			heardTimes(t, w, d, tab, older, 1)
			time.Sleep(time.Until(asked.Add(after)))
			w.PersonRename(t, tab, name)
			heardTimes(t, w, d, tab, name, 2)
			// A put-back is a rename right after the echo: give it time
			// to land before looking.
			relayedPasses(t, w, d, r.relay, 1)
			time.Sleep(300 * time.Millisecond)
			keptFor(t, w, d, r.relay.path, tab, name, 2, fmt.Sprintf("trial %d (%v after our rename)", i, after))
		}
	})
}

// TestRealHerdrKeepOurLastLabelChosenAgainWhileNoDaemonRan: the daemon
// names a tab and stops; a person renames the tab away and back to that
// label; 65 s after our rename (the state file aged) the shell moves on
// and a daemon starts. herdr's replay carries the person's renames, so
// the label is theirs and stays, on herdr 0.7 and 0.8. (0.9 replays
// nothing: docs/names.md's limit.) Three trials per world.
func TestRealHerdrKeepOurLastLabelChosenAgainWhileNoDaemonRan(t *testing.T) {
	t.Parallel()
	onWorlds(t, worldOptions{Protocols: []int{17, 19}}, func(t *testing.T, w world) {
		sb := w.Sandbox()
		for i := range 3 {
			name, next, older := fmt.Sprintf("lc%d", i), fmt.Sprintf("ld%d", i), fmt.Sprintf("older %d", i)
			dirs := mkdirs(t, sb, name, next)
			d := startWorldDaemon(t, w, "--poll", "0", "--no-local-watch", "--format", "{dir}")
			_, tab, pane := w.NewWorkspace(t, dirs[0])
			waitWorldLabel(t, w, tab, name, d.Log)
			heardTimes(t, w, d, tab, name, 1)
			if code := d.Stop(); code != 0 {
				t.Fatalf("%s: daemon exit %d\n%s", w.Name(), code, d.Log())
			}
			w.PersonRename(t, tab, older)
			w.PersonRename(t, tab, name)
			ageState(t, sb.StatePath, 65*time.Second)
			cdAndWait(t, w, pane, dirs[1])
			d = startWorldDaemon(t, w, "--poll", "0", "--no-local-watch", "--format", "{dir}")
			liveStream(t, w, d)
			nudgedPasses(t, w, d, 2)
			// A rename of ours made before the replay told of the person
			// goes back at its echo.
			if !poll(waitTimeout, func() bool { return worldLabel(t, w, tab) == name }) {
				t.Errorf("%s trial %d: the tab shows %q, not the person's %q\n%s", w.Name(), i, worldLabel(t, w, tab), name, tabRecords(d, tab))
			} else {
				keptFor(t, w, d, w.Socket(), tab, name, 2, fmt.Sprintf("trial %d", i))
			}
			d.Stop()
		}
	})
}

// TestRealHerdrKeepAReleaseEndsWhenAPersonNamesTheTab: a person names a
// tab, releases it from a terminal outside herdr (no nudge), and names it
// again before the daemon looks, with the daemon running and stopped: the
// release is over, their new name stays. Once more, renamed away and back
// to the released label while the daemon runs and hears it. Two trials of
// each per world.
func TestRealHerdrKeepAReleaseEndsWhenAPersonNamesTheTab(t *testing.T) {
	t.Parallel()
	onWorlds(t, everyProtocol, func(t *testing.T, w world) {
		sb := w.Sandbox()
		for i, how := range []string{"running", "stopped", "away and back", "running", "stopped", "away and back"} {
			name, notes, mine := fmt.Sprintf("re%d", i), fmt.Sprintf("notes %d", i), fmt.Sprintf("mine %d", i)
			d := startWorldDaemon(t, w, "--poll", "0", "--no-local-watch", "--format", "{dir}")
			liveStream(t, w, d)
			_, tab, _ := w.NewWorkspace(t, mkdirs(t, sb, name)[0])
			waitWorldLabel(t, w, tab, name, d.Log)
			w.PersonRename(t, tab, notes)
			nudgedPasses(t, w, d, 1)
			if how == "stopped" {
				d.Stop()
			}
			if out, stderr, code := runCLI(t, sb, "release", tab, "--socket", w.Socket(), "--state", sb.StatePath); code != 0 {
				t.Fatalf("%s: release: exit %d: %s%s", w.Name(), code, out, stderr)
			}
			want := mine
			w.PersonRename(t, tab, mine)
			if how == "away and back" {
				heardTimes(t, w, d, tab, mine, 1)
				w.PersonRename(t, tab, notes)
				want = notes
			}
			if how == "stopped" {
				d = startWorldDaemon(t, w, "--poll", "0", "--no-local-watch", "--format", "{dir}")
				liveStream(t, w, d)
			}
			nudgedPasses(t, w, d, 2)
			// A rename of ours the release started may land over the
			// person's: their name then goes back, on its own goroutine.
			waitWorldLabel(t, w, tab, want, d.Log)
			keptFor(t, w, d, w.Socket(), tab, want, 1, fmt.Sprintf("trial %d (%s)", i, how))
			d.Stop()
		}
	})
}

// TestRealHerdrKeepRestoreCountsOnlyRenamesThatMayStillLand: the daemon
// names a tab twice and stops, its renames' records left in the state
// file; 70 s later (aged) restore --apply gives the tab its number, and a
// person renames the tab inside that rename (held in the relay) to the
// first of our labels. No rename of ours to it can land any more: the
// label is the person's, and goes back. Three trials per world.
func TestRealHerdrKeepRestoreCountsOnlyRenamesThatMayStillLand(t *testing.T) {
	t.Parallel()
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		r := newRelayed(t, w)
		sb := w.Sandbox()
		// A pane from before the first daemon: restore, which reaches
		// herdr through a relay (a forwarder to it), tells the server it
		// knows by it, and keeps the memory. Locked: restore leaves it.
		_, idle, _ := w.NewWorkspace(t, sb.Home)
		if out, stderr, code := r.cli(t, "lock", idle); code != 0 {
			t.Fatalf("%s: lock: exit %d: %s%s", w.Name(), code, out, stderr)
		}
		for i := range 3 {
			first, second := fmt.Sprintf("rf%d", i), fmt.Sprintf("rs%d", i)
			mkdirs(t, sb, second)
			d := r.daemon(t, "--format", "{dir}")
			liveStream(t, w, d)
			tab, pane := r.namedTab(t, d, first)
			r.heldRename(t, pane, second)()
			waitWorldLabel(t, w, tab, second, d.Log)
			heardTimes(t, w, d, tab, second, 1)
			if code := d.Stop(); code != 0 {
				t.Fatalf("%s: daemon exit %d\n%s", w.Name(), code, d.Log())
			}
			if !slices.ContainsFunc(stateFlights(t, sb.StatePath, tab), func(want string) bool { return want == first }) {
				t.Fatalf("%s: the stopped daemon left no record of its rename to %q: the test cannot hold", w.Name(), first)
			}
			ageState(t, sb.StatePath, 70*time.Second)
			giveBack, release := r.hold(t, "tab.rename")
			restore := startBackground(t, sb, "restore", "--apply", "--socket", r.relay.path, "--state", sb.StatePath)
			waitArrived(t, giveBack, "rename from restore")
			r.heldIs(t, "tab.rename", "tab_id", tab)
			w.PersonRename(t, tab, first)
			release()
			out, errOut, code := restore.wait(t)
			if code != 0 {
				t.Fatalf("%s: restore --apply: exit %d\n%s%s", w.Name(), code, out, errOut)
			}
			if !poll(waitTimeout, func() bool { return worldLabel(t, w, tab) == first }) {
				t.Errorf("%s trial %d: restore exited with the tab showing %q, not the person's %q\n%s", w.Name(), i, worldLabel(t, w, tab), first, out)
			}
			w.CloseTab(t, tab) // the next trial's daemon would name it
		}
	})
}

// stateFlights are the labels of the renames the state file at path
// follows on tab.
func stateFlights(t *testing.T, path, tab string) []string {
	t.Helper()
	var f struct {
		Tabs map[string]struct {
			Flights []struct {
				Want string `json:"want"`
			} `json:"flights"`
		} `json:"tabs"`
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, fl := range f.Tabs[tab].Flights {
		out = append(out, fl.Want)
	}
	return out
}
