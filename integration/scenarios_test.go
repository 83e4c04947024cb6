package integration

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/rivo/uniseg"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// readmeSession builds the four tabs of the original README in one
// workspace: pi (the pi agent in ~/pi), nixos (claude working in
// ~/opt/nixos), rmk (a shell in ~/projects/rmk) and btop (btop started in
// ~/projects/rmk). It returns the tab ids in that order.
func readmeSession(srv *herdrsim.Server, sb *sandbox) (tabs []string, panes []string) {
	pi := sb.HomePath("pi")
	nixos := sb.HomePath("opt", "nixos")
	rmk := sb.HomePath("projects", "rmk")

	ws, t1, p1 := srv.NewWorkspace("work", pi)
	srv.SetForeground(p1, herdrsim.Proc{Argv: []string{"pi"}})
	srv.SetAgent(p1, "pi", herdr.StatusIdle)

	t2, p2 := srv.NewTab(ws, nixos)
	srv.SetForeground(p2, herdrsim.Proc{Argv: []string{"node", "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js"}})
	srv.SetAgent(p2, "claude", herdr.StatusWorking)

	t3, p3 := srv.NewTab(ws, rmk)

	t4, p4 := srv.NewTab(ws, rmk)
	srv.SetForeground(p4, herdrsim.Proc{Argv: []string{"btop"}})
	return []string{t1, t2, t3, t4}, []string{p1, p2, p3, p4}
}

// TestReadmeTabs checks the four tabs of the original README under the
// default template and each example template the README documents.
func TestReadmeTabs(t *testing.T) {
	t.Parallel()
	cases := []struct {
		format string
		want   func(numbers []int) []string
	}{
		{"", func([]int) []string { return []string{"pi", "nixos", "rmk", "btop"} }},
		{"{proc|dir}", func([]int) []string { return []string{"pi", "nixos", "rmk", "btop"} }},
		{"{proc|agent}:{dir}", func([]int) []string { return []string{"pi:pi", "claude:nixos", "rmk", "btop:rmk"} }},
		{"{number}:{dir}", func(n []int) []string {
			return []string{fmt.Sprintf("%d:pi", n[0]), fmt.Sprintf("%d:nixos", n[1]), fmt.Sprintf("%d:rmk", n[2]), fmt.Sprintf("%d:rmk", n[3])}
		}},
		{"{icon} {proc|dir}", func([]int) []string { return []string{"⚪ pi", "🟡 nixos", "rmk", "btop"} }},
	}
	for _, c := range cases {
		name := c.format
		if name == "" {
			name = "default"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := startServer(t)
			sb := newSandbox(t)
			tabs, _ := readmeSession(srv, sb)
			var numbers []int
			for _, id := range tabs {
				tab, _ := srv.Tab(id)
				numbers = append(numbers, tab.Number)
			}
			var args []string
			if c.format != "" {
				args = append(args, "--format", c.format)
			}
			startDaemonIn(t, sb, srv, args...)
			want := c.want(numbers)
			waitLabels(t, srv, want...)
			// Settled: every tab renamed exactly once, and nothing after.
			quiet(t, srv, 500*time.Millisecond)
			if got := len(srv.Renames()); got != len(want)-countNumeric(want) {
				t.Errorf("%d renames for %d tabs: %q", got, len(want), renameLabels(srv))
			}
		})
	}
}

// countNumeric counts labels that are bare numbers (herdr's own, never set
// by us).
func countNumeric(labels []string) int {
	n := 0
	for _, l := range labels {
		if _, err := strconv.Atoi(l); err == nil {
			n++
		}
	}
	return n
}

