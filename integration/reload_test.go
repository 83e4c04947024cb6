package integration

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SIGHUP re-reads the config file: a new format renames our tabs; a
// broken file is reported and the old configuration keeps running.
func TestSIGHUPReloadsConfig(t *testing.T) {
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
	if !poll(waitTimeout, func() bool { return strings.Contains(d.Log(), "reload failed") }) {
		t.Fatalf("a broken config on SIGHUP was not reported:\n%s", d.Log())
	}
	if !strings.Contains(d.Log(), "empty alternative") {
		t.Errorf("reload error does not say what is wrong:\n%s", d.Log())
	}
	quiet(t, srv, 300*time.Millisecond)
	waitLabels(t, srv, "1:api")
}
