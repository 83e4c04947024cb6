//go:build linux

package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// TestRealHerdrUnlistedShellShowsItsDirectory: the panes' shell is one
// the shell list does not name (a copy of bash called mysh, the panes'
// $SHELL). At its prompt it is the pane's shell all the same: the tab
// shows its folder, at the daemon's first pass, in a tab made while the
// daemon runs and after a cd, and never the shell's own name. A program
// it runs names the tab, and so does one it execs, before the daemon
// started or while it runs.
func TestRealHerdrUnlistedShellShowsItsDirectory(t *testing.T) {
	t.Parallel()
	mysh := unlistedShell(t, "mysh")
	onWorlds(t, worldOptions{Shell: mysh}, func(t *testing.T, w world) {
		writePlainRC(t, w.Sandbox(), "bash")
		dirs := mkdirs(t, w.Sandbox(), "projects/rmk", "projects/rmk/sub", "projects/web")
		ws, tab, pane := w.NewWorkspace(t, dirs[0])
		shell := paneShell(t, w, pane)
		waitPromptOf(t, w, shell, false, "mysh")
		// A shell that exec'd before the daemon started.
		execTab, execPane := w.NewTab(t, ws, dirs[2])
		execShell := paneShell(t, w, execPane)
		waitPromptOf(t, w, execShell, false, "mysh")
		w.Type(t, execPane, "exec sleep 300")
		testutil.WaitFor(t, "the exec", func() bool { return procComm(execShell) == "sleep" })
		d := freshDaemon(t, w, "--format", "{proc|dir}")
		waitWorldLabel(t, w, tab, "rmk", d.Log)
		waitWorldLabel(t, w, execTab, "sleep", d.Log)
		tab2, pane2 := w.NewTab(t, ws, dirs[2])
		waitPromptOf(t, w, paneShell(t, w, pane2), false, "mysh")
		waitWorldLabel(t, w, tab2, "web", d.Log)

		freshFollow(t, w, d, "cd sub", tab, "sub", typing(t, w, pane, "cd sub"),
			func() bool { return procCwd(shell) == dirs[1] })
		waitPromptOf(t, w, shell, false, "mysh")
		freshFollow(t, w, d, "a program", tab, "sleep", typing(t, w, pane, "sleep 300"),
			func() bool { l := frontLeader(shell); return l != shell && procComm(l) == "sleep" })
		freshFollow(t, w, d, "back at the prompt", tab, "sub", interrupting(t, w, pane),
			func() bool { return frontLeader(shell) == shell })
		waitPromptOf(t, w, shell, false, "mysh")
		freshFollow(t, w, d, "exec sleep", tab, "sleep", typing(t, w, pane, "exec sleep 300"),
			func() bool { return procComm(shell) == "sleep" })
		for _, m := range daemonRecords(d) {
			if m["new"] == "mysh" {
				t.Fatalf("%s: the daemon named tab %v after the shell: %v\n%s", w.Name(), m["tab"], m, d.Log())
			}
		}
	})
}

// unlistedShell copies bash to a folder of the test's as name, a shell
// the shell list does not know, and returns its path.
func unlistedShell(t *testing.T, name string) string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on PATH")
	}
	data, err := os.ReadFile(bash)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o755); err != nil {
		t.Fatal(fmt.Errorf("copy %s to %s: %w", bash, path, err))
	}
	return path
}
