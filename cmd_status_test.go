package main

import (
	"bytes"
	"fmt"
	"github.com/herdrtabrenamer/herdrtabrenamer/claim"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrtest"
	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
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
		// Without the local watch, missing hooks make renames wait.
		t.Setenv("HERDRTABRENAMER_LOCAL_WATCH", "false")
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
	inst, err := claim.AcquireInstance(claim.InstanceLockPath(sock))
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
		lock := claim.InstanceLockPath(sock)
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

// runRefuses runs `run` as a person would and returns its exit code and
// the error it stops with.
func runRefuses(t *testing.T) (int, string) {
	t.Helper()
	var errb bytes.Buffer
	code := Main([]string{"run"}, &bytes.Buffer{}, &errb)
	msg := strings.TrimPrefix(strings.TrimSpace(errb.String()), "herdrtabrenamer: ")
	return code, msg
}

// statusSetup gives a test its own folders and a herdr socket path; herdr
// need not run for these checks.
func statusSetup(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, v := range []string{"XDG_RUNTIME_DIR", "XDG_STATE_HOME", "XDG_CONFIG_HOME"} {
		t.Setenv(v, filepath.Join(dir, v))
		if err := os.Mkdir(filepath.Join(dir, v), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HERDR_SOCKET_PATH", filepath.Join(dir, "herdr.sock"))
	return dir
}

// TestStatusAgreesWithRunOnConfig: each configuration `run` refuses is a
// FIX in status, with run's own error.
func TestStatusAgreesWithRunOnConfig(t *testing.T) {
	tests := []struct {
		name, body string
		env        []string
	}{
		{"format", "format = \"{nope}\"\n", nil},
		{"workspace-format", "workspace-format = \"{nope}\"\n", nil},
		{"max-len", "max-len = -1\n", nil},
		{"icons", "icons = \"bogus\"\n", nil},
		{"alias", "alias = \"bogus\"\n", nil},
		{"workspace", "workspace = \"bogus\"\n", nil},
		{"poll", "poll = \"1ns\"\n", nil},
		{"settle", "settle = \"-1s\"\n", nil},
		{"format with rules", "format = \"{nope}\"\n[[rules]]\ndir = \"/a\"\nskip = true\n", nil},
		{"no file, a bad environment variable", "", []string{"HERDRTABRENAMER_MAX_LEN", "-2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := statusSetup(t)
			// A runtime folder run cannot use: should it accept the
			// config, it stops there instead of running on.
			blocker := filepath.Join(dir, "not-a-folder")
			if err := os.WriteFile(blocker, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv("XDG_RUNTIME_DIR", blocker)
			if tt.body != "" {
				cfg := filepath.Join(dir, "XDG_CONFIG_HOME", "herdrtabrenamer", "config.toml")
				if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(cfg, []byte(tt.body), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if tt.env != nil {
				t.Setenv(tt.env[0], tt.env[1])
			}
			code, refusal := runRefuses(t)
			if code != 2 || refusal == "" {
				t.Fatalf("run: exit %d %q, want 2 and an error", code, refusal)
			}
			code, l := statusLines(t)
			if code != 1 || !strings.HasPrefix(l["config"], "FIX") || !strings.Contains(l["config"], refusal) {
				t.Fatalf("status: exit %d, config line %q; run said %q", code, l["config"], refusal)
			}
		})
	}
}

// TestStatusAgreesWithRunOnRuntimeFolder: a runtime folder run refuses is
// a FIX in status with run's own error, and nothing in status suggests
// starting the daemon there. status looks without writing: a loose mode
// that run would tighten stays as it was.
func TestStatusAgreesWithRunOnRuntimeFolder(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, parent string) // makes parent/herdrtabrenamer
	}{
		{"a symlink", func(t *testing.T, parent string) {
			if err := os.Symlink(t.TempDir(), filepath.Join(parent, rundir.Name)); err != nil {
				t.Fatal(err)
			}
		}},
		{"another user's", func(t *testing.T, parent string) {
			if os.Geteuid() != 0 {
				t.Skip("needs root to give a folder away")
			}
			dir := filepath.Join(parent, rundir.Name)
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(dir, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}},
		{"a file", func(t *testing.T, parent string) {
			if err := os.WriteFile(filepath.Join(parent, rundir.Name), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"no HOME and no XDG_RUNTIME_DIR", func(t *testing.T, _ string) {
			t.Setenv("XDG_RUNTIME_DIR", "")
			t.Setenv("XDG_CACHE_HOME", "")
			t.Setenv("HOME", "")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := statusSetup(t)
			tt.setup(t, filepath.Join(dir, "XDG_RUNTIME_DIR"))
			code, refusal := runRefuses(t)
			if code == 0 || refusal == "" {
				t.Fatalf("run: exit %d %q, want a refusal", code, refusal)
			}
			var out bytes.Buffer
			Main([]string{"status"}, &out, &bytes.Buffer{})
			_, l := statusLines(t)
			if !strings.HasPrefix(l["runtime"], "FIX") || !strings.Contains(l["runtime"], refusal) {
				t.Errorf("runtime line %q; run said %q", l["runtime"], refusal)
			}
			if strings.Contains(out.String(), "run --apply") || strings.Contains(out.String(), " at  (") {
				t.Errorf("status suggests a run that cannot start, or shows an empty path:\n%s", out.String())
			}
		})
	}
	t.Run("a loose mode run tightens", func(t *testing.T) {
		dir := statusSetup(t)
		rt := filepath.Join(dir, "XDG_RUNTIME_DIR", rundir.Name)
		if err := os.Mkdir(rt, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(rt, 0o755); err != nil {
			t.Fatal(err)
		}
		_, l := statusLines(t)
		if !strings.HasPrefix(l["runtime"], "ok") {
			t.Errorf("runtime line %q, want ok: run makes it private and goes on", l["runtime"])
		}
		if fi, err := os.Stat(rt); err != nil || fi.Mode().Perm() != 0o755 {
			t.Errorf("status changed the folder's mode: %v %v", fi.Mode(), err)
		}
	})
}

// TestStatusAgreesWithNudgeOnItsSocket: a file or a folder where the
// nudge socket belongs fails every nudge (exit 3), and status says so
// while the daemon's lock is held.
func TestStatusAgreesWithNudgeOnItsSocket(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(path string) error
	}{
		{"a file", func(p string) error { return os.WriteFile(p, nil, 0o600) }},
		{"a folder", func(p string) error { return os.Mkdir(p, 0o700) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			statusSetup(t)
			t.Setenv("XDG_RUNTIME_DIR", shortTempDir(t)) // a socket path fits in 108 bytes
			sock := os.Getenv("HERDR_SOCKET_PATH")
			if _, err := rundir.Dir(); err != nil {
				t.Fatal(err)
			}
			inst, err := claim.AcquireInstance(claim.InstanceLockPath(sock))
			if err != nil {
				t.Fatal(err)
			}
			defer inst.Release()
			if err := tc.make(nudge.SocketPath(sock)); err != nil {
				t.Fatal(err)
			}
			var errb bytes.Buffer
			if code := Main([]string{"nudge", "w1:p1"}, &bytes.Buffer{}, &errb); code != 3 {
				t.Fatalf("nudge: exit %d %s, want 3", code, errb.String())
			}
			_, l := statusLines(t)
			if !strings.HasPrefix(l["daemon"], "ok") || !strings.HasPrefix(l["nudge"], "FIX") {
				t.Fatalf("daemon line %q, nudge line %q; want the daemon ok and the nudge a FIX", l["daemon"], l["nudge"])
			}
		})
	}
}

// shortTempDir is a temporary folder with a short path.
func shortTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "htr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// TestStatusShowsTheDaemonsLastReload: a daemon that refuses the config
// on SIGHUP keeps running on the old one, and status says so until a
// reload succeeds.
func TestStatusShowsTheDaemonsLastReload(t *testing.T) {
	dir := statusSetup(t)
	t.Setenv("XDG_RUNTIME_DIR", shortTempDir(t))
	srv := herdrtest.Start(t)
	t.Setenv("HERDR_SOCKET_PATH", srv.SocketPath())
	cfg := filepath.Join(dir, "XDG_CONFIG_HOME", "herdrtabrenamer", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		t.Fatal(err)
	}
	writeCfg := func(body string) {
		if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeCfg("format = \"{dir}\"\n")
	daemonProc := exec.Command("herdrtabrenamer", "run")
	if err := daemonProc.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = daemonProc.Process.Signal(syscall.SIGTERM)
		_ = daemonProc.Wait()
	}()
	line := func(name string) string { _, l := statusLines(t); return l[name] }
	waitFor(t, "the daemon to start", func() bool {
		return strings.Contains(line("daemon"), fmt.Sprintf("pid %d ", daemonProc.Process.Pid))
	})

	writeCfg("format = \"{nope}\"\n")
	if err := daemonProc.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "status to show the refused reload", func() bool {
		l := line("reload")
		return strings.HasPrefix(l, "FIX") && strings.Contains(l, `unknown token "nope"`)
	})
	if l := line("daemon"); !strings.HasPrefix(l, "ok") {
		t.Errorf("daemon line %q: it runs on, with its old configuration", l)
	}

	writeCfg("format = \"{proc}\"\n")
	if err := daemonProc.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "status to show the reload that worked", func() bool {
		return strings.HasPrefix(line("reload"), "ok")
	})
}

// waitFor polls cond until it holds; a test that never sees it fails
// after a while, however slow the machine.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// The local watch is on unless the environment or the config file turns
// it off, as run reads them: status takes it from options built as run
// builds them.
func TestLocalWatchOnFollowsEnvAndConfig(t *testing.T) {
	for _, tc := range []struct {
		name, env, file string
		want            bool
	}{
		{"default", "", "", true},
		{"config off", "", "local-watch = false\n", false},
		{"env off", "false", "", false},
		{"env on over config off", "true", "local-watch = false\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			statusSetup(t)
			path := filepath.Join(t.TempDir(), "config.toml")
			if err := os.WriteFile(path, []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv("HERDRTABRENAMER_CONFIG", path)
			if tc.env != "" {
				t.Setenv("HERDRTABRENAMER_LOCAL_WATCH", tc.env)
			}
			opt, err := buildAsRun(&Globals{})
			if err != nil {
				t.Fatal(err)
			}
			if got := opt.Naming.LocalWatch; got != tc.want {
				t.Fatalf("local watch %v, want %v", got, tc.want)
			}
		})
	}
}
