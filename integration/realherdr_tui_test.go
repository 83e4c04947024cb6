package integration

// A person at the keyboard: herdr's own TUI client attached to a real
// herdr 0.8.2 in a pty, typing herdr's default keys, against the daemon;
// each case also on herdrsim, whose Human* helpers play what the same
// keys make herdr do (docs/herdr.md §6). Every rename here is a person's:
// the modal, the keys, Enter.

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/realherdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
)

// keyboard is a person in front of a world's herdr. Prepare* focus the
// target, open its rename modal and type the name; Save presses Enter.
type keyboard interface {
	// FocusTab focuses tab as a click on it does.
	FocusTab(t *testing.T, tab string)
	PrepareRenameTab(t *testing.T, tab, label string)
	PrepareRenameWorkspace(t *testing.T, ws, label string)
	Save(t *testing.T)
	// NewTab makes a tab from the new-tab prompt in the focused
	// workspace, named label ("" for herdr's number).
	NewTab(t *testing.T, label string) (tab, pane string)
}

// openKeyboard attaches a person to w: herdr's TUI client on real herdr,
// the Human* helpers on herdrsim.
func openKeyboard(t *testing.T, w world) keyboard {
	t.Helper()
	switch w := w.(type) {
	case *realWorld:
		return &tuiKeyboard{w: w, c: attachClient(t, w)}
	case *simWorld:
		return &simKeyboard{w: w}
	}
	t.Fatalf("no keyboard for %T", w)
	return nil
}

// attachClient attaches herdr's TUI client to w's server until t ends.
func attachClient(t *testing.T, w *realWorld) *realherdr.Client {
	t.Helper()
	c, err := w.srv.OpenClient()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	})
	return c
}

// renameTab and renameWorkspace type a whole rename.
func renameTab(t *testing.T, k keyboard, tab, label string) {
	t.Helper()
	k.PrepareRenameTab(t, tab, label)
	k.Save(t)
}

func renameWorkspace(t *testing.T, k keyboard, ws, label string) {
	t.Helper()
	k.PrepareRenameWorkspace(t, ws, label)
	k.Save(t)
}

// tuiKeyboard types into herdr's own client.
type tuiKeyboard struct {
	w *realWorld
	c *realherdr.Client
}

func (k *tuiKeyboard) must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%v\nserver output:\n%s", err, k.w.srv.Output())
	}
}

func (k *tuiKeyboard) FocusTab(t *testing.T, tab string) {
	t.Helper()
	k.must(t, k.c.FocusTab(tab))
}

func (k *tuiKeyboard) PrepareRenameTab(t *testing.T, tab, label string) {
	t.Helper()
	k.must(t, k.c.PrepareRenameTab(tab, label))
}

func (k *tuiKeyboard) PrepareRenameWorkspace(t *testing.T, ws, label string) {
	t.Helper()
	k.must(t, k.c.PrepareRenameWorkspace(ws, label))
}

func (k *tuiKeyboard) Save(t *testing.T) {
	t.Helper()
	k.must(t, k.c.Save())
}

func (k *tuiKeyboard) NewTab(t *testing.T, label string) (string, string) {
	t.Helper()
	tab, err := k.c.NewTab(label)
	k.must(t, err)
	for _, p := range k.w.Snapshot(t).Panes {
		if p.TabID == tab {
			return tab, p.ID
		}
	}
	t.Fatalf("new tab %s has no pane", tab)
	return "", ""
}

// simKeyboard is the herdrsim twin: focus as a click does, then the
// Human* helper on Save.
type simKeyboard struct {
	w    *simWorld
	save func()
}

// FocusTab focuses the tab's first pane, as herdr focuses a tab.
func (k *simKeyboard) FocusTab(t *testing.T, tab string) {
	t.Helper()
	for _, p := range k.w.srv.Snapshot().Panes {
		if p.TabID == tab {
			k.w.srv.Focus(p.ID)
			return
		}
	}
	t.Fatalf("herdrsim: tab %s has no pane", tab)
}

