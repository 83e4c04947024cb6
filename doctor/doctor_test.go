package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// The hooks marker names the shell that loaded them and its pid. A shell
// started from a hooked one inherits the marker, not the hooks: status,
// whose parent is that shell, says so, while a parent that is no shell
// (env, time, a script) cannot tell and the marker stands.
func TestHooksVerdictTellsAnInheritedMarker(t *testing.T) {
	shells := map[int]string{100: "zsh", 200: "bash"}
	shellName := func(pid int) string { return shells[pid] }
	for _, tc := range []struct {
		name, marker string
		ppid         int
		ok           bool
		found, fix   string
	}{
		{"loaded in the parent shell", "zsh:100", 100, true, "zsh hooks loaded in this shell", ""},
		{"marker of an older snippet", "zsh", 200, true, "zsh hooks loaded in this shell", ""},
		{"inherited by a bash", "zsh:100", 200, false, "not loaded in this shell (bash, pid 200), only in the zsh it was started from (pid 100): renames wait for the next poll", "~/.bashrc"},
		{"started through env", "zsh:100", 300, true, "zsh hooks loaded in shell 100, which started this command", ""},
		{"no marker", "", 100, false, "not loaded in this shell: renames wait for the next poll", "~/.zshrc"},
	} {
		env := map[string]string{"HERDR_PANE_ID": "w1:p1", "SHELL": "/bin/zsh", "HERDRTABRENAMER_HOOKS": tc.marker}
		getenv := func(k string) string { return env[k] }
		c := hooksVerdict(getenv, tc.ppid, shellName, false)
		if c.OK != tc.ok || c.Found != tc.found || !strings.Contains(c.Fix, tc.fix) {
			t.Errorf("%s: %+v; want ok %v, found %q, a fix with %q", tc.name, c, tc.ok, tc.found, tc.fix)
		}
	}
}

// With the local watch, a shell without hooks is renamed at once anyway:
// their absence is no problem, and status says why, with the line that
// adds them.
func TestHooksVerdictWithTheLocalWatch(t *testing.T) {
	env := map[string]string{"HERDR_PANE_ID": "w1:p1", "SHELL": "/bin/bash"}
	c := hooksVerdict(func(k string) string { return env[k] }, 100, func(int) string { return "bash" }, true)
	if !c.OK || !strings.Contains(c.Found, "local watch") || !strings.Contains(c.Found, "~/.bashrc") {
		t.Fatalf("hooks check %+v; want ok, naming the local watch and the optional line", c)
	}
}

// TestStateCheckDoesNotWrite: status looks at the state file and leaves
// it as it was (same inode, same modification time): a check must not
// write.
func TestStateCheckDoesNotWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	sock := "/run/herdr.sock"
	st, _ := state.Load(path, sock)
	if err := st.Edit(func(tx *state.Tx) { tx.Named(state.TabTarget("w1:t1"), "a") }); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond) // an input: a rewrite now has another mtime
	c := stateCheck(path, sock)
	if !c.OK || !strings.Contains(c.Found, "1 tabs") {
		t.Fatalf("stateCheck = %+v, want ok with 1 tab", c)
	}
	after, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) || !before.ModTime().Equal(after.ModTime()) {
		t.Fatalf("status rewrote the state file (inode or mtime changed)")
	}
}
