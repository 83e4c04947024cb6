package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
)

// runInPane plays one command in pane as a shell with hooks would: the
// program comes to the front with a preexec nudge and stays until the
// daemon has asked herdr for the pane's program and run two more whole
// passes, then the prompt comes back with a precmd nudge and two more
// passes.
func runInPane(t *testing.T, d *daemonProc, pane string, argv ...string) {
	t.Helper()
	runProcInPane(t, d, pane, herdrsim.Proc{Argv: argv})
}

// runProcInPane is runInPane for a program with its own directory.
func runProcInPane(t *testing.T, d *daemonProc, pane string, proc herdrsim.Proc) {
	t.Helper()
	srv := d.Srv
	argv := proc.Argv
	srv.SetForeground(pane, proc)
	calls := srv.Calls("pane.process_info")
	d.Nudge(t, "preexec", pane)
	waitAsked(t, d, calls, fmt.Sprint(argv))
	waitPasses(t, srv, 2)
	srv.SetForeground(pane)
	d.Nudge(t, "precmd", pane)
	waitPasses(t, srv, 2)
}

// waitAsked waits until herdr has had more than `calls` process_info
// requests: herdr answers each with the state it reads when it takes the
// request, so once the program is in front before calls is read, a later
// request has seen it. Counting passes instead would not do: passes for
// other reasons (the fence's own, a poll) may come while the preexec
// watcher still waits its turn.
func waitAsked(t *testing.T, d *daemonProc, calls int, what string) {
	t.Helper()
	testutil.WaitFor(t, what+": the daemon asking herdr for the pane's program", func() bool {
		return d.Srv.Calls("pane.process_info") > calls
	}, d.Log)
}

// TestQuickCommandsDoNotFlicker: the daemon with --apply, hooks nudging; a
// pane runs ls, sudo ls, cat and git status and herdr's rename log shows
// no rename for any of them; vim then names the tab and the prompt names
// it back. Without the list (--ignore "") the same ls is two renames: the
// flicker this list exists for.
func TestQuickCommandsDoNotFlicker(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		config string // config file contents, "" for none
		args   []string
		// quiet run without a rename; shows run and name the tab after
		// their last word each.
		quiet [][]string
		shows [][]string
	}{
		{
			name: "built-in list",
			quiet: [][]string{
				{"ls", "-la"}, {"sudo", "ls", "/root"}, {"env", "LC_ALL=C", "cat", "notes.txt"},
				{"git", "status", "-sb"}, {"clear"},
			},
			shows: [][]string{{"vim", "main.go"}, {"git", "log", "--oneline"}},
		},
		{
			name:   "extend-ignore in the config file keeps the built-in list",
			config: "extend-ignore = [\"make\", \"*sum\"]\n",
			quiet:  [][]string{{"make", "test"}, {"sha256sum", "go.sum"}, {"ls"}},
			shows:  [][]string{{"vim"}},
		},
		{
			name:   "ignore in the config file replaces it",
			config: "ignore = [\n  \"vim\",\n]\n",
			quiet:  [][]string{{"vim", "x"}},
			shows:  [][]string{{"ls"}},
		},
		{
			name:  "--ignore \"\" ignores nothing: ls flickers",
			args:  []string{"--ignore", ""},
			shows: [][]string{{"ls"}, {"cat", "x"}},
		},
		{
			name:  "--extend-ignore flag",
			args:  []string{"--extend-ignore", "htop,btop"},
			quiet: [][]string{{"btop"}, {"cp", "a", "b"}},
			shows: [][]string{{"top"}},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			srv := startServer(t)
			sb := newSandbox(t)
			_, tab, pane := srv.NewWorkspace("work", sb.HomePath("proj"))
			args := c.args
			if c.config != "" {
				path := filepath.Join(sb.ConfigHome, "herdrtabrenamer", "config.toml")
				writeFile(t, path, c.config)
				args = append(args, "--config", path)
			}
			d := startDaemonIn(t, sb, srv, args...)
			want := []string{tab + "=proj"}
			waitRenames(t, srv, want...)
			for _, argv := range c.quiet {
				runInPane(t, d, pane, argv...)
				if got := renameLabels(srv); len(got) != len(want) {
					t.Fatalf("%v renamed the tab: renames %q, want %q", argv, got, want)
				}
			}
			for _, argv := range c.shows {
				srv.SetForeground(pane, herdrsim.Proc{Argv: argv})
				d.Nudge(t, "preexec", pane)
				want = append(want, tab+"="+argv[0])
				waitRenames(t, srv, want...)
				srv.SetForeground(pane)
				d.Nudge(t, "precmd", pane)
				want = append(want, tab+"=proj")
				waitRenames(t, srv, want...)
			}
			quiet(t, srv, 300*time.Millisecond)
		})
	}
}

