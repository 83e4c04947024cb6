package integration

import (
	"github.com/herdrtabrenamer/herdrtabrenamer/claim"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/pluginmanifest"
)

// TestPluginInstall does what `herdr plugin install herdrtabrenamer/
// herdrtabrenamer` does (docs/herdr.md §10): clone the repository, check
// its herdr-plugin.toml, run each [[build]] command in the fresh checkout
// with no herdr environment, then run the startup hook, the event hook and
// the actions as herdr would: argv without a shell, working directory the
// plugin root, a relative program path with "/" resolved against it. The
// clone holds what is committed: that is what herdr would install.
func TestPluginInstall(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH: cannot clone the repository as herdr does")
	}
	root := pluginCheckout(t)
	text, err := os.ReadFile(filepath.Join(root, "herdr-plugin.toml"))
	if err != nil {
		t.Fatalf("herdr plugin install needs herdr-plugin.toml at the repository root: %v", err)
	}
	m, err := pluginmanifest.Parse(string(text))
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != "herdrtabrenamer" || len(m.Build) == 0 {
		t.Fatalf("id %q with %d build commands: want herdrtabrenamer with at least one", m.ID, len(m.Build))
	}
	for i, b := range m.Build {
		runBuild(t, root, i, b.Command)
	}
	bin := filepath.Join(root, "bin", "herdrtabrenamer")
	built, err := os.Stat(bin)
	if err != nil {
		t.Fatalf("the build left no binary at %s: %v", bin, err)
	}
	// Go is on PATH here, so the build compiled the checkout rather than
	// download a release (install_test.go hides Go).
	if out, err := exec.Command(bin, "version").Output(); err != nil || !strings.Contains(string(out), "(go build") {
		t.Errorf("%s version: %q, %v; want the go build channel", bin, out, err)
	}

	// Every command resolves to the built binary and its arguments parse.
	for where, argv := range m.Commands() {
		prog, args := pluginProgram(t, where, argv)
		for _, a := range append([]string{prog}, argv...) {
			if strings.Contains(a, `\`) {
				t.Errorf("%s: %q: use / in paths", where, a)
			}
		}
		fi, err := os.Stat(filepath.Join(root, prog))
		if filepath.IsAbs(prog) || !strings.Contains(prog, "/") || err != nil || !os.SameFile(fi, built) {
			t.Errorf("%s: program %q does not resolve to the built %s against the plugin root", where, prog, bin)
			continue
		}
		cmd := exec.Command(bin, append(args, "--help")...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: %q does not parse: %v\n%s", where, args, err, out)
		}
	}

	// Then as herdr runs them against a server.
	srv := startServer(t)
	sb := newSandbox(t)
	dir := sb.HomePath("proj")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	_, tab, pane := srv.NewWorkspace("work", dir)
	// herdr's plugin environment (docs/herdr.md §11). No poll: after its
	// first pass the daemon renames only on events and nudges.
	env := []string{"HERDR_SOCKET_PATH=" + srv.SocketPath(), "HERDR_ENV=1", "HERDR_PLUGIN_ID=" + m.ID,
		"HERDR_PLUGIN_ROOT=" + root, "HERDRTABRENAMER_POLL=0"}
	lock := claim.InstanceLockPath(srv.SocketPath())
	lock = filepath.Join(sb.Runtime, "herdrtabrenamer", filepath.Base(lock))
	t.Cleanup(func() {
		// The startup hook detaches the daemon; restore stops it, and a
		// failed test must not leave it behind either.
		if pid := claim.HolderPID(lock); pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	runPlugin(t, sb, root, "startup", m.Startup[0].Command, append(env, "HERDR_PLUGIN_EVENT=startup"))
	waitLabel(t, srv, tab, "proj")
	// The startup hook detached the daemon, so fence learns it here.
	daemonOf.Store(srv, fenceTarget{
		sock:  sb.NudgeSocket(srv.SocketPath()),
		alive: func() bool { pid := claim.HolderPID(lock); return pid > 0 && syscall.Kill(pid, 0) == nil },
		log:   func() string { return "(the plugin's daemon logs to herdr, not here)" },
	})

	// Let the passes that our own rename's event causes finish: with no
	// poll, a rename from here on can only come from the hook. (Any pass
	// would see btop, since the simulated pane has no local process to
	// watch, so this fences before the change, not after it.)
	settle(t, srv)
	srv.SetForeground(pane, herdrsim.Proc{Argv: []string{"btop"}})
	if got := label(srv, tab); got != "proj" {
		t.Fatalf("the daemon renamed the tab to %q before any nudge: the test proves nothing", got)
	}
	for _, e := range m.Events {
		if e.On == "pane.agent_status_changed" {
			runPlugin(t, sb, root, "event hook", e.Command, append(env, "HERDR_PLUGIN_EVENT="+e.On, "HERDR_PANE_ID="+pane, "HERDR_TAB_ID="+tab))
		}
	}
	// Only the hook's nudge can tell the daemon that btop started.
	waitLabel(t, srv, tab, "btop")

	pid := claim.HolderPID(lock)
	for _, a := range m.Actions {
		if a.ID == "restore" {
			runPlugin(t, sb, root, "action restore", a.Command, append(env, "HERDR_PLUGIN_ACTION_ID="+a.ID, "HERDR_TAB_ID="+tab))
		}
	}
	waitLabel(t, srv, tab, "1")
	if pid == 0 || !poll(waitTimeout, func() bool { return syscall.Kill(pid, 0) != nil }) {
		t.Errorf("the restore action did not stop the daemon (pid %d)", pid)
	}
}

// settle waits until the daemon serving srv has caught up: two whole
// passes that began after the call are over.
func settle(t *testing.T, srv *herdrsim.Server) {
	t.Helper()
	fence(t, srv, 2)
}

// pluginCheckout clones the repository holding this module into a fresh
// folder, as herdr's installer does.
func pluginCheckout(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	src := filepath.Dir(strings.TrimSpace(string(out)))
	dst := filepath.Join(t.TempDir(), "checkout")
	if b, err := exec.Command("git", "clone", "--quiet", "--no-hardlinks", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("git clone %s: %v\n%s", src, err, b)
	}
	return dst
}

// runBuild runs one [[build]] command in the checkout with no herdr
// variables and no network: the module cache must be enough.
func runBuild(t *testing.T, root string, i int, argv []string) {
	t.Helper()
	goenv := func(key string) string {
		b, err := exec.Command("go", "env", key).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", key, err)
		}
		return strings.TrimSpace(string(b))
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = root
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(),
		"GOCACHE=" + goenv("GOCACHE"), "GOMODCACHE=" + goenv("GOMODCACHE"), "GOPATH=" + goenv("GOPATH"),
		"GOPROXY=off", "GOFLAGS=-mod=readonly", "GOTOOLCHAIN=local"}
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build[%d] %q in %s: %v\n%s", i, argv, root, err, out)
	}
	t.Logf("build[%d] %q: %v", i, argv, time.Since(start).Round(time.Millisecond))
}

// pluginProgram finds the herdrtabrenamer invocation in a command: argv
// itself, or the program a `sh -c SCRIPT NAME PROGRAM ARGS...` wrapper gets
// as $1.
func pluginProgram(t *testing.T, where string, argv []string) (string, []string) {
	t.Helper()
	if argv[0] == "sh" {
		if len(argv) < 5 || argv[1] != "-c" {
			t.Fatalf("%s: %q: want sh -c SCRIPT NAME PROGRAM ARGS...", where, argv)
		}
		return argv[4], argv[5:]
	}
	return argv[0], argv[1:]
}

// runPlugin runs a manifest command as herdr's plugin runtime does, with
// both output pipes captured: it must return, and close them, promptly.
func runPlugin(t *testing.T, sb *sandbox, root, where string, argv, env []string) {
	t.Helper()
	prog := argv[0]
	if strings.Contains(prog, "/") && !filepath.IsAbs(prog) {
		prog = filepath.Join(root, prog)
	}
	cmd := exec.Command(prog, argv[1:]...)
	cmd.Dir = root
	cmd.Env = sb.Environ(env...)
	done := make(chan error, 1)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("%s: start %q: %v", where, argv, err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%s: %q: %v\n%s", where, argv, err, out.String())
		}
	case <-time.After(waitTimeout):
		_ = cmd.Process.Kill()
		t.Fatalf("%s: %q still holds its output after %v", where, argv, waitTimeout)
	}
	t.Logf("%s: %q\n%s", where, argv, out.String())
}
