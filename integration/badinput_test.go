package integration

import (
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBadInput: every bad flag, template, icon spec, config line, glob,
// regex and id gives one clear line on stderr and the documented exit
// status (2: usage, 1: runtime failure, 3: no daemon for nudge).
func TestBadInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		args   []string
		config string // written to a file passed with --config
		env    []string
		code   int
		want   []string // substrings of the one stderr line
	}{
		{name: "unknown flag", args: []string{"once", "--bogus"}, code: 2, want: []string{"unknown flag --bogus"}},
		{name: "empty alternative", args: []string{"once", "--format", "{proc|}"}, code: 2, want: []string{`"{proc|}"`, "column 7", "empty alternative"}},
		{name: "unknown token", args: []string{"run", "--format", "{nope} x"}, code: 2, want: []string{`unknown token "nope"`, "known:"}},
		{name: "unclosed group", args: []string{"explain", "--format", "{proc"}, code: 2, want: []string{`"{proc"`}},
		{name: "bad icons", args: []string{"once", "--icons", "weird=x"}, code: 2, want: []string{`unknown status "weird"`}},
		{name: "bad alias", args: []string{"once", "--alias", "nvim"}, code: 2, want: []string{"--alias", `"nvim"`, "no '='"}},
		{name: "negative max-len", args: []string{"once", "--max-len=-1"}, code: 2, want: []string{"--max-len", "negative"}},
		{name: "negative poll", args: []string{"run", "--poll=-1s"}, code: 2, want: []string{"--poll"}},
		{name: "bad workspace", args: []string{"run", "--workspace", "x1"}, code: 2, want: []string{"--workspace", `"x1"`}},
		{name: "config typo", args: []string{"once"}, config: "format = \"{dir}\"\nformatt = \"x\"\n", code: 2, want: []string{".toml:2:", `unknown key "formatt"`}},
		{name: "config rule typo", args: []string{"once"}, config: "[[rules]]\ndri = \"~/x\"\nname = \"x\"\n", code: 2, want: []string{".toml:2:", `unknown key "dri"`}},
		{name: "config type error", args: []string{"once"}, config: "\nmax-len = \"x\"\n", code: 2, want: []string{".toml:2:", "max-len", "whole number"}},
		{name: "config syntax error", args: []string{"once"}, config: "format = \"{dir}\"\nmax-len = = 3\n", code: 2, want: []string{".toml:2:"}},
		{name: "bad glob", args: []string{"once"}, config: "[[rules]]\ndir = \"~/[a\"\nname = \"x\"\n", code: 2, want: []string{".toml", "rule 1", `"~/[a"`}},
		{name: "bad rule template", args: []string{"once"}, config: "[[rules]]\ndir = \"~/a\"\nformat = \"{bad}\"\n", code: 2, want: []string{".toml", "rule 1", `"bad"`}},
		{name: "bad rewrite regex", args: []string{"once"}, config: "[[rewrites]]\nmatch = \"(\"\nreplace = \"x\"\n", code: 2, want: []string{".toml", "rewrite rule 1", `"("`}},
		{name: "missing named config", args: []string{"once", "--config", "/nonexistent/htr.toml"}, code: 2, want: []string{"/nonexistent/htr.toml"}},
		{name: "bad pane id", args: []string{"nudge", "bad-pane"}, code: 2, want: []string{`invalid pane id "bad-pane"`, "w1:p3"}},
		{name: "nudge without daemon", args: []string{"nudge", "w1:p1"}, code: 3, want: []string{"no herdrtabrenamer daemon is running"}},
		{name: "nudge without daemon, quiet", args: []string{"nudge", "--quiet", "w1:p1"}, code: 0},
		{name: "once without server", args: []string{"once"}, code: 1, want: []string{"no herdr server at", "herdr.sock"}},
		{name: "explain without server", args: []string{"explain"}, code: 1, want: []string{"no herdr server at"}},
		{name: "explain bad tab id", args: []string{"explain", "w1-t1"}, code: 2, want: []string{`invalid tab id "w1-t1"`}},
		{name: "lock without tab", args: []string{"lock"}, code: 2, want: []string{"no TAB_ID", "$HERDR_TAB_ID"}},
		{name: "release bad tab id", args: []string{"release", "t3"}, code: 2, want: []string{`invalid tab id "t3"`}},
		{name: "lock without state", args: []string{"lock", "w1:t1", "--state", ""}, code: 2, want: []string{"state"}},
		{name: "bad log level", args: []string{"once", "--log-level", "loud"}, code: 2, want: []string{"--log-level"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sb := newSandbox(t)
			// Every command gets a socket that does not exist, so nothing
			// can reach a real herdr of the machine running the tests.
			args := append([]string{}, c.args...)
			args = append(args, "--socket", filepath.Join(sb.Runtime, "herdr.sock"))
			if c.config != "" {
				path := filepath.Join(sb.ConfigHome, "bad.toml")
				writeFile(t, path, c.config)
				args = append(args, "--config", path)
			}
			_, stderr, code := runCLIEnv(t, sb, c.env, args...)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, c.code, stderr)
			}
			assertOneLine(t, stderr, c.code != 0, c.want...)
		})
	}
}

