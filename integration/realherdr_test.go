package integration

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// TestRealHerdr runs the daemon against a real headless herdr server when
// one is available ($HERDR_BIN, else `herdr` on PATH): tabs created through
// herdr's API get their directories' names.
func TestRealHerdr(t *testing.T) {
	bin := os.Getenv("HERDR_BIN")
	if bin == "" {
		var err error
		if bin, err = exec.LookPath("herdr"); err != nil {
			t.Skip("no herdr on PATH and HERDR_BIN unset: real-herdr test skipped")
		}
	}
	sb := newSandbox(t)
	// herdr puts its socket in $XDG_CONFIG_HOME/herdr (docs/herdr.md §2): keep
	// that path short for sun_path.
	cfg, err := os.MkdirTemp("", "hc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(cfg) })
	sock := filepath.Join(cfg, "herdr", "herdr.sock")
	env := append(sb.Environ("XDG_CONFIG_HOME="+cfg, "SHELL=/bin/sh"), "HERDR_SOCKET_PATH="+sock)

	server := exec.Command(bin, "server")
	server.Env = env
	server.Dir = sb.Home
	logBuf := &syncBuffer{}
	server.Stdout, server.Stderr = logBuf, logBuf
	if err := server.Start(); err != nil {
		t.Fatalf("start %s server: %v", bin, err)
	}
	serverDone := make(chan struct{})
	go func() { _ = server.Wait(); close(serverDone) }()
	t.Cleanup(func() {
		_ = server.Process.Signal(syscall.SIGTERM)
		select {
		case <-serverDone:
		case <-time.After(waitTimeout):
			_ = server.Process.Kill()
			<-serverDone
		}
	})

	client := herdr.New(sock, herdr.WithTimeout(5*time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if !poll(waitTimeout, func() bool { _, err := client.Ping(ctx); return err == nil }) {
		t.Fatalf("herdr server did not answer ping at %s\nlog:\n%s", sock, logBuf.String())
	}

	dirs := []string{sb.HomePath("projects", "rmk"), sb.HomePath("opt", "nixos")}
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	var ws json.RawMessage
	if err := client.Call(ctx, "workspace.create", map[string]any{"cwd": dirs[0], "label": "it"}, &ws); err != nil {
		t.Fatalf("workspace.create: %v", err)
	}
	wsID := findString(ws, "workspace_id")
	if wsID == "" {
		t.Fatalf("workspace.create answered no workspace_id: %s", ws)
	}
	var tab json.RawMessage
	if err := client.Call(ctx, "tab.create", map[string]any{"cwd": dirs[1], "workspace_id": wsID}, &tab); err != nil {
		t.Fatalf("tab.create: %v", err)
	}

	d := spawnDaemon(t, sb, nil, "run", "--apply", "--socket", sock, "--state", sb.StatePath, "--poll", "200ms", "--debounce", "20ms")
	t.Cleanup(func() {
		if code := d.Stop(); code != 0 {
			t.Errorf("daemon exited %d\n%s", code, d.Log())
		}
	})
	want := []string{"rmk", "nixos"}
	var got []string
	ok := poll(30*time.Second, func() bool {
		snap, err := client.Snapshot(ctx)
		if err != nil {
			return false
		}
		got = got[:0]
		for _, tb := range snap.Tabs {
			if tb.WorkspaceID == wsID {
				got = append(got, tb.Label)
			}
		}
		return slices.Equal(got, want)
	})
	if !ok {
		t.Fatalf("real herdr tab labels = %q, want %q\ndaemon log:\n%s", got, want, d.Log())
	}
}

// findString finds the first string value under key anywhere in raw JSON.
func findString(raw json.RawMessage, key string) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	var walk func(any) string
	walk = func(v any) string {
		switch v := v.(type) {
		case map[string]any:
			if s, ok := v[key].(string); ok {
				return s
			}
			for _, x := range v {
				if s := walk(x); s != "" {
					return s
				}
			}
		case []any:
			for _, x := range v {
				if s := walk(x); s != "" {
					return s
				}
			}
		}
		return ""
	}
	return walk(v)
}
