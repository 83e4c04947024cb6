package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/daemon"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrtest"
	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// statusLines runs status and returns its exit code and the line of each
// check by name, with the fix line that follows it.
func statusLines(t *testing.T, args ...string) (int, map[string]string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(append([]string{"status"}, args...), &out, &errb)
	lines := map[string]string{}
	last := ""
	for _, l := range strings.Split(strings.TrimRight(out.String(), "\n"), "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) >= 2 && (f[0] == "ok" || f[0] == "FIX"):
			last = f[1]
			lines[last] = l
		case len(f) >= 1 && f[0] == "->":
			lines[last] += "\n" + l
		}
	}
	if code != 0 && !strings.Contains(errb.String(), "problem") {
		t.Errorf("status exit %d without a summary on stderr: %q", code, errb.String())
	}
	return code, lines
}

func TestStatusNamesEachProblemWithItsFix(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", dir)
	t.Setenv("XDG_STATE_HOME", dir)
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("HERDR_PANE_ID", "w1:p1")
	t.Setenv("SHELL", "/bin/zsh")
	t.Setenv("HERDRTABRENAMER_HOOKS", "")

	t.Run("nothing running", func(t *testing.T) {
		t.Setenv("HERDR_SOCKET_PATH", filepath.Join(dir, "none.sock"))
		code, l := statusLines(t)
		if code != 1 {
			t.Fatalf("exit %d, want 1", code)
		}
		for name, want := range map[string]string{
			"herdr":  "-> start herdr",
			"daemon": "-> herdrtabrenamer run --apply",
			"hooks":  `eval "$(herdrtabrenamer init zsh)"`,
		} {
			if !strings.HasPrefix(l[name], "FIX") || !strings.Contains(l[name], want) {
				t.Errorf("%s: %q, want a FIX line with %q", name, l[name], want)
			}
		}
		if !strings.HasPrefix(l["config"], "ok") {
			t.Errorf("config: %q, want ok (no file means defaults)", l["config"])
		}
	})

	srv := herdrtest.Start(t)
	sock := srv.SocketPath()
	t.Setenv("HERDR_SOCKET_PATH", sock)
	// What a running daemon holds: the instance lock, filled in the
	// daemon's own format, and the nudge socket.
	if _, err := rundir.Dir(); err != nil {
		t.Fatal(err)
	}
	inst, err := daemon.AcquireInstance(daemon.InstanceLockPath(sock))
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Release()
	ln, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: nudge.SocketPath(sock), Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	t.Setenv("HERDRTABRENAMER_HOOKS", "zsh")

	t.Run("all well", func(t *testing.T) {
		code, l := statusLines(t)
		if code != 0 {
			t.Fatalf("exit %d, want 0: %v", code, l)
		}
		for name, want := range map[string]string{
			"herdr":  "protocol",
			"daemon": fmt.Sprintf("pid %d since ", os.Getpid()),
			"nudge":  nudge.SocketPath(sock),
			"hooks":  "zsh hooks loaded",
		} {
			if !strings.HasPrefix(l[name], "ok") || !strings.Contains(l[name], want) {
				t.Errorf("%s: %q, want ok with %q", name, l[name], want)
			}
		}
	})

	t.Run("broken config", func(t *testing.T) {
		cfg := filepath.Join(dir, "herdrtabrenamer", "config.toml")
		if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cfg, []byte("format = \"{dir}\"\n[[rules]]\ndir = \"~/[a\"\nskip = true\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(cfg)
		code, l := statusLines(t)
		if code != 1 || !strings.HasPrefix(l["config"], "FIX") || !strings.Contains(l["config"], "config.toml:2: rule 1") {
			t.Fatalf("exit %d, config line %q", code, l["config"])
		}
		if err := os.WriteFile(cfg, []byte("format = \"{dir}\nx"), 0o600); err != nil {
			t.Fatal(err)
		}
		code, l = statusLines(t)
		if code != 1 || !strings.Contains(l["config"], "config.toml:1:") {
			t.Fatalf("exit %d, config line %q", code, l["config"])
		}
	})

	t.Run("daemon gone", func(t *testing.T) {
		inst.Release()
		code, l := statusLines(t)
		if code != 1 || !strings.HasPrefix(l["daemon"], "FIX") {
			t.Fatalf("exit %d, daemon line %q", code, l["daemon"])
		}
		// A SIGKILLed daemon leaves its line behind, naming a dead pid.
		dead := exec.Command("true")
		if err := dead.Run(); err != nil {
			t.Fatal(err)
		}
		lock := daemon.InstanceLockPath(sock)
		if err := os.WriteFile(lock, fmt.Appendf(nil, "pid %d since 2026-01-01T00:00:00Z\n", dead.Process.Pid), 0o600); err != nil {
			t.Fatal(err)
		}
		if code, l := statusLines(t); code != 1 || !strings.HasPrefix(l["daemon"], "FIX") {
			t.Fatalf("stale lock: exit %d, daemon line %q", code, l["daemon"])
		}
	})
}

func TestStatusReadsHerdrPluginRegistry(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("HERDR_SOCKET_PATH", filepath.Join(dir, "none.sock"))
	reg := filepath.Join(dir, "herdr", "plugins.json")
	if err := os.MkdirAll(filepath.Dir(reg), 0o700); err != nil {
		t.Fatal(err)
	}
	// The shape herdr writes (InstalledPluginInfo in src/api/schema/plugins.rs).
	const entry = `{"plugin_id":"%s","name":"x","version":"1","manifest_path":"/p/herdr-plugin.toml","plugin_root":"/p","enabled":%v}`
	tests := []struct {
		body, want string
		ok         bool
	}{
		{"[" + fmt.Sprintf(entry, "other", true) + "]", "not installed", true},
		{"[" + fmt.Sprintf(entry, "other", true) + "," + fmt.Sprintf(entry, "herdrtabrenamer", true) + "]", "installed in herdr and enabled", true},
		{"[" + fmt.Sprintf(entry, "herdrtabrenamer", false) + "]", "herdr plugin enable herdrtabrenamer", false},
		{"{not json", "herdr plugin list", false},
	}
	for _, tt := range tests {
		if err := os.WriteFile(reg, []byte(tt.body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, l := statusLines(t)
		if strings.HasPrefix(l["plugin"], "ok") != tt.ok || !strings.Contains(l["plugin"], tt.want) {
			t.Errorf("registry %s: plugin line %q, want ok=%v with %q", tt.body, l["plugin"], tt.ok, tt.want)
		}
	}
}

func TestStatusNamedConfigMissing(t *testing.T) {
	t.Setenv("HERDR_SOCKET_PATH", filepath.Join(t.TempDir(), "none.sock"))
	_, l := statusLines(t, "--config", filepath.Join(t.TempDir(), "gone.toml"))
	if !strings.HasPrefix(l["config"], "FIX") || !strings.Contains(l["config"], "create the file") {
		t.Fatalf("config line %q", l["config"])
	}
}

// The hooks marker names the shell that loaded them and its pid. A shell
// started from a hooked one inherits the marker, not the hooks: status,
// whose parent is that shell, says so, while a parent that is no shell
// (env, time, a script) cannot tell and the marker stands.
func TestHooksVerdictTellsAnInheritedMarker(t *testing.T) {
	t.Setenv("HERDR_PANE_ID", "w1:p1")
	t.Setenv("SHELL", "/bin/zsh")
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
		{"inherited by a bash", "zsh:100", 200, false, "not loaded in this shell (bash, pid 200), only in the zsh it was started from (pid 100)", "~/.bashrc"},
		{"started through env", "zsh:100", 300, true, "zsh hooks loaded in shell 100, which started this command", ""},
		{"no marker", "", 100, false, "not loaded in this shell: renames wait for the next poll", "~/.zshrc"},
	} {
		c := hooksVerdict(tc.marker, tc.ppid, shellName)
		if c.ok != tc.ok || c.found != tc.found || !strings.Contains(c.fix, tc.fix) {
			t.Errorf("%s: %+v; want ok %v, found %q, a fix with %q", tc.name, c, tc.ok, tc.found, tc.fix)
		}
	}
}

// TestStateCheckDoesNotWrite: status looks at the state file and leaves
// it as it was (same inode, same modification time): a check must not
// write.
func TestStateCheckDoesNotWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	sock := "/run/herdr.sock"
	st, _ := state.Load(path, sock)
	if err := st.Edit(func(tabs map[string]state.TabMemory) { tabs["w1:t1"] = state.TabMemory{Label: "a"} }); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond) // an input: a rewrite now has another mtime
	c := stateCheck(path, sock)
	if !c.ok || !strings.Contains(c.found, "1 tabs") {
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
