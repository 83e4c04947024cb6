package integration

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// Pane names (--pane-format) on herdrsim and on a real herdr 0.8.2: each
// pane of a tab is named from its own facts, a person's pane label is
// theirs, and restore clears ours alone. herdr tells of no pane rename
// (docs/herdr.md §13): every label here is seen by reading the session.

// paneFormat names an agent's pane after its agent, any other after its
// program or folder.
var paneFormat = []string{"--pane-format", "{agent|proc|dir}"}

// TestRealHerdrPaneNames: two agent panes of one tab get names told apart
// (by their folders), which follow a change of agent; a plain shell's
// pane follows its program, its exit and a cd.
func TestRealHerdrPaneNames(t *testing.T) {
	t.Parallel()
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		dirs := mkdirs(t, w.Sandbox(), "projects/api", "projects/web", "projects/doc")
		_, tab, p1 := w.NewWorkspace(t, dirs[0])
		p2 := splitPane(t, w, p1, dirs[1])
		p3 := splitPane(t, w, p2, dirs[2])
		reportAgent(t, w, p1, "claude", "idle")
		reportAgent(t, w, p2, "claude", "working")
		d := startWorldDaemon(t, w, paneFormat...)
		waitPaneLabels(t, w, d, map[string]string{p1: "api/claude", p2: "web/claude", p3: "doc"})

		reportAgent(t, w, p2, "codex", "working")
		waitPaneLabels(t, w, d, map[string]string{p1: "claude", p2: "codex", p3: "doc"})
		w.Type(t, p3, "tee")
		waitPaneLabels(t, w, d, map[string]string{p1: "claude", p2: "codex", p3: "tee"})
		w.EOF(t, p3)
		waitPaneLabels(t, w, d, map[string]string{p1: "claude", p2: "codex", p3: "doc"})
		w.Type(t, p3, "cd "+dirs[1])
		waitPaneLabels(t, w, d, map[string]string{p1: "claude", p2: "codex", p3: "web"})
		// The tab keeps the name of its own template (--format's default).
		if got := worldLabel(t, w, tab); got != "api" {
			t.Errorf("%s: the tab is named %q, want api", w.Name(), got)
		}
	})
}

// TestRealHerdrKeepsAPersonsPaneName: a pane label a person set with
// `herdr pane rename` stays across a program change, a daemon restart
// and a herdr restart with its session; cleared (`--clear`), the pane is
// ours again by the next pass; restore --apply then clears every label
// of ours and none of a person's.
func TestRealHerdrKeepsAPersonsPaneName(t *testing.T) {
	t.Parallel()
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		sb := w.Sandbox()
		dirs := mkdirs(t, sb, "projects/api", "projects/doc")
		_, _, p1 := w.NewWorkspace(t, dirs[0])
		p2 := splitPane(t, w, p1, dirs[1])
		reportAgent(t, w, p1, "claude", "idle")
		d := startWorldDaemon(t, w, paneFormat...)
		waitPaneLabels(t, w, d, map[string]string{p1: "claude", p2: "doc"})

		personRenamePane(t, w, p2, "notes")
		w.Type(t, p2, "tee")
		passes(t, d, 3)
		checkPaneLabel(t, w, d, p2, "notes", "while tee ran")

		if code := d.Stop(); code != 0 {
			t.Fatalf("daemon exited %d\n%s", code, d.Log())
		}
		w.EOF(t, p2)
		d = startWorldDaemon(t, w, paneFormat...)
		passes(t, d, 3)
		checkPaneLabel(t, w, d, p2, "notes", "after a daemon restart")

		if code := d.Stop(); code != 0 {
			t.Fatalf("daemon exited %d\n%s", code, d.Log())
		}
		w.Restart(t)
		d = startWorldDaemon(t, w, paneFormat...)
		reportAgent(t, w, p1, "claude", "idle")
		waitPaneLabels(t, w, d, map[string]string{p1: "claude", p2: "notes"})
		passes(t, d, 3)
		checkPaneLabel(t, w, d, p2, "notes", "after a herdr restart")

		personRenamePane(t, w, p2, "")
		waitPaneLabels(t, w, d, map[string]string{p1: "claude", p2: "doc"})

		personRenamePane(t, w, p1, "mine")
		passes(t, d, 2)
		out, stderr, code := runCLI(t, sb, "restore", "--apply", "--socket", w.Socket(), "--state", sb.StatePath)
		if code != 0 {
			t.Fatalf("%s: restore --apply: exit %d: %s", w.Name(), code, stderr)
		}
		if !d.Exited() && d.Wait(waitTimeout) == -1 {
			t.Fatalf("%s: restore --apply did not stop the daemon\n%s", w.Name(), out)
		}
		waitPaneLabels(t, w, d, map[string]string{p1: "mine", p2: ""})
	})
}

