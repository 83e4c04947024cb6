package integration

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// The TestRealHerdr cases run the built binary against a real herdr 0.8.2
// (integration/realherdr/build.sh builds it) and, as a twin, against
// herdrsim playing the same release, with real shells in both. `go test
// -run RealHerdr ./...` selects exactly them.

// TestRealHerdrNamesProgramsAndDirectories: a shell tab is named after its
// directory; a program typed into it (herdr pane run) names the tab, its
// exit names it back, and a cd renames it.
func TestRealHerdrNamesProgramsAndDirectories(t *testing.T) {
	t.Parallel()
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		dirs := mkdirs(t, w.Sandbox(), "projects/rmk", "opt/nixos", "src/web")
		ws, t1, p1 := w.NewWorkspace(t, dirs[0])
		t2, p2 := w.NewTab(t, ws, dirs[1])
		d := startWorldDaemon(t, w)
		waitWorldLabels(t, w, ws, "rmk", "nixos")

		w.Type(t, p1, "tee")
		waitWorldLabel(t, w, t1, "tee", d.Log)
		w.EOF(t, p1)
		waitWorldLabel(t, w, t1, "rmk", d.Log)

		w.Type(t, p2, "cd "+dirs[2])
		waitWorldLabel(t, w, t2, "web", d.Log)
	})
}

// TestRealHerdrKeepsAPersonsName: a tab a person renamed keeps that name
// while the daemon runs (a program started in it changes nothing), across
// a daemon restart, and across a herdr server stop and start, after which
// herdr restores the session and its names.
func TestRealHerdrKeepsAPersonsName(t *testing.T) {
	t.Parallel()
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		dirs := mkdirs(t, w.Sandbox(), "projects/rmk", "opt/nixos")
		ws, t1, p1 := w.NewWorkspace(t, dirs[0])
		t2, p2 := w.NewTab(t, ws, dirs[1])
		d := startWorldDaemon(t, w)
		waitWorldLabels(t, w, ws, "rmk", "nixos")

		w.PersonRename(t, t1, "notes")
		w.Type(t, p1, "tee")
		w.Type(t, p2, "tee")
		waitWorldLabel(t, w, t2, "tee", d.Log)
		if got := worldLabel(t, w, t1); got != "notes" {
			t.Fatalf("%s: a person's name became %q while tee ran", w.Name(), got)
		}

		if code := d.Stop(); code != 0 {
			t.Fatalf("daemon exited %d\n%s", code, d.Log())
		}
		w.EOF(t, p1)
		w.EOF(t, p2)
		d = startWorldDaemon(t, w)
		waitWorldLabel(t, w, t2, "nixos", d.Log)
		if got := worldLabel(t, w, t1); got != "notes" {
			t.Fatalf("%s: after a daemon restart the person's name became %q", w.Name(), got)
		}

		if code := d.Stop(); code != 0 {
			t.Fatalf("daemon exited %d\n%s", code, d.Log())
		}
		w.Restart(t)
		d = startWorldDaemon(t, w)
		waitWorldLabels(t, w, ws, "notes", "nixos")
		w.PersonRename(t, t2, "build")
		passes(t, d, 3)
		if got := worldLabels(t, w, ws); !slices.Equal(got, []string{"notes", "build"}) {
			t.Fatalf("%s: after a server restart labels = %q, want [notes build]\n%s", w.Name(), got, d.Log())
		}
	})
}