// TestGitStatusInASubdirectory: git works from the top of its work tree,
// so herdr's foreground_cwd for `git status` typed in ~/repo/src is
// ~/repo. The tab stays "src" (or "~/repo/src" with {cwd}, a template that
// needs no {proc}: the daemon must still learn the program) while git is
// in front. Only the start is checked: when git exits between a pass's
// snapshot and its pane.process_info, the pass sees git's directory and
// the shell in front, a daemon race that is not the list's to fix.
func TestGitStatusInASubdirectory(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ format, want string }{{"{proc|dir}", "src"}, {"{cwd}", "~/repo/src"}} {
		t.Run(c.format, func(t *testing.T) {
			t.Parallel()
			srv := startServer(t)
			sb := newSandbox(t)
			top := sb.HomePath("repo")
			_, tab, pane := srv.NewWorkspace("work", filepath.Join(top, "src"))
			d := startDaemonIn(t, sb, srv, "--format", c.format)
			waitRenames(t, srv, tab+"="+c.want)
			srv.SetForeground(pane, herdrsim.Proc{Argv: []string{"git", "status"}, Cwd: top})
			calls := srv.Calls("pane.process_info")
			if p, _ := srv.Pane(pane); p.ForegroundCwd != top {
				t.Fatalf("simulator: foreground_cwd %q, want %q", p.ForegroundCwd, top)
			}
			d.Nudge(t, "preexec", pane)
			waitAsked(t, d, calls, "git status")
			waitPasses(t, srv, 3)
			if got := renameLabels(srv); len(got) != 1 {
				t.Fatalf("git status renamed the tab: %q\n%s", got, d.Log())
			}
		})
	}
}

// TestIgnoreErrors: a bad glob in ignore or extend-ignore is one line
// naming the file and the line of the bad entry, or the flag.
func TestIgnoreErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		config string
		args   []string
		want   []string
	}{
		{name: "bad glob in a multi-line list", config: "format = \"{dir}\"\nignore = [\n  \"ls\",\n  \"[ls\",\n]\n",
			want: []string{".toml:4:", "ignore: entry 2", `bad glob "[ls"`, "column 4"}},
		{name: "bad glob in extend-ignore", config: "extend-ignore = ['{a,b']\n",
			want: []string{".toml:1:", "extend-ignore: entry 1", `bad glob "{a,b"`}},
		{name: "not a list", config: "\nignore = \"ls\"\n", want: []string{".toml:2:", "ignore", "want a list of strings"}},
		{name: "not a list of strings", config: "ignore = [\n  \"ls\",\n  1,\n]\n", want: []string{".toml:3:", "ignore", "want a list of strings, entry 2 is integer"}},
		{name: "empty pattern", config: "ignore = [\"ls\", \"\"]\n", want: []string{".toml:1:", "entry 2", "empty pattern"}},
		{name: "bad glob in the flag", args: []string{"--ignore", "ls,[x"}, want: []string{"--ignore: entry 2", `bad glob "[x"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			sb := newSandbox(t)
			args := append([]string{"run", "--socket", filepath.Join(sb.Runtime, "herdr.sock")}, c.args...)
			if c.config != "" {
				path := filepath.Join(sb.ConfigHome, "bad.toml")
				writeFile(t, path, c.config)
				args = append(args, "--config", path)
			}
			_, stderr, code := runCLI(t, sb, args...)
			if code != 2 {
				t.Errorf("exit %d, want 2; stderr:\n%s", code, stderr)
			}
			assertOneLine(t, stderr, true, c.want...)
			if strings.Contains(stderr, "no herdr server") {
				t.Errorf("the bad list must stop the daemon before it looks for herdr: %q", stderr)
			}
		})
	}
}

// TestDocsQuickCommands: docs/templates.md's "Quick commands" section
// lists the built-in list as the code has it, no more and no less.
func TestDocsQuickCommands(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("..", "docs", "templates.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, para, ok := strings.Cut(string(raw), "## Quick commands\n\n")
	para, _, _ = strings.Cut(para, "\n\n")
	if !ok {
		t.Fatal("docs/templates.md has no ## Quick commands section")
	}
	_, list, _ := strings.Cut(para, "no rename goes out at all:")
	list, _, _ = strings.Cut(list, ". They match")
	var got []string
	for i, part := range strings.Split(list, "`") {
		if i%2 == 1 {
			got = append(got, part)
		}
	}
	if want := namer.DefaultIgnore(); !slices.Equal(got, want) {
		t.Errorf("docs/templates.md lists %q\nthe code has  %q", got, want)
	}
}
