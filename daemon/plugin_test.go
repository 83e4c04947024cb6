package daemon

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/pass"
	"github.com/herdrtabrenamer/herdrtabrenamer/plugintie"

	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// TestTiedDaemonFollowsItsPlugin: a daemon started by a plugin's startup
// hook ends (Run returns nil) when herdr's registry no longer lists the
// plugin, when it lists it disabled, and when herdr's socket is gone; it
// asks herdr only when the registry file changed.
func TestTiedDaemonFollowsItsPlugin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		end  func(srv *rawServer, set func(...map[string]any), registry string)
	}{
		{"unlinked", func(_ *rawServer, set func(...map[string]any), reg string) {
			set(make([]map[string]any, 0)...)
			writeRegistry(t, reg, "{}")
		}},
		{"disabled", func(_ *rawServer, set func(...map[string]any), reg string) {
			set(map[string]any{"plugin_id": "htr", "enabled": false})
			writeRegistry(t, reg, `{"htr":{"enabled":false}}`)
		}},
		{"herdr stopped", func(srv *rawServer, _ func(...map[string]any), _ string) {
			srv.ln.Close() // a unix listener's Close removes its socket
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := startRawServer(t)
			var mu sync.Mutex
			listed := []map[string]any{{"plugin_id": "htr", "enabled": true}}
			set := func(p ...map[string]any) { mu.Lock(); listed = p; mu.Unlock() }
			srv.plugins = func() []map[string]any { mu.Lock(); defer mu.Unlock(); return listed }
			reg := filepath.Join(t.TempDir(), "plugins.json")
			writeRegistry(t, reg, `{"htr":{"enabled":true}}`)
			d := tiedDaemon(t, srv.path, plugintie.Plugin{ID: "htr", Registry: reg})
			done := make(chan error, 1)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() { done <- d.Run(ctx, nil) }()
			waitFor(t, "the first plugin.list", func() bool { return srv.count("plugin.list") == 1 })
			waitFor(t, "passes after it", func() bool { return srv.count("session.snapshot") >= 3 })
			if n := srv.count("plugin.list"); n != 1 {
				t.Fatalf("plugin.list asked %d times with the registry unchanged, want 1", n)
			}
			tt.end(srv, set, reg)
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("Run = %v, want nil", err)
				}
			case <-time.After(plugintie.OrphanAfter + 20*time.Second):
				t.Fatal("the daemon kept running without its plugin")
			}
		})
	}
}

func writeRegistry(t *testing.T, path, body string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil { // as herdr saves it
		t.Fatal(err)
	}
}

// tiedDaemon is a daemon for sock, polling fast, tied to p.
func tiedDaemon(t *testing.T, sock string, p plugintie.Plugin) *Daemon {
	t.Helper()
	nm, err := namer.New(namer.Config{Format: "{dir}", Home: home})
	if err != nil {
		t.Fatal(err)
	}
	procs, err := procinfo.New(procinfo.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := New(Options{Socket: sock, Naming: pass.Config{Namer: nm, Procs: procs}, Plugin: p,
		Poll: 20 * time.Millisecond, Debounce: 10 * time.Millisecond, Timeout: 2 * time.Second,
		Log: slog.New(slog.DiscardHandler), Out: &syncBuffer{}})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A plugin.list that fails (herdr cannot read its registry) is asked again
// at the registry's next change or a minute later, not at every check.
func TestTiedFailedListWaits(t *testing.T) {
	t.Parallel()
	srv := startRawServer(t)
	srv.plugins = func() []map[string]any { return nil }
	reg := filepath.Join(t.TempDir(), "plugins.json")
	writeRegistry(t, reg, `{"htr":{"enabled":true}}`)
	d := tiedDaemon(t, srv.path, plugintie.Plugin{ID: "htr", Registry: reg})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx, nil) }()
	defer func() { cancel(); <-done }()
	waitFor(t, "the first plugin.list", func() bool { return srv.count("plugin.list") == 1 })
	// Three checks at one a second; the registry is unchanged.
	time.Sleep(3*plugintie.CheckEvery + plugintie.CheckEvery/2)
	if n := srv.count("plugin.list"); n != 1 {
		t.Fatalf("plugin.list asked %d times after it failed, registry unchanged, want 1", n)
	}
	writeRegistry(t, reg, `{"htr":{"enabled":true},"x":{}}`)
	waitFor(t, "plugin.list after the registry changed", func() bool { return srv.count("plugin.list") == 2 })
}