// TestRealHerdrLockReleaseRestore: lock keeps a tab's name while what runs
// in it changes, release lets the daemon name a person's tab again, and
// restore --apply gives every tab we named herdr's number back and leaves
// the person's name.
func TestRealHerdrLockReleaseRestore(t *testing.T) {
	t.Parallel()
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		sb := w.Sandbox()
		dirs := mkdirs(t, sb, "projects/rmk", "opt/nixos", "src/web")
		ws, t1, p1 := w.NewWorkspace(t, dirs[0])
		t2, _ := w.NewTab(t, ws, dirs[1])
		t3, _ := w.NewTab(t, ws, dirs[2])
		d := startWorldDaemon(t, w)
		waitWorldLabels(t, w, ws, "rmk", "nixos", "web")

		cli := func(args ...string) string {
			t.Helper()
			out, stderr, code := runCLI(t, sb, append(args, "--socket", w.Socket(), "--state", sb.StatePath)...)
			if code != 0 {
				t.Fatalf("%s: %v: exit %d: %s", w.Name(), args, code, stderr)
			}
			return out
		}
		cli("lock", t1)
		w.Type(t, p1, "tee")
		passes(t, d, 3)
		if got := worldLabel(t, w, t1); got != "rmk" {
			t.Fatalf("%s: a locked tab became %q", w.Name(), got)
		}
		cli("release", t1)
		waitWorldLabel(t, w, t1, "tee", d.Log)

		w.PersonRename(t, t2, "notes")
		passes(t, d, 2)
		cli("release", t2)
		waitWorldLabel(t, w, t2, "nixos", d.Log)

		w.PersonRename(t, t3, "mine")
		passes(t, d, 2)
		out := cli("restore", "--apply")
		if !d.Exited() && d.Wait(waitTimeout) == -1 {
			t.Fatalf("%s: restore --apply did not stop the daemon\n%s", w.Name(), out)
		}
		waitWorldLabels(t, w, ws, "1", "2", "mine")
	})
}

// TestRealHerdrIndexAfterMoveAndClose: {index} follows tabs as herdr moves
// and closes them, although herdr sends no event for the positions that
// shift.
func TestRealHerdrIndexAfterMoveAndClose(t *testing.T) {
	t.Parallel()
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		dirs := mkdirs(t, w.Sandbox(), "a/rmk", "b/nixos", "c/web")
		ws, t1, _ := w.NewWorkspace(t, dirs[0])
		w.NewTab(t, ws, dirs[1])
		t3, _ := w.NewTab(t, ws, dirs[2])
		d := startWorldDaemon(t, w, "--format", "{index} {dir}")
		waitWorldLabels(t, w, ws, "1 rmk", "2 nixos", "3 web")
		w.MoveTab(t, t3, 0)
		waitWorldLabels(t, w, ws, "1 web", "2 rmk", "3 nixos")
		w.MoveTab(t, t1, 2)
		waitWorldLabels(t, w, ws, "1 web", "2 nixos", "3 rmk")
		w.CloseTab(t, t1)
		waitWorldLabels(t, w, ws, "1 web", "2 nixos")
		_ = d
	})
}

// TestRealHerdrWorkspaceFormat: --workspace-format names a workspace that
// carries herdr's automatic label, and follows its first tab's directory.
func TestRealHerdrWorkspaceFormat(t *testing.T) {
	t.Parallel()
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		dirs := mkdirs(t, w.Sandbox(), "projects/rmk", "opt/nixos")
		ws, _, p1 := w.NewWorkspace(t, dirs[0])
		d := startWorldDaemon(t, w, "--workspace-format", "ws {dir}")
		wsLabel := func() string {
			for _, x := range w.Snapshot(t).Workspaces {
				if x.ID == ws {
					return x.Label
				}
			}
			return ""
		}
		var got string
		if !poll(waitTimeout, func() bool { got = wsLabel(); return got == "ws rmk" }) {
			t.Fatalf("%s: workspace label = %q, want %q\n%s", w.Name(), got, "ws rmk", d.Log())
		}
		w.Type(t, p1, "cd "+dirs[1])
		if !poll(waitTimeout, func() bool { got = wsLabel(); return got == "ws nixos" }) {
			t.Fatalf("%s: workspace label = %q after cd, want %q\n%s", w.Name(), got, "ws nixos", d.Log())
		}
	})
}

// settled waits until the daemon has subscribed and run the full pass
// each subscription asks for, read off its JSON log's full_pass fields: a
// change made after it is news to a daemon with nothing else under way.
func settled(t *testing.T, d *daemonProc) {
	t.Helper()
	count := func(v string) int { return len(jsonLogLines(d.Log(), "full_pass", v)) }
	if !poll(waitTimeout, func() bool { asked := count("asked"); return asked > 0 && count("done") == asked }) {
		t.Fatalf("the daemon never finished the full pass after subscribing\n%s", d.Log())
	}
}