// TestLifecycleRenamesInOrder follows one tab through a program start and
// exit, two kinds of cd and an agent's whole life: every change is one
// rename, in order, and nothing else is renamed.
func TestLifecycleRenamesInOrder(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	sb := newSandbox(t)
	_, tab, pane := srv.NewWorkspace("work", sb.HomePath("projects", "rmk"))
	d := startDaemonIn(t, sb, srv, "--format", "{icon} {proc|dir}")
	var want []string
	step := func(name, label string, do func()) {
		t.Helper()
		if do != nil {
			do()
		}
		want = append(want, tab+"="+label)
		waitRenames(t, srv, want...)
		t.Logf("%s -> %q", name, label)
	}
	step("shell", "rmk", nil)
	step("btop starts", "btop", func() {
		srv.SetForeground(pane, herdrsim.Proc{Argv: []string{"btop"}})
		d.Nudge(t, "precmd", pane)
	})
	step("btop exits", "rmk", func() {
		srv.SetForeground(pane)
		d.Nudge(t, "precmd", pane)
	})
	step("cd (shell cwd)", "api", func() { srv.SetCwd(pane, sb.HomePath("src", "api")) })
	step("cd (OSC 7)", "nixos", func() {
		// A shell that reports OSC 7 has moved too; foreground_cwd wins
		// over a report alone.
		srv.SetCwd(pane, sb.HomePath("opt", "nixos"))
		srv.ReportOSC7(pane, sb.HomePath("opt", "nixos"))
	})
	// One change per step, in the order they happen: the program starts,
	// then it reports itself as an agent. Two changes in one step raced
	// the pass in flight (herdr's read poll keeps one in flight most of
	// the time): a snapshot from before the agent appeared, then a
	// process_info from after claude started, gave a "claude" the test did
	// not expect.
	step("claude starts", "claude", func() {
		srv.SetForeground(pane, herdrsim.Proc{Argv: []string{"claude"}})
		d.Nudge(t, "precmd", pane)
	})
	step("claude reports working", "🟡 nixos", func() { srv.SetAgent(pane, "claude", herdr.StatusWorking) })
	step("blocked", "🔴 nixos", func() { srv.SetAgent(pane, "claude", herdr.StatusBlocked) })
	step("done", "🟢 nixos", func() { srv.SetAgent(pane, "claude", herdr.StatusDone) })
	step("idle", "⚪ nixos", func() { srv.SetAgent(pane, "claude", herdr.StatusIdle) })
	quiet(t, srv, time.Second)
}