// assertOneLine checks stderr is exactly one line (or nothing, when
// !wantLine) and contains every want.
func assertOneLine(t *testing.T, stderr string, wantLine bool, want ...string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	if !wantLine {
		if stderr != "" {
			t.Errorf("want no output, stderr:\n%s", stderr)
		}
		return
	}
	if len(lines) != 1 || lines[0] == "" {
		t.Errorf("want one line on stderr, got %d:\n%s", len(lines), stderr)
	}
	if !strings.HasPrefix(stderr, "herdrtabrenamer: ") {
		t.Errorf("stderr does not name the program: %q", stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q: %q", w, stderr)
		}
	}
}

// TestCorruptStateFile: a state file that does not parse is never written
// over. The daemon renames nothing (a lock in it cannot be read), lock
// refuses with the reason, status says what to do, a copy is kept beside
// it; once a person removes the file, names come.
func TestCorruptStateFile(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	sb := newSandbox(t)
	damaged := `{"version":1,"tabs":{"w1:t1":{"locked":true,"locked_label":"1"}`
	writeFile(t, sb.StatePath, damaged)
	srv.NewWorkspace("work", sb.HomePath("rmk"))
	d := startDaemonIn(t, sb, srv, "--log-format", "json", "--log-level", "debug")
	passes(t, d, 3)
	if got := srv.Snapshot().Tabs[0].Label; got != "1" {
		t.Fatalf("tab renamed to %q over a state file that may hold its lock", got)
	}
	if b, _ := os.ReadFile(sb.StatePath); string(b) != damaged {
		t.Fatalf("the damaged state file was written over: %s", b)
	}
	if copies, _ := filepath.Glob(sb.StatePath + ".damaged-*"); len(copies) != 1 {
		t.Errorf("copies of the damaged file: %v, want one", copies)
	}
	out, _, code := runCLI(t, sb, "status", "--socket", srv.SocketPath(), "--state", sb.StatePath)
	if code != 1 || !strings.Contains(out, "FIX  state") || !strings.Contains(out, "rm ") {
		t.Errorf("status: exit %d, want 1 with the state's FIX and what to remove:\n%s", code, out)
	}
	out, stderr, code := runCLI(t, sb, "lock", "w1:t1", "--socket", srv.SocketPath(), "--state", sb.StatePath)
	if code != 1 || out != "" {
		t.Fatalf("lock over a damaged state: exit %d, stdout %q", code, out)
	}
	assertOneLine(t, stderr, true, "cannot be read", sb.StatePath)
	if err := os.Remove(sb.StatePath); err != nil {
		t.Fatal(err)
	}
	waitLabels(t, srv, "rmk")
}

// TestMissingSocket: a daemon started before herdr waits for it with one
// log line, then works once herdr is up.
func TestMissingSocket(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	sb := newSandbox(t)
	srv.NewWorkspace("work", sb.HomePath("rmk"))
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	d := startDaemonIn(t, sb, srv, "--log-level", "debug")
	if !poll(waitTimeout, func() bool { return len(testutil.Traced(d.Log(), "outage")) > 0 }) {
		t.Fatalf("no outage line in the log:\n%s", d.Log())
	}
	// Several passes against a down server (each logged at debug level):
	// still one warning, still running.
	if !poll(waitTimeout, func() bool { return len(testutil.Traced(d.Log(), "down_skip")) >= 3 || d.Exited() }) {
		t.Fatalf("no further passes while herdr was down:\n%s", d.Log())
	}
	if d.Exited() {
		t.Fatalf("daemon exited while herdr was down:\n%s", d.Log())
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	waitLabels(t, srv, "rmk")
	if n := len(testutil.Traced(d.Log(), "outage")); n != 1 {
		t.Errorf("%d outage lines for one outage, want 1:\n%s", n, d.Log())
	}
}