// jsonLogLines are the lines of a JSON log whose key has value v.
func jsonLogLines(log, key, v string) []map[string]any {
	var out []map[string]any
	for _, line := range strings.Split(log, "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m[key] == v {
			out = append(out, m)
		}
	}
	return out
}

// passes waits until the daemon has finished n more passes than when
// called, so that a check that nothing changed has given it the chance.
// It counts the JSON log's pass summaries by their local_reads field
// (startWorldDaemon logs JSON at debug level).
func passes(t *testing.T, d *daemonProc, n int) {
	t.Helper()
	count := func() int {
		c := 0
		for _, line := range strings.Split(d.Log(), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) == nil && m["local_reads"] != nil {
				c++
			}
		}
		return c
	}
	start := count()
	if !poll(waitTimeout, func() bool { return count() >= start+n }) {
		t.Fatalf("the daemon finished %d passes, want %d more\n%s", count()-start, n, d.Log())
	}
}

// TestRealHerdrShellHooks: with the `init` snippet in the rc file of zsh,
// bash or fish as the panes' shell, a program typed at the prompt is named
// by the preexec nudge, and its exit by the precmd nudge. The daemon does
// not poll (--poll 0) nor watch local shells (--no-local-watch), and herdr
// sends no event when a program starts, so only the hooks can bring these
// renames.
func TestRealHerdrShellHooks(t *testing.T) {
	t.Parallel()
	onShells(t, []string{"zsh", "bash", "fish"}, func(t *testing.T, name string, w world) {
		sb := w.Sandbox()
		writeRC(t, sb, name)
		dirs := mkdirs(t, sb, "projects/rmk")
		_, tab, pane := w.NewWorkspace(t, dirs[0])
		d := startWorldDaemon(t, w, "--poll", "0", "--no-local-watch")
		waitWorldLabel(t, w, tab, "rmk", d.Log)
		settled(t, d)
		w.Type(t, pane, "tee")
		waitWorldLabel(t, w, tab, "tee", d.Log)
		w.EOF(t, pane)
		waitWorldLabel(t, w, tab, "rmk", d.Log)
	})
}

// onShells runs c in each world (onWorlds) with each of shells as the
// panes' shell, skipping a shell not on PATH.
func onShells(t *testing.T, shells []string, c func(t *testing.T, shell string, w world)) {
	for _, name := range shells {
		t.Run(name, func(t *testing.T) {
			sh, err := exec.LookPath(name)
			if err != nil {
				t.Skipf("%s not on PATH", name)
			}
			onWorlds(t, worldOptions{Shell: sh}, func(t *testing.T, w world) { c(t, name, w) })
		})
	}
}

// TestRealHerdrLocalWatch: zsh and bash with no hooks and no terminal
// title, as shipped: a program typed at the prompt, its end and a cd each
// rename the tab, though the daemon does not poll (--poll 0) and herdr
// tells of none of them. The kernel does (--local-watch, the default):
// each rename follows a report of the watch.
func TestRealHerdrLocalWatch(t *testing.T) {
	t.Parallel()
	onShells(t, []string{"zsh", "bash"}, func(t *testing.T, name string, w world) {
		sb := w.Sandbox()
		writePlainRC(t, sb, name)
		dirs := mkdirs(t, sb, "projects/rmk", "projects/rmk/sub")
		_, tab, pane := w.NewWorkspace(t, dirs[0])
		d := startWorldDaemon(t, w, "--poll", "0")
		waitWorldLabel(t, w, tab, "rmk", d.Log)
		settled(t, d)
		for _, step := range []struct {
			do   func()
			want string
		}{
			{func() { w.Type(t, pane, "tee") }, "tee"},
			{func() { w.EOF(t, pane) }, "rmk"},
			{func() { w.Type(t, pane, "cd sub") }, "sub"},
		} {
			watched := len(testutil.Traced(d.Log(), "watched"))
			step.do()
			waitWorldLabel(t, w, tab, step.want, d.Log)
			// The pass that renamed may be one an earlier report asked
			// for, with the report of this change on its way.
			if !poll(waitTimeout, func() bool { return len(testutil.Traced(d.Log(), "watched")) > watched }) {
				t.Fatalf("%s: the tab became %q with no report of the local watch\n%s", w.Name(), step.want, d.Log())
			}
		}
	})
}