// TestHumanNamesAreKept: a person's name survives changes and a daemon
// restart; release hands it back, lock freezes ours, --force overrides a
// person's name but never a lock.
func TestHumanNamesAreKept(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	sb := newSandbox(t)
	ws, t1, p1 := srv.NewWorkspace("work", sb.HomePath("projects", "rmk"))
	t2, p2 := srv.NewTab(ws, sb.HomePath("opt", "nixos"))
	t3, _ := srv.NewTab(ws, sb.HomePath("pi"))
	d := startDaemonIn(t, sb, srv)
	waitLabels(t, srv, "rmk", "nixos", "pi")

	srv.HumanRename(t1, "mine")
	srv.SetCwd(p1, sb.HomePath("src"))
	srv.SetCwd(p2, sb.HomePath("opt", "dots"))
	waitLabel(t, srv, t2, "dots") // the daemon saw the session after both changes
	waitPasses(t, srv, 2)
	if got := label(srv, t1); got != "mine" {
		t.Fatalf("person's name replaced by %q", got)
	}

	if code := d.Stop(); code != 0 {
		t.Fatalf("daemon exit %d\n%s", code, d.Log())
	}
	d = startDaemonIn(t, sb, srv)
	srv.SetCwd(p2, sb.HomePath("opt", "nix2"))
	waitLabel(t, srv, t2, "nix2")
	waitPasses(t, srv, 2)
	if got := label(srv, t1); got != "mine" {
		t.Fatalf("after a restart, person's name replaced by %q", got)
	}

	sock := srv.SocketPath()
	out, stderr, code := runCLI(t, sb, "release", t1, "--socket", sock, "--state", sb.StatePath)
	if code != 0 || strings.TrimSpace(out) != "released "+t1 {
		t.Fatalf("release: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	waitLabel(t, srv, t1, "src")

	out, stderr, code = runCLI(t, sb, "lock", t2, "--socket", sock, "--state", sb.StatePath)
	if code != 0 || strings.TrimSpace(out) != "locked "+t2 {
		t.Fatalf("lock: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	waitPasses(t, srv, 2) // a whole pass has read the lock
	srv.SetCwd(p2, sb.HomePath("elsewhere"))
	srv.SetCwd(p1, sb.HomePath("src", "web"))
	waitLabel(t, srv, t1, "web")
	waitPasses(t, srv, 2)
	if got := label(srv, t2); got != "nix2" {
		t.Fatalf("locked tab renamed to %q", got)
	}

	srv.HumanRename(t3, "human")
	waitPasses(t, srv, 2)
	if got := label(srv, t3); got != "human" {
		t.Fatalf("person's name replaced by %q", got)
	}
	d.Stop()
	startDaemonIn(t, sb, srv, "--force")
	waitLabel(t, srv, t3, "pi")
	waitPasses(t, srv, 2)
	if got := label(srv, t2); got != "nix2" {
		t.Fatalf("--force renamed a locked tab to %q", got)
	}
	for _, r := range srv.Renames() {
		if r.TabID == t2 && r.Label != "nixos" && r.Label != "dots" && r.Label != "nix2" {
			t.Errorf("locked tab renamed: %+v", r)
		}
	}
}

// TestClosedTabsRenumberSilently: tabs close, herdr's auto labels (tab
// positions) shift, and the daemon renames nothing wrongly and does not
// loop. Closed tabs are marked missing in the state file; they are dropped
// a minute later, which this test does not wait for.
func TestClosedTabsRenumberSilently(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	sb := newSandbox(t)
	cfg := filepath.Join(sb.ConfigHome, "rules.toml")
	writeFile(t, cfg, "[[rules]]\ndir = \"~/skip/**\"\nskip = true\n")
	ws, ta, _ := srv.NewWorkspace("work", sb.HomePath("a"))
	tb, _ := srv.NewTab(ws, sb.HomePath("b"))
	srv.NewTab(ws, sb.HomePath("skip", "x")) // never named: keeps its position
	tc, _ := srv.NewTab(ws, sb.HomePath("c"))
	startDaemonIn(t, sb, srv, "--config", cfg)
	waitLabels(t, srv, "a", "b", "3", "c")
	before := len(srv.Renames())

	srv.CloseTab(tb)
	waitLabels(t, srv, "a", "2", "c") // herdr renumbered the skipped tab
	quiet(t, srv, time.Second)
	srv.CloseTab(ta)
	waitLabels(t, srv, "1", "c")
	quiet(t, srv, time.Second)
	if after := srv.Renames(); len(after) != before {
		t.Fatalf("renames after closing tabs: %q", renameLabels(srv)[before:])
	}

	if !poll(waitTimeout, func() bool {
		st := readState(t, sb.StatePath)
		return st.Tabs[ta].MissingSince != nil && st.Tabs[tb].MissingSince != nil
	}) {
		t.Fatalf("closed tabs not marked missing in the state file: %+v", readState(t, sb.StatePath))
	}
	st := readState(t, sb.StatePath)
	if m, ok := st.Tabs[tc]; !ok || m.MissingSince != nil || m.Label != "c" {
		t.Errorf("open tab %s in state = %+v, want label c and not missing", tc, m)
	}
}

// TestOverrideRules: dir globs with * and **, name, format and skip rules.
func TestOverrideRules(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	sb := newSandbox(t)
	cfg := filepath.Join(sb.ConfigHome, "rules.toml")
	writeFile(t, cfg, `
[[rules]]
dir = "~/work/*"
format = "w:{match}"

[[rules]]
dir = "~/src/**/deep"
name = "DEEP"

[[rules]]
dir = "~/secret/**"
skip = true

[[rules]]
program = "btop"
name = "monitor"
`)
	ws, _, _ := srv.NewWorkspace("work", sb.HomePath("work", "api", "src"))
	srv.NewTab(ws, sb.HomePath("src", "deep"))
	srv.NewTab(ws, sb.HomePath("src", "a", "b", "deep"))
	srv.NewTab(ws, sb.HomePath("secret", "x"))
	srv.NewTab(ws, sb.HomePath("work"))
	_, p := srv.NewTab(ws, sb.HomePath("other"))
	srv.SetForeground(p, herdrsim.Proc{Argv: []string{"btop"}})
	startDaemonIn(t, sb, srv, "--config", cfg)
	waitLabels(t, srv, "w:api", "DEEP", "DEEP", "4", "work", "monitor")
	quiet(t, srv, 500*time.Millisecond)
}

// TestUniqueAndWorkspace: --unique tells same-named tabs apart by their
// parents; --workspace leaves other workspaces alone.
func TestUniqueAndWorkspace(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	root := t.TempDir() // outside the daemon's home: {dir} is the plain basename
	at := func(elem ...string) string { return filepath.Join(append([]string{root}, elem...)...) }
	w1, _, _ := srv.NewWorkspace("one", at("api", "src"))
	srv.NewTab(w1, at("web", "src"))
	w2, _, _ := srv.NewWorkspace("two", at("api", "src"))
	srv.NewTab(w2, at("web", "src"))
	srv.NewTab(w2, at("docs"))
	startDaemon(t, srv, "--unique", "--workspace", w2)
	waitLabels(t, srv, "1", "2", "api/src", "web/src", "docs")
	quiet(t, srv, 500*time.Millisecond)
	for _, r := range srv.Renames() {
		if !strings.HasPrefix(r.TabID, w2+":") {
			t.Errorf("--workspace %s renamed %s", w2, r.TabID)
		}
	}
}

// TestMaxLenWideText cuts names by display width, wide characters and
// emoji included, on grapheme boundaries.
func TestMaxLenWideText(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	sb := newSandbox(t)
	ws, t1, p1 := srv.NewWorkspace("work", sb.HomePath("日本語のプロジェクト"))
	srv.SetAgent(p1, "claude", herdr.StatusWorking)
	t2, _ := srv.NewTab(ws, sb.HomePath("a-very-long-directory-name"))
	t3, _ := srv.NewTab(ws, sb.HomePath("👩‍👩‍👧‍👦👩‍👩‍👧‍👦👩‍👩‍👧‍👦👩‍👩‍👧‍👦"))
	const maxLen = 7
	startDaemonIn(t, sb, srv, "--format", "{icon} {proc|dir}", "--max-len", strconv.Itoa(maxLen))
	for _, c := range []struct{ tab, full string }{
		{t1, "🟡 日本語のプロジェクト"},
		{t2, "a-very-long-directory-name"},
		{t3, "👩‍👩‍👧‍👦👩‍👩‍👧‍👦👩‍👩‍👧‍👦👩‍👩‍👧‍👦"},
	} {
		if !poll(waitTimeout, func() bool { return label(srv, c.tab) != strconv.Itoa(tabPos(srv, c.tab)) }) {
			t.Fatalf("tab %s never renamed", c.tab)
		}
		got := label(srv, c.tab)
		if w := uniseg.StringWidth(got); w > maxLen || w == 0 {
			t.Errorf("tab %s = %q: width %d, want 1..%d", c.tab, got, w, maxLen)
		}
		if !strings.HasSuffix(got, "…") {
			t.Errorf("tab %s = %q: a cut name should end with …", c.tab, got)
		}
		prefix := strings.TrimSuffix(got, "…")
		if !strings.HasPrefix(c.full, prefix) {
			t.Errorf("tab %s = %q is not a prefix of %q", c.tab, got, c.full)
		}
		// Grapheme boundaries: the kept part must be whole clusters of the full name.
		if n := uniseg.GraphemeClusterCount(prefix); !strings.HasPrefix(c.full, firstGraphemes(c.full, n)) || firstGraphemes(c.full, n) != prefix {
			t.Errorf("tab %s = %q splits a grapheme cluster", c.tab, got)
		}
	}
}

func tabPos(srv *herdrsim.Server, tabID string) int {
	for i, t := range srv.Snapshot().Tabs {
		if t.ID == tabID {
			return i + 1
		}
	}
	return 0
}

func firstGraphemes(s string, n int) string {
	g := uniseg.NewGraphemes(s)
	var b strings.Builder
	for i := 0; i < n && g.Next(); i++ {
		b.WriteString(g.Str())
	}
	return b.String()
}

// TestHostileNames: names are untrusted input. Directory names and
// program names reach the daemon raw (herdr passes cwd and argv through);
// titles arrive with herdr's control characters already removed but bidi
// marks and escape-sequence remnants intact. No escape sequence, control
// character, newline or bidi mark may reach a tab label.
func TestHostileNames(t *testing.T) {
	t.Parallel()
	dirs := []struct{ dir, want string }{
		{"\x1b]0;evil\x07proj", "proj"},
		{"\x1b[31mred\x1b[0m text", "red text"},
		{"line one\nline two\r\n", "line one line two"},
		{"abc\u202edcba\u2066x\u2069", "abcdcbax"},
		{"tab\there\x7fdel", "tab heredel"},
		{"\u009b31mC1 csi", "C1 csi"},
	}
	titles := []string{
		"\x1b]0;evil\x07hello",
		"line one\nline two",
		"abc\u202edcba\u2066x\u2069",
		"\u009b31mC1\u0085csi",
	}
	procs := [][]string{
		{"/tmp/\x1b[2Jwipe\nme"},
		{"\u202egnp.exe"},
	}
	srv := startServer(t)
	sb := newSandbox(t)
	ws, _, _ := srv.NewWorkspace("work", sb.HomePath("x"))
	type check struct {
		tab, what, want string
	}
	var checks []check
	for _, c := range dirs {
		dir := sb.HomePath(c.dir)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		tab, _ := srv.NewTab(ws, dir)
		checks = append(checks, check{tab, fmt.Sprintf("dir %q", c.dir), c.want})
	}
	for _, title := range titles {
		tab, pane := srv.NewTab(ws, sb.HomePath("x"))
		srv.SetTitle(pane, title)
		checks = append(checks, check{tab, fmt.Sprintf("title %q", title), ""})
	}
	for _, argv := range procs {
		tab, pane := srv.NewTab(ws, sb.HomePath("x"))
		srv.SetForeground(pane, herdrsim.Proc{Argv: argv})
		checks = append(checks, check{tab, fmt.Sprintf("argv %q", argv), ""})
	}
	startDaemonIn(t, sb, srv, "--format", "{proc|title|dir}", "--max-len", "0")
	for _, c := range checks {
		renamed := poll(waitTimeout, func() bool {
			l := label(srv, c.tab)
			return l != strconv.Itoa(tabPos(srv, c.tab)) && (c.want == "" || l == c.want)
		})
		got := label(srv, c.tab)
		if !renamed {
			t.Errorf("%s: label %q, want %q", c.what, got, c.want)
		}
		for _, r := range got {
			if r < 0x20 || (r >= 0x7f && r < 0xa0) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
				t.Errorf("%s: label %q holds %U", c.what, got, r)
			}
		}
		if strings.Contains(got, "  ") || strings.TrimSpace(got) != got {
			t.Errorf("%s: label %q has untidy spaces", c.what, got)
		}
		t.Logf("%s -> %q", c.what, got)
	}
}

// TestProtocols plays the README session on every protocol herdr speaks,
// and on an unknown newer one: it works, with one warning. (21, a
// development build the client knows, was the unknown one before 22.)
func TestProtocols(t *testing.T) {
	t.Parallel()
	for _, p := range []int{17, 19, 20, 21, 22, herdr.NewestKnownProtocol + 1} {
		t.Run(strconv.Itoa(p), func(t *testing.T) {
			t.Parallel()
			srv := startServer(t, herdrsim.WithProtocol(p))
			sb := newSandbox(t)
			readmeSession(srv, sb)
			d := startDaemonIn(t, sb, srv, "--log-level", "debug")
			waitLabels(t, srv, "pi", "nixos", "rmk", "btop")
			waitPasses(t, srv, 3)
			// The protocol is learnt (and an unknown one warned about) by
			// the ping after subscribing, which the passes do not wait for.
			if !poll(waitTimeout, func() bool { return len(testutil.Traced(d.Log(), "subscribed")) > 0 }) {
				t.Fatalf("never subscribed:\n%s", d.Log())
			}
			var warns []string
			for _, l := range strings.Split(d.Log(), "\n") {
				if strings.Contains(l, "level=WARN") && strings.Contains(l, "protocol") {
					warns = append(warns, l)
				}
			}
			want := 0
			if _, known := herdr.ProtocolReleases(p); !known {
				want = 1
			}
			if len(warns) != want {
				t.Errorf("protocol %d: %d protocol warnings, want %d:\n%s", p, len(warns), want, d.Log())
			}
		})
	}
}

// TestExplain prints each tab's verdict, as a table and as JSON.
func TestExplain(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	sb := newSandbox(t)
	tabs, _ := readmeSession(srv, sb)
	srv.HumanRename(tabs[2], "mine")
	sock := srv.SocketPath()
	out, stderr, code := runCLI(t, sb, "explain", "--socket", sock, "--state", "")
	if code != 0 {
		t.Fatalf("explain: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"tab " + tabs[0], "tab " + tabs[3], `"btop"`, "label is person's: keep", "label is herdr's: would rename"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain output lacks %q:\n%s", want, out)
		}
	}
	out, stderr, code = runCLI(t, sb, "explain", "--json", "--socket", sock, "--state", "")
	if code != 0 {
		t.Fatalf("explain --json: exit %d: %s", code, stderr)
	}
	var reps []struct {
		TabID   string `json:"tab_id"`
		Label   string `json:"label"`
		Want    string `json:"want"`
		Verdict string `json:"verdict"`
		Action  string `json:"action"`
	}
	if err := json.Unmarshal([]byte(out), &reps); err != nil {
		t.Fatalf("explain --json does not parse: %v\n%s", err, out)
	}
	var got []string
	for _, r := range reps {
		got = append(got, fmt.Sprintf("%s %s->%s %s %s", r.TabID, r.Label, r.Want, r.Verdict, r.Action))
	}
	want := []string{
		tabs[0] + " 1->pi herdr's would rename",
		tabs[1] + " 2->nixos herdr's would rename",
		tabs[2] + " mine->rmk person's keep",
		tabs[3] + " 4->btop herdr's would rename",
	}
	if !slices.Equal(got, want) {
		t.Errorf("explain --json:\n got %q\nwant %q", got, want)
	}
	out, _, code = runCLI(t, sb, "explain", "--json", "--socket", sock, "--state", "", tabs[3])
	if code != 0 || !strings.Contains(out, tabs[3]) || strings.Contains(out, tabs[0]) {
		t.Errorf("explain %s: exit %d:\n%s", tabs[3], code, out)
	}
	if len(srv.Renames()) != 0 {
		t.Errorf("explain renamed: %q", renameLabels(srv))
	}
}

// TestZshHooks runs a real zsh under a pty inside a fake herdr pane, with
// the hook from `init zsh` installed: `tee` names the tab tee (cat would
// not: it is a quick command, see namer.DefaultIgnore), and the prompt
// after it ends brings the directory back. tee runs until the test
// sends it end of input, not for a time that a loaded machine may not fit
// the rename into. The time from Enter to the rename
// is logged, never asserted (shared machines are noisy).
func TestZshHooks(t *testing.T) {
	t.Parallel()
	zsh, err := exec.LookPath("zsh")
	if err != nil {
		t.Skip("zsh not on PATH: shell hook test skipped")
	}
	srv := startServer(t)
	sb := newSandbox(t)
	dir := sb.HomePath("projects", "rmk")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	_, tab, pane := srv.NewWorkspace("work", dir)
	// Polling every 5 s: a rename within that time comes from the hooks.
	startDaemonIn(t, sb, srv, "--poll", "5s", "--log-level", "debug")
	waitLabels(t, srv, "rmk")

	zdot := t.TempDir()
	writeFile(t, filepath.Join(zdot, ".zshrc"), fmt.Sprintf("PROMPT='READY> '\neval \"$(%s init zsh)\"\n", binPath))
	cmd := exec.Command(zsh, "-i")
	cmd.Dir = dir
	cmd.Env = sb.Environ("ZDOTDIR="+zdot, "TERM=dumb", "SHELL="+zsh,
		"HERDR_PANE_ID="+pane, "HERDR_SOCKET_PATH="+srv.SocketPath(), "HERDR_ENV=1")
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatalf("start zsh under a pty: %v", err)
	}
	out := &syncBuffer{}
	copied := make(chan struct{})
	go func() { _, _ = io.Copy(out, tty); close(copied) }()
	t.Cleanup(func() {
		_, _ = tty.Write([]byte("exit\r"))
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		tty.Close()
		<-copied
	})
	prompts := func() int { return strings.Count(out.String(), "READY> ") }
	if !poll(waitTimeout, func() bool { return prompts() >= 1 }) {
		t.Fatalf("zsh gave no prompt; output:\n%q", out.String())
	}
	srv.AttachProcess(pane, cmd.Process.Pid)
	before := len(srv.Renames())

	start := time.Now()
	if _, err := tty.Write([]byte("tee\r")); err != nil {
		t.Fatal(err)
	}
	waitLabel(t, srv, tab, "tee")
	t.Logf("Enter -> tab renamed %q: %v (hooks, poll 5s)", "tee", time.Since(start))
	testutil.WaitForeground(t, tty, "tee")
	start = time.Now()
	if _, err := tty.Write([]byte{4}); err != nil { // Ctrl-D: tee reads end of input and exits
		t.Fatal(err)
	}
	waitLabel(t, srv, tab, "rmk")
	t.Logf("tee exits -> back to %q: %v", "rmk", time.Since(start))
	got := renameLabels(srv)[before:]
	if want := []string{tab + "=tee", tab + "=rmk"}; !slices.Equal(got, want) {
		t.Errorf("renames = %q, want %q", got, want)
	}
	if !poll(waitTimeout, func() bool { return prompts() >= 2 }) {
		t.Errorf("no prompt after tee; output:\n%q", out.String())
	}
	if strings.Contains(out.String(), "herdrtabrenamer") {
		t.Errorf("the hook printed to the terminal:\n%q", out.String())
	}
}
