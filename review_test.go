package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
)

// The shell hooks' `nudge` takes the fast path; `run` resolves --socket
// through kong, which also reads HERDRTABRENAMER_SOCKET and the config
// file. Both must key the nudge socket on the same herdr socket, or every
// hook nudge goes nowhere (silently, with --quiet).
func TestReviewHookNudgeFindsTheDaemonTheConfigNames(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", dir)
	t.Setenv("XDG_CONFIG_HOME", dir)
	configured := filepath.Join(dir, "a.sock")
	t.Setenv("HERDR_SOCKET_PATH", filepath.Join(dir, "b.sock"))

	// Where `run` listens.
	ln := func(herdrSock string) func() {
		p := nudge.SocketPath(herdrSock)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		c, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: p, Net: "unixgram"})
		if err != nil {
			t.Fatal(err)
		}
		return func() { c.Close(); os.Remove(p) }
	}

	t.Run("env", func(t *testing.T) {
		t.Setenv("HERDRTABRENAMER_SOCKET", configured)
		defer ln(configured)()
		args := []string{"nudge", "w1:p3"}
		var slow bytes.Buffer
		if code := Main(args, &bytes.Buffer{}, &slow); code != 0 {
			t.Fatalf("kong path: exit %d %s", code, slow.String())
		}
		n, g, ok := hookNudge(args)
		if !ok {
			return // no fast path, nothing to disagree about
		}
		var fast bytes.Buffer
		if code := n.runFast(g, &fast); code != 0 {
			t.Fatalf("hook fast path misses the daemon kong finds: exit %d %s", code, fast.String())
		}
	})

	t.Run("config file", func(t *testing.T) {
		cfg := filepath.Join(dir, "herdrtabrenamer", "config.toml")
		if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cfg, []byte("socket = \""+configured+"\"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(cfg)
		defer ln(configured)()
		args := []string{"nudge", "w1:p3"}
		var slow bytes.Buffer
		if code := Main(args, &bytes.Buffer{}, &slow); code != 0 {
			t.Fatalf("kong path: exit %d %s", code, slow.String())
		}
		n, g, ok := hookNudge(args)
		if !ok {
			return
		}
		var fast bytes.Buffer
		if code := n.runFast(g, &fast); code != 0 {
			t.Fatalf("hook fast path ignores socket in config.toml: exit %d %s", code, fast.String())
		}
	})
}