// writePlainRC gives shell a prompt and nothing else: no hooks, no title.
func writePlainRC(t *testing.T, sb *sandbox, shell string) {
	t.Helper()
	switch shell {
	case "zsh":
		writeFile(t, sb.HomePath(".zshrc"), "PROMPT='READY> '\n")
	case "bash":
		writeFile(t, sb.HomePath(".bashrc"), "PS1='READY> '\n")
	default:
		t.Fatalf("no rc file known for %s", shell)
	}
}

// writeRC puts the hook snippet in shell's rc file in sb's home, where an
// interactive shell of that user reads it.
func writeRC(t *testing.T, sb *sandbox, shell string) {
	t.Helper()
	var path, body string
	switch shell {
	case "zsh":
		path = sb.HomePath(".zshrc")
		body = "PROMPT='READY> '\neval \"$('" + binPath + "' init zsh)\"\n"
	case "bash":
		path = sb.HomePath(".bashrc")
		body = "PS1='READY> '\neval \"$('" + binPath + "' init bash)\"\n"
	case "fish":
		path = filepath.Join(sb.ConfigHome, "fish", "config.fish")
		body = "'" + binPath + "' init fish | source\n"
	default:
		t.Fatalf("no rc file known for %s", shell)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, body)
}

// TestRealHerdrAgentStatusMovesTheIcon: an agent integration reports a
// pane's agent and its status with pane.report_agent (what herdr's hook
// for Claude Code does), and the tab's {icon} follows each status: the
// daemon learns of the new agent pane from herdr's pane.agent_detected
// event and follows its status from then on, with no plugin hook and no
// full poll (--poll 0): by the status poll, which runs while the agent
// works and after its terminal read input: the prompt that starts it
// working, a person's answer that ends a block (typed here where a person
// would). It subscribes to no pane: herdr would read that pane ten times
// a second for it (docs/herdr.md §7).
func TestRealHerdrAgentStatusMovesTheIcon(t *testing.T) {
	t.Parallel()
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		dirs := mkdirs(t, w.Sandbox(), "projects/rmk")
		_, tab, pane := w.NewWorkspace(t, dirs[0])
		relay := startRequestRelay(t, t.TempDir(), w.Socket())
		d := startDaemonAt(t, w, relay.path, "--format", "{icon}{proc|dir}", "--poll", "0")
		waitWorldLabel(t, w, tab, "rmk", d.Log)
		settled(t, d)
		client := herdr.New(w.Socket(), herdr.WithTimeout(10*time.Second))
		for _, st := range []struct {
			state, want string
			typed       bool // a person's input comes first
		}{
			{"working", "🟡rmk", true}, {"blocked", "🔴rmk", false}, {"idle", "⚪rmk", true}, {"working", "🟡rmk", true},
		} {
			if st.typed {
				w.Type(t, pane, "true")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err := client.Call(ctx, "pane.report_agent", map[string]any{
				"pane_id": pane, "source": "herdrtabrenamer-test", "agent": "claude", "state": st.state}, nil)
			cancel()
			if err != nil {
				t.Fatalf("%s: pane.report_agent %s: %v", w.Name(), st.state, err)
			}
			waitWorldLabel(t, w, tab, st.want, d.Log)
		}
		subs := relay.requests("events.subscribe")
		if len(subs) == 0 {
			t.Fatalf("%s: the daemon never subscribed", w.Name())
		}
		for _, s := range subs {
			if strings.Contains(s, "pane_id") {
				t.Fatalf("%s: the daemon subscribed to a pane: %s", w.Name(), s)
			}
		}
	})
}
