package integration

import (
	"fmt"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// TestRealHerdrKeepEachPendingLabelExpiresOnItsOwn: the daemon names a tab
// alpha, then renames it every 10 s as its shell moves on; 38 s after we
// asked for alpha a person names the tab alpha. Each label we asked for
// reads as ours for state.PendingTTL after its own request, however often
// the tab was renamed since: the person's alpha is theirs, and stays
// through later moves of the shell.
func TestRealHerdrKeepEachPendingLabelExpiresOnItsOwn(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out a pending label's 30 s")
	}
	t.Parallel()
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		names := []string{"alpha", "k1", "k2", "k3", "k4"}
		dirs := mkdirs(t, w.Sandbox(), names...)
		_, tab, pane := w.NewWorkspace(t, dirs[0])
		d := startWorldDaemon(t, w)
		waitWorldLabel(t, w, tab, "alpha", d.Log)
		asked := time.Now() // we asked for alpha before this
		for i, at := range []time.Duration{10 * time.Second, 20 * time.Second, 30 * time.Second} {
			// Inputs: the shell moves on every 10 s, so the tab is
			// renamed well within every PendingTTL.
			time.Sleep(time.Until(asked.Add(at)))
			cdAndWait(t, w, pane, dirs[i+1])
			waitWorldLabel(t, w, tab, names[i+1], d.Log)
		}
		time.Sleep(time.Until(asked.Add(state.PendingTTL + 8*time.Second)))
		w.PersonRename(t, tab, "alpha")
		cdAndWait(t, w, pane, dirs[4])
		nudgedPasses(t, w, d, 3)
		if got := worldLabel(t, w, tab); got != "alpha" {
			t.Errorf("%s: a person named the tab alpha %v after we asked for it; it shows %q\n%s",
				w.Name(), state.PendingTTL+8*time.Second, got, d.Log())
		}
	})
}

// TestRealHerdrKeepPutBackHoldsAPassMeanwhile: a person's rename lands
// inside ours, and its put-back starts with a look at the tab (held in the
// relay). Meanwhile a cd and a nudge run a pass that would rename the tab:
// it sends no rename while the person's name is on its way back (one sent
// then could land after it), and the person's name goes back and stays.
// Three trials per world.
func TestRealHerdrKeepPutBackHoldsAPassMeanwhile(t *testing.T) {
	t.Parallel()
	onWorlds(t, everyProtocol, func(t *testing.T, w world) {
		r := newRelayed(t, w)
		d := r.daemon(t)
		liveStream(t, w, d)
		for i := range 3 {
			putBackHoldsAPass(t, r, d, i)
		}
	})
}

// putBackHoldsAPass is one trial: rename a -> b held, a person's rename,
// b lands; the put-back's look held while a pass would rename the tab c.
func putBackHoldsAPass(t *testing.T, r *relayed, d *daemonProc, i int) {
	w := r.w
	a, b, c, mine := fmt.Sprintf("pa%d", i), fmt.Sprintf("pb%d", i), fmt.Sprintf("pc%d", i), fmt.Sprintf("mine %d", i)
	mkdirs(t, w.Sandbox(), b, c)
	tab, pane := r.namedTab(t, d, a)
	release := r.heldRename(t, pane, b)
	w.PersonRename(t, tab, mine)
	look, releaseLook := r.hold(t, "tab.get")
	release()
	waitArrived(t, look, "look at the tab before the put-back")
	r.heldIs(t, "tab.get", "tab_id", tab)
	renames := len(r.relay.requests("tab.rename"))
	cdAndWait(t, w, pane, w.Sandbox().HomePath(c))
	relayedPasses(t, w, d, r.relay, 2)
	if n := len(r.relay.requests("tab.rename")) - renames; n != 0 {
		t.Errorf("%s trial %d: %d renames sent while the put-back was on its way, want 0", w.Name(), i, n)
	}
	releaseLook()
	if !poll(waitTimeout, func() bool { return worldLabel(t, w, tab) == mine }) {
		t.Errorf("%s trial %d: the person's %q was lost to %q\n%s", w.Name(), i, mine, worldLabel(t, w, tab), tabRecords(d, tab))
		return
	}
	relayedPasses(t, w, d, r.relay, 2)
	if got := worldLabel(t, w, tab); got != mine {
		t.Errorf("%s trial %d: the person's %q became %q", w.Name(), i, mine, got)
	}
}

