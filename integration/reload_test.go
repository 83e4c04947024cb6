package integration

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// SIGHUP re-reads the config file: a new format renames our tabs; a
// broken file is reported and the old configuration keeps running.
func TestSIGHUPReloadsConfig(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	sb := newSandbox(t)
	cfg := filepath.Join(sb.ConfigHome, "reload.toml")
	writeFile(t, cfg, "format = \"{dir}\"\n")
	srv.NewWorkspace("main", sb.HomePath("api"))
	d := startDaemonIn(t, sb, srv, "--config", cfg)
	waitLabels(t, srv, "api")

	writeFile(t, cfg, "format = \"{number}:{dir}\"\n")
	if err := d.Cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	waitLabels(t, srv, "1:api")

	writeFile(t, cfg, "format = \"{proc|}\"\n")
	if err := d.Cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if !poll(waitTimeout, func() bool { return len(testutil.Traced(d.Log(), "reload_failed")) > 0 }) {
		t.Fatalf("a broken config on SIGHUP was not reported:\n%s", d.Log())
	}
	if failed := testutil.Traced(d.Log(), "reload_failed"); len(failed) != 1 || !strings.Contains(failed[0], "empty alternative") {
		t.Errorf("reload error does not say what is wrong:\n%s", d.Log())
	}
	quiet(t, srv, 300*time.Millisecond)
	waitLabels(t, srv, "1:api")
}

// SIGHUP honours a new log-level: the daemon, and its herdr client, log at
// the level the reloaded config asks for. A new log-format needs a
// restart, and the reload says so.
func TestSIGHUPReloadsTheLogLevel(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	sb := newSandbox(t)
	cfg := filepath.Join(sb.ConfigHome, "reload.toml")
	writeFile(t, cfg, "format = \"{dir}\"\nlog-level = \"error\"\nlog-format = \"json\"\n")
	srv.NewWorkspace("main", sb.HomePath("api"))
	d := startDaemonIn(t, sb, srv, "--config", cfg)
	waitLabels(t, srv, "api")
	debugLines := func() int { return strings.Count(d.Log(), `"level":"DEBUG"`) }
	if n := debugLines(); n != 0 {
		t.Fatalf("%d debug lines at log-level error:\n%s", n, d.Log())
	}
	writeFile(t, cfg, "format = \"{dir}\"\nlog-level = \"debug\"\nlog-format = \"text\"\n")
	if err := d.Cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	srv.NewTab(srv.Snapshot().Workspaces[0].ID, sb.HomePath("web"))
	waitLabels(t, srv, "api", "web")
	if !poll(waitTimeout, func() bool { return debugLines() > 0 }) {
		t.Fatalf("no debug line after a reload to log-level debug:\n%s", d.Log())
	}
	if len(jsonLogLines(d.Log(), "asked", "text")) != 1 {
		t.Errorf("the reload did not say the log format needs a restart (one line with asked=text):\n%s", d.Log())
	}
}