// personRenamePane sets a pane's label as a person does, with herdr's
// CLI on real herdr (--clear for none) and the same request on herdrsim.
func personRenamePane(t *testing.T, w world, pane, label string) {
	t.Helper()
	if rw, ok := w.(*realWorld); ok {
		args := []string{"pane", "rename", pane, label}
		if label == "" {
			args = []string{"pane", "rename", pane, "--clear"}
		}
		rw.cliJSON(t, nil, args...)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := herdr.New(w.Socket()).RenamePane(ctx, pane, label); err != nil {
		t.Fatalf("%s: pane.rename %s %q: %v", w.Name(), pane, label, err)
	}
}

// paneLabelsOf is the labels of w's panes, by pane id.
func paneLabelsOf(t *testing.T, w world) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range w.Snapshot(t).Panes {
		out[p.ID] = p.Label
	}
	return out
}

// waitPaneLabels waits until each pane of want shows its label.
func waitPaneLabels(t *testing.T, w world, d *daemonProc, want map[string]string) {
	t.Helper()
	var got map[string]string
	ok := poll(waitTimeout, func() bool {
		got = paneLabelsOf(t, w)
		for id, label := range want {
			if got[id] != label {
				return false
			}
		}
		return true
	})
	if !ok {
		t.Fatalf("%s: pane labels %v, want %v\n%s", w.Name(), got, want, lastLines(d.Log(), 40))
	}
}

// checkPaneLabel fails t unless pane shows want now.
func checkPaneLabel(t *testing.T, w world, d *daemonProc, pane, want, when string) {
	t.Helper()
	if got := paneLabelsOf(t, w)[pane]; got != want {
		t.Fatalf("%s: %s pane %s shows %q, want %q\n%s", w.Name(), when, pane, got, want, lastLines(d.Log(), 40))
	}
}

// lastLines is the end of a log, enough to read what led to a failure.
func lastLines(log string, n int) string {
	lines := strings.Split(strings.TrimRight(log, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// TestRealHerdrKeepsAPaneNamedAtTheKeyboard: a pane label a person types
// in herdr's own client (prefix+shift+p, the focused pane) is theirs
// across a program change and a daemon restart, and emptying it there
// hands the pane back. On herdrsim the modal's request alone is played
// (herdr's modal sends pane.rename, §13).
func TestRealHerdrKeepsAPaneNamedAtTheKeyboard(t *testing.T) {
	t.Parallel()
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		dirs := mkdirs(t, w.Sandbox(), "projects/doc")
		_, tab, p1 := w.NewWorkspace(t, dirs[0])
		d := startWorldDaemon(t, w, paneFormat...)
		waitPaneLabels(t, w, d, map[string]string{p1: "doc"})
		typePaneName(t, w, tab, p1, "notes")
		w.Type(t, p1, "tee")
		waitWorldLabel(t, w, tab, "tee", d.Log)
		passes(t, d, 3)
		checkPaneLabel(t, w, d, p1, "notes", "while tee ran")

		if code := d.Stop(); code != 0 {
			t.Fatalf("daemon exited %d\n%s", code, d.Log())
		}
		d = startWorldDaemon(t, w, paneFormat...)
		passes(t, d, 3)
		checkPaneLabel(t, w, d, p1, "notes", "after a daemon restart")

		typePaneName(t, w, tab, p1, "")
		waitPaneLabels(t, w, d, map[string]string{p1: "tee"})
	})
}

// typePaneName renames the only pane of tab at the keyboard: herdr's own
// client on real herdr, the request its modal sends on herdrsim.
func typePaneName(t *testing.T, w world, tab, pane, label string) {
	t.Helper()
	rw, ok := w.(*realWorld)
	if !ok {
		personRenamePane(t, w, pane, label)
		return
	}
	c, err := rw.srv.OpenClient()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}()
	if err := c.RenamePane(tab, label); err != nil {
		t.Fatalf("%v\nserver output:\n%s", err, rw.srv.Output())
	}
}