func (k *simKeyboard) PrepareRenameTab(t *testing.T, tab, label string) {
	t.Helper()
	k.FocusTab(t, tab)
	k.save = func() { k.w.srv.HumanRename(tab, label) }
}

func (k *simKeyboard) PrepareRenameWorkspace(t *testing.T, ws, label string) {
	t.Helper()
	w, ok := k.w.srv.Workspace(ws)
	if !ok {
		t.Fatalf("herdrsim: no workspace %s", ws)
	}
	k.FocusTab(t, w.ActiveTabID)
	k.save = func() { k.w.srv.HumanRenameWorkspace(ws, label) }
}

func (k *simKeyboard) Save(t *testing.T) {
	t.Helper()
	if k.save == nil {
		t.Fatal("herdrsim: Save with no modal open")
	}
	k.save()
	k.save = nil
}

func (k *simKeyboard) NewTab(t *testing.T, label string) (string, string) {
	t.Helper()
	cwd := ""
	for _, p := range k.w.srv.Snapshot().Panes {
		if p.Focused {
			cwd = p.Cwd
		}
	}
	tab, pane := k.w.srv.HumanNewTab(label)
	ws := ""
	for _, tb := range k.w.srv.Snapshot().Tabs {
		if tb.ID == tab {
			ws = tb.WorkspaceID
		}
	}
	k.w.shell(t, ws, tab, pane, cwd)
	return tab, pane
}

// workspaceLabel is ws's label in w ("" once it is gone).
func workspaceLabel(t *testing.T, w world, ws string) string {
	t.Helper()
	for _, x := range w.Snapshot(t).Workspaces {
		if x.ID == ws {
			return x.Label
		}
	}
	return ""
}

// waitWorkspaceLabel waits until ws's label is want.
func waitWorkspaceLabel(t *testing.T, w world, ws, want string, d *daemonProc) {
	t.Helper()
	var got string
	if !poll(waitTimeout, func() bool { got = workspaceLabel(t, w, ws); return got == want }) {
		t.Fatalf("%s: workspace %s label = %q, want %q (waited %v)\n%s", w.Name(), ws, got, want, waitTimeout, d.Log())
	}
}

// tuiSession is a workspace of two tabs whose shells start in projects/rmk
// and opt/nixos, named by a daemon that also names the workspace after
// its active tab's program or folder.
func tuiSession(t *testing.T, w world) (ws, t1, p1, t2, p2 string, d *daemonProc) {
	t.Helper()
	dirs := mkdirs(t, w.Sandbox(), "projects/rmk", "opt/nixos")
	ws, t1, p1 = w.NewWorkspace(t, dirs[0])
	t2, p2 = w.NewTab(t, ws, dirs[1])
	d = startWorldDaemon(t, w, "--workspace-format", "ws {proc|dir}")
	waitWorldLabels(t, w, ws, "rmk", "nixos")
	return ws, t1, p1, t2, p2, d
}

// keptThrough checks that the tab and the workspace keep the person's
// names through passes, a program's start and its end.
func keptThrough(t *testing.T, w world, d *daemonProc, ws, tab, pane, tabName, wsName string) {
	t.Helper()
	// herdr has no conditional rename: a person's name set while ours is
	// on its way is overwritten, then put back once our rename's echo
	// shows it. So the names must come back and then stay.
	check := func(when string) {
		t.Helper()
		var tabGot, wsGot string
		if !poll(waitTimeout, func() bool {
			tabGot, wsGot = worldLabel(t, w, tab), workspaceLabel(t, w, ws)
			return tabGot == tabName && wsGot == wsName
		}) {
			t.Fatalf("%s: %s: the person's names became %q and %q, want %q and %q\n%s", w.Name(), when, tabGot, wsGot, tabName, wsName, d.Log())
		}
		nudgedPasses(t, w, d, 3)
		if got := worldLabel(t, w, tab); got != tabName {
			t.Errorf("%s: %s: the person's tab name became %q, want %q\n%s", w.Name(), when, got, tabName, d.Log())
		}
		if got := workspaceLabel(t, w, ws); got != wsName {
			t.Errorf("%s: %s: the person's workspace name became %q, want %q\n%s", w.Name(), when, got, wsName, d.Log())
		}
	}
	nudgedPasses(t, w, d, 3)
	check("after the renames")
	w.Type(t, pane, "tee")
	nudgedPasses(t, w, d, 3)
	check("while a program runs")
	w.EOF(t, pane)
	nudgedPasses(t, w, d, 3)
	check("after the program ended")
}