// TestRealHerdrKeepPutBackFollowsItsOwnEcho: a person's rename lands
// inside ours and goes back; the put-back is held in the relay while the
// person renames the tab again. The put-back is a rename of ours too,
// followed to its echo: the person's second name goes back. Three trials
// per world.
func TestRealHerdrKeepPutBackFollowsItsOwnEcho(t *testing.T) {
	t.Parallel()
	onWorlds(t, everyProtocol, func(t *testing.T, w world) {
		events := watchRenames(t, w.Socket())
		r := newRelayed(t, w)
		d := r.daemon(t)
		liveStream(t, w, d)
		for i := range 3 {
			first, second := fmt.Sprintf("first %d", i), fmt.Sprintf("second %d", i)
			mkdirs(t, w.Sandbox(), fmt.Sprintf("eb%d", i))
			tab, pane := r.namedTab(t, d, fmt.Sprintf("ea%d", i))
			release := r.heldRename(t, pane, fmt.Sprintf("eb%d", i))
			w.PersonRename(t, tab, first)
			back, releaseBack := r.hold(t, "tab.rename")
			release()
			waitArrived(t, back, "put-back of "+first)
			r.heldIs(t, "tab.rename", "label", first)
			w.PersonRename(t, tab, second)
			releaseBack()
			events.landedAfter(t, tab, second, first)
			if !poll(waitTimeout, func() bool { return worldLabel(t, w, tab) == second }) {
				t.Errorf("%s trial %d: the person's %q, set inside the put-back of %q, was lost to %q\n%s",
					w.Name(), i, second, first, worldLabel(t, w, tab), tabRecords(d, tab))
				continue
			}
			relayedPasses(t, w, d, r.relay, 2)
			if got := worldLabel(t, w, tab); got != second {
				t.Errorf("%s trial %d: the person's %q became %q\n%s", w.Name(), i, second, got, tabRecords(d, tab))
			}
		}
	})
}

// TestRealHerdrKeepRestoreFollowsItsGiveBack: restore --apply gives a tab
// we named its number back; a person renames the tab while that rename is
// held in the relay. restore follows its rename to its echo before it
// exits: the person's name stands. Two trials per world, each with a
// daemon that restore stops.
func TestRealHerdrKeepRestoreFollowsItsGiveBack(t *testing.T) {
	t.Parallel()
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		r := newRelayed(t, w)
		for i := range 2 {
			d := r.daemon(t)
			tab, _ := r.namedTab(t, d, fmt.Sprintf("rs%d", i))
			giveBack, release := r.hold(t, "tab.rename")
			restore := startBackground(t, w.Sandbox(), "restore", "--apply", "--socket", r.relay.path, "--state", w.Sandbox().StatePath)
			waitArrived(t, giveBack, "rename from restore")
			r.heldIs(t, "tab.rename", "tab_id", tab)
			mine := fmt.Sprintf("mine %d", i)
			w.PersonRename(t, tab, mine)
			release()
			out, errOut, code := restore.wait(t)
			if code != 0 {
				t.Fatalf("%s: restore --apply: exit %d\n%s%s", w.Name(), code, out, errOut)
			}
			if got := worldLabel(t, w, tab); got != mine {
				t.Errorf("%s trial %d: restore exited with the tab showing %q, not the person's %q\n%s", w.Name(), i, got, mine, out)
			}
			if code := d.Wait(waitTimeout); code != 0 {
				t.Fatalf("%s: the daemon restore stopped exited %d\n%s", w.Name(), code, d.Log())
			}
		}
	})
}
