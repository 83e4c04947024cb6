package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
)

// The hook fast path must answer exactly as the kong path does.
func TestHookNudgeFastPathMatchesKong(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("HERDR_SOCKET_PATH", "/tmp/no-herdr-here.sock")
	tests := []struct {
		args []string
		fast bool
		code int
		pane string // $HERDR_PANE_ID
	}{
		{[]string{"nudge", "--quiet", "--when", "precmd", "w1:p3"}, true, 0, ""},
		{[]string{"nudge", "--quiet", "--when=preexec", "w1:p3"}, true, 0, ""},
		{[]string{"nudge", "w1:p3"}, true, 3, ""},
		{[]string{"nudge", "bogus"}, true, 2, ""},
		{[]string{"nudge", "--quiet", "bogus"}, true, 0, ""},
		{[]string{"nudge", "--when", "later", "w1:p3"}, false, 2, ""},
		{[]string{"nudge", "--socket", "/x", "w1:p3"}, true, 3, ""},
		{[]string{"nudge", "--socket=/x", "--quiet", "w1:p3"}, true, 0, ""},
		{[]string{"nudge", "--socket", "", "w1:p3"}, true, 3, ""},
		{[]string{"nudge", "--log-level", "debug", "w1:p3"}, false, 3, ""},
		{[]string{"nudge", "w1:p3", "w1:p4"}, false, 2, ""},
		{[]string{"nudge"}, false, 2, ""},
		// herdr's plugin event hook: the pane comes from the environment.
		{[]string{"nudge", "--quiet"}, true, 0, "w1:p3"},
		{[]string{"nudge", "--quiet", "--when", "agent"}, true, 0, "w1:p3"},
		{[]string{"nudge", "--when", "agent"}, true, 3, "w1:p3"},
		{[]string{"nudge"}, true, 3, "w1:p3"},
		{[]string{"nudge"}, true, 2, "bogus"},
		{[]string{"nudge", "w1:p4"}, true, 3, "bogus"},
		{[]string{"once"}, false, 0, ""},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " ")+" pane="+tt.pane, func(t *testing.T) {
			t.Setenv("HERDR_PANE_ID", tt.pane)
			n, g, ok := hookNudge(tt.args)
			if ok != tt.fast {
				t.Fatalf("fast path taken = %v, want %v", ok, tt.fast)
			}
			if tt.args[0] != "nudge" {
				return
			}
			var slow bytes.Buffer
			want := Main(tt.args, &bytes.Buffer{}, &slow)
			if want != tt.code {
				t.Fatalf("kong path exit %d, want %d (%s)", want, tt.code, slow.String())
			}
			if !ok {
				return
			}
			var fast bytes.Buffer
			if got := n.runFast(g, &fast); got != want || fast.String() != slow.String() {
				t.Fatalf("fast path: exit %d %q; kong path: exit %d %q", got, fast.String(), want, slow.String())
			}
		})
	}
}

// The shell hooks' `nudge` takes the fast path; `run` resolves --socket
// through kong, which also reads HERDRTABRENAMER_SOCKET and the config
// file. Both must key the nudge socket on the same herdr socket, or every
// hook nudge goes nowhere (silently, with --quiet).
func TestHookNudgeFindsTheDaemonTheConfigNames(t *testing.T) {
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
			t.Fatal("the hooks' nudge did not take the fast path")
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
			t.Fatal("the hooks' nudge did not take the fast path")
		}
		var fast bytes.Buffer
		if code := n.runFast(g, &fast); code != 0 {
			t.Fatalf("hook fast path ignores socket in config.toml: exit %d %s", code, fast.String())
		}
	})
}

// BenchmarkHookNudgeConfig is what the hooks' nudge spends on the config
// file before it sends: a file with a socket key and 10,000 [glyphs].
func BenchmarkHookNudgeConfig(b *testing.B) {
	dir := b.TempDir()
	b.Setenv("XDG_CONFIG_HOME", dir)
	b.Setenv("HERDRTABRENAMER_SOCKET", "")
	cfg := filepath.Join(dir, "herdrtabrenamer", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(manyGlyphs(10000)), 0o600); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, g, ok := hookNudge([]string{"nudge", "--quiet", "w1:p1"}); !ok || g.Socket != "/run/herdr.sock" {
			b.Fatal("the fast path did not find the socket")
		}
	}
}

// TestHookNudgeReadsOnlyTheSocket: the hooks' nudge reads the config file
// up to its socket key and no further, so nothing later in the file, not
// even a broken table, costs it time or stops it. A socket key it cannot
// use sends it to the kong path, which says what is wrong.
func TestHookNudgeReadsOnlyTheSocket(t *testing.T) {
	tests := []struct {
		name, body string
		fast       bool
		socket     string
	}{
		{"socket only", "socket = \"/a.sock\"\n", true, "/a.sock"},
		{"a bad glyph after", "socket = \"/a.sock\"\n[glyphs]\nvim = 1\n", true, "/a.sock"},
		{"broken TOML after", "socket = \"/a.sock\"\n[[rules]]\ndir = \n", true, "/a.sock"},
		{"many keys after", manyGlyphs(50), true, "/run/herdr.sock"},
		{"a socket key in a table is no socket", "[glyphs]\nsocket = \"x\"\n", true, ""},
		{"no socket key", "format = \"{dir}\"\n", true, ""},
		{"socket not a string", "socket = 1\n", false, ""},
		{"broken TOML before", "format = \"{dir}\nsocket = \"/a.sock\"\n", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", dir)
			t.Setenv("HERDRTABRENAMER_SOCKET", "")
			cfg := filepath.Join(dir, "herdrtabrenamer", "config.toml")
			if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(cfg, []byte(tt.body), 0o600); err != nil {
				t.Fatal(err)
			}
			_, g, ok := hookNudge([]string{"nudge", "--quiet", "w1:p1"})
			if ok != tt.fast || ok && g.Socket != tt.socket {
				t.Fatalf("fast path %v socket %+v, want %v %q", ok, g, tt.fast, tt.socket)
			}
		})
	}
}