// TestRealHerdrTUIRenamesKeptWhileAProgramStarts: a person renames a tab
// and its workspace from the keyboard just as a program starts in the
// tab, which the daemon would name both after; once the daemon is past
// its first minute's replay. Both names stay.
func TestRealHerdrTUIRenamesKeptWhileAProgramStarts(t *testing.T) {
	t.Parallel()
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		ws, t1, p1, _, _, d := tuiSession(t, w)
		k := openKeyboard(t, w)
		waitReplayOver(t, w, d)
		waitWorkspaceLabel(t, w, ws, "ws rmk", d)
		w.Type(t, p1, "tee")
		renameTab(t, k, t1, "notes")
		renameWorkspace(t, k, ws, "deploy")
		w.EOF(t, p1)
		keptThrough(t, w, d, ws, t1, p1, "notes", "deploy")
	})
}

// TestRealHerdrTUIRenamesKeptInTheFirstMinute is the same within the
// daemon's first seconds, while its stream may still replay herdr's
// history (herdr 0.8): the names stay once the replay is over, too.
func TestRealHerdrTUIRenamesKeptInTheFirstMinute(t *testing.T) {
	t.Parallel()
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		ws, t1, p1, _, _, d := tuiSession(t, w)
		k := openKeyboard(t, w)
		w.Type(t, p1, "tee")
		renameTab(t, k, t1, "notes")
		renameWorkspace(t, k, ws, "deploy")
		w.EOF(t, p1)
		waitReplayOver(t, w, d)
		keptThrough(t, w, d, ws, t1, p1, "notes", "deploy")
	})
}

// waitReplayOver waits until the daemon has seen the end of its stream's
// replay of tab.renamed events.
func waitReplayOver(t *testing.T, w world, d *daemonProc) {
	t.Helper()
	if !poll(waitTimeout, func() bool { return len(jsonLogLines(d.Log(), "replay_over", "tab.renamed")) > 0 }) {
		t.Fatalf("%s: the daemon never saw the end of its stream's replay:\n%s", w.Name(), d.Log())
	}
}

// TestRealHerdrTUIHandBackByNumber: a person hands a tab they named back
// by typing its position number into the rename modal: herdr stores the
// number as the tab's name (the tab had a custom name) and the daemon
// names the tab again. The same goes for a tab the daemon named.
func TestRealHerdrTUIHandBackByNumber(t *testing.T) {
	t.Parallel()
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		ws, t1, _, t2, _, d := tuiSession(t, w)
		k := openKeyboard(t, w)
		renameTab(t, k, t1, "notes")
		nudgedPasses(t, w, d, 3)
		if got := worldLabel(t, w, t1); got != "notes" {
			t.Fatalf("%s: the person's name became %q\n%s", w.Name(), got, d.Log())
		}
		renameTab(t, k, t1, "1")
		waitWorldLabel(t, w, t1, "rmk", d.Log)
		renameTab(t, k, t2, "2")
		nudgedPasses(t, w, d, 3)
		waitWorldLabels(t, w, ws, "rmk", "nixos")
	})
}

// TestRealHerdrTUINamedNewTabKept: a tab made from herdr's new-tab prompt
// with a name keeps it while programs come and go in it; one made with
// the prompt's own number is the daemon's to name.
func TestRealHerdrTUINamedNewTabKept(t *testing.T) {
	t.Parallel()
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		ws, t1, _, _, _, d := tuiSession(t, w)
		k := openKeyboard(t, w)
		k.FocusTab(t, t1) // the prompt adds to the focused workspace
		named, pane := k.NewTab(t, "scratch")
		plain, _ := k.NewTab(t, "")
		waitWorldLabels(t, w, ws, "rmk", "nixos", "scratch", "rmk")
		w.Type(t, pane, "tee")
		nudgedPasses(t, w, d, 3)
		w.EOF(t, pane)
		nudgedPasses(t, w, d, 3)
		if got := worldLabel(t, w, named); got != "scratch" {
			t.Fatalf("%s: the named new tab became %q\n%s", w.Name(), got, d.Log())
		}
		if got := worldLabel(t, w, plain); got != "rmk" {
			t.Fatalf("%s: the unnamed new tab is %q, want the daemon's rmk\n%s", w.Name(), got, d.Log())
		}
	})
}

// TestRealHerdrTUIWorkspaceRenameRace: a person's workspace rename, typed
// in the TUI and saved 0-50 ms after the daemon sent the snapshot of a
// pass that renames that workspace (its shell has just changed folder), is
// the workspace's name at the end, in every trial.
func TestRealHerdrTUIWorkspaceRenameRace(t *testing.T) {
	t.Parallel()
	const trials = 8
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		sb := w.Sandbox()
		var wss, panes []string
		for i := range trials {
			ws, _, pane := w.NewWorkspace(t, mkdirs(t, sb, fmt.Sprintf("a%d", i))[0])
			wss, panes = append(wss, ws), append(panes, pane)
		}
		relay := startRequestRelay(t, t.TempDir(), w.Socket())
		// Only nudges start passes: the trial says when.
		d := startDaemonAt(t, w, relay.path, "--workspace-format", "ws {dir}", "--poll", "0", "--no-local-watch")
		for i, ws := range wss {
			waitWorkspaceLabel(t, w, ws, fmt.Sprintf("ws a%d", i), d)
		}
		k := openKeyboard(t, w)
		waitReplayOver(t, w, d)
		person := func(i int) string { return fmt.Sprintf("person %d", i) }
		for i := range trials {
			workspaceRaceTrial(t, w, k, relay, panes[i], wss[i], person(i), sb.HomePath(fmt.Sprintf("b%d", i)))
		}
		// A rename that lands inside ours is put back when its event
		// arrives, and herdr 0.8 sends one workspace.renamed per 100 ms
		// tick: give the stream time to drain.
		relayedPasses(t, w, d, relay, 3)
		keptCount := func() int {
			n := 0
			for i, ws := range wss {
				if workspaceLabel(t, w, ws) == person(i) {
					n++
				}
			}
			return n
		}
		poll(waitTimeout, func() bool { return keptCount() == trials })
		kept := keptCount()
		for i, ws := range wss {
			if got := workspaceLabel(t, w, ws); got != person(i) {
				t.Errorf("%s: workspace %s = %q, want the person's %q", w.Name(), ws, got, person(i))
			}
		}
		t.Logf("%s: person workspace renames kept %d/%d", w.Name(), kept, trials)
		if kept != trials {
			t.Logf("daemon log:\n%s", d.Log())
		}
	})
}

// workspaceRaceTrial types the person's name into ws's rename modal, moves
// the workspace's shell to dir, nudges the daemon, and presses Enter a
// random 0-50 ms after the daemon's next snapshot request.
func workspaceRaceTrial(t *testing.T, w world, k keyboard, relay *requestRelay, pane, ws, name, dir string) {
	t.Helper()
	k.PrepareRenameWorkspace(t, ws, name)
	cdAndWait(t, w, pane, dir)
	before := len(relay.requests("session.snapshot"))
	if err := nudge.Send(w.Sandbox().NudgeSocket(relay.path), pane, nudge.WhenNow); err != nil {
		t.Fatal(err)
	}
	if !poll(waitTimeout, func() bool { return len(relay.requests("session.snapshot")) > before }) {
		t.Fatalf("%s: the daemon took no snapshot after the nudge", w.Name())
	}
	time.Sleep(time.Duration(rand.IntN(50_000)) * time.Microsecond) // an input
	k.Save(t)
}

// relayedPasses waits until d, which reaches herdr through relay, has
// finished n whole passes that began after the call.
func relayedPasses(t *testing.T, w world, d *daemonProc, relay *requestRelay, n int) {
	t.Helper()
	nudgedPassesAt(t, w, d, relay.path, n)
}
