package integration

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
)

// onceApply runs one `once --apply` pass against srv in sb and fails the
// test unless it exits 0.
func onceApply(t *testing.T, sb *sandbox, srv *herdrsim.Server, args ...string) string {
	t.Helper()
	all := append([]string{"once", "--apply", "--socket", srv.SocketPath(), "--state", sb.StatePath}, args...)
	out, stderr, code := runCLI(t, sb, all...)
	if code != 0 {
		t.Fatalf("once --apply %q: exit %d\nstdout:\n%s\nstderr:\n%s", args, code, out, stderr)
	}
	return out
}

// tabLabels lists the labels of tabs, in the order given.
func tabLabels(srv *herdrsim.Server, tabs []string) []string {
	out := make([]string, len(tabs))
	for i, id := range tabs {
		out[i] = label(srv, id)
	}
	return out
}

func assertLabels(t *testing.T, srv *herdrsim.Server, tabs []string, want ...string) {
	t.Helper()
	if got := tabLabels(srv, tabs); !slices.Equal(got, want) {
		t.Fatalf("labels = %q, want %q", got, want)
	}
}

// TestSSHHostInProc: ssh, mosh and et show as @host in {proc}, named by
// ~/.ssh/config's alias for the HostName, with the remote command after a
// colon; {host} stays the bare alias.
func TestSSHHostInProc(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	sb := newSandbox(t)
	writeFile(t, sb.HomePath(".ssh", "config"), `
Host rzn
    HostName 192.168.6.70
Host build
    HostName 10.0.0.5
    User deploy
`)
	ws, first, p1 := srv.NewWorkspace("work", sb.HomePath("src"))
	argvs := [][]string{
		{"ssh", "zmb"},
		{"ssh", "192.168.6.70"},
		{"ssh", "-p", "2222", "-J", "gate", "deploy@10.0.0.5"},
		{"ssh", "zmb", "btop"},
		{"ssh", "-V"},
		{"mosh", "zmb", "--", "htop"},
		{"et", "-c", "sudo journalctl -f", "rzn:2022"},
		{"sudo", "ssh", "-t", "rzn", "tmux", "attach"},
		{"mosh-client", "-# build btop |", "10.0.0.5", "60001"}, // mosh once connected
	}
	tabs := []string{first}
	srv.SetForeground(p1, herdrsim.Proc{Argv: argvs[0]})
	for _, argv := range argvs[1:] {
		tab, pane := srv.NewTab(ws, sb.HomePath("src"))
		srv.SetForeground(pane, herdrsim.Proc{Argv: argv})
		tabs = append(tabs, tab)
	}
	onceApply(t, sb, srv)
	assertLabels(t, srv, tabs, "@zmb", "@rzn", "@build", "@zmb:btop", "ssh", "@zmb:htop", "@rzn:journalctl", "@rzn:tmux", "@build:btop")

	// {host} is still the bare alias, and a program rule on "ssh" still
	// matches a tab {proc} shows as @host.
	cfg := filepath.Join(sb.ConfigHome, "ssh.toml")
	writeFile(t, cfg, "[[rules]]\nprogram = \"ssh\"\nformat = \"remote {host}\"\n")
	onceApply(t, sb, srv, "--config", cfg, "--force")
	assertLabels(t, srv, tabs[:4], "remote zmb", "remote rzn", "remote build", "remote zmb")
}

// TestDirFollowsForegroundCwd: `npm run dev` started in ~/src/api that
// runs in ~/src/api/frontend names the tab frontend, for {dir}, {cwd},
// {repo}, {branch} and rules alike.
func TestDirFollowsForegroundCwd(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	sb := newSandbox(t)
	api := sb.HomePath("src", "api")
	front := filepath.Join(api, "frontend")
	writeFile(t, filepath.Join(api, ".git", "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(front, ".git", "HEAD"), "ref: refs/heads/ui-work\n")
	_, tab, pane := srv.NewWorkspace("work", api)
	srv.SetForeground(pane, herdrsim.Proc{Argv: []string{"npm", "run", "dev"}, Cwd: front})
	if p, _ := srv.Pane(pane); p.Cwd != api || p.ForegroundCwd != front {
		t.Fatalf("simulator: cwd %q foreground_cwd %q", p.Cwd, p.ForegroundCwd)
	}
	for _, c := range []struct{ format, want string }{
		{"{dir}", "frontend"},
		{"{cwd}", "~/src/api/frontend"},
		{"{repo}:{branch}", "frontend:ui-work"},
	} {
		onceApply(t, sb, srv, "--format", c.format, "--force", "--max-len", "0")
		assertLabels(t, srv, []string{tab}, c.want)
	}
	cfg := filepath.Join(sb.ConfigHome, "rules.toml")
	writeFile(t, cfg, "[[rules]]\ndir = \"~/src/*/frontend\"\nname = \"web\"\n")
	onceApply(t, sb, srv, "--config", cfg, "--force")
	assertLabels(t, srv, []string{tab}, "web")
	// Back at the prompt the shell's directory is the program's.
	srv.SetForeground(pane)
	onceApply(t, sb, srv, "--format", "{dir}", "--force")
	assertLabels(t, srv, []string{tab}, "api")
}

// TestSymlinkedCwdKeepsTheShellsPath: OSC 7 reports ~/work/proj where
// ~/work is a symlink; foreground_cwd, read from /proc, is the resolved
// path. The shell's path is kept, so a rule on ~/work still matches.
func TestSymlinkedCwdKeepsTheShellsPath(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	sb := newSandbox(t)
	real := sb.HomePath("mnt", "ssd", "work", "proj")
	if err := os.MkdirAll(real, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(sb.HomePath("mnt", "ssd", "work"), sb.HomePath("work")); err != nil {
		t.Fatal(err)
	}
	resolved, err := filepath.EvalSymlinks(real)
	if err != nil {
		t.Fatal(err)
	}
	_, tab, pane := srv.NewWorkspace("work", resolved)
	srv.ReportOSC7(pane, sb.HomePath("work", "proj"))
	cfg := filepath.Join(sb.ConfigHome, "rules.toml")
	writeFile(t, cfg, "[[rules]]\ndir = \"~/work/*\"\nformat = \"w:{cwd}\"\n")
	onceApply(t, sb, srv, "--config", cfg)
	assertLabels(t, srv, []string{tab}, "w:~/work/proj")
	// A program elsewhere still wins over the shell's path.
	srv.SetForeground(pane, herdrsim.Proc{Argv: []string{"make"}, Cwd: sb.HomePath("mnt", "ssd")})
	onceApply(t, sb, srv, "--config", cfg, "--format", "{dir}")
	assertLabels(t, srv, []string{tab}, "ssd")
}

// TestArgsTaskTicketGlyph: {args}, {task}, {ticket}, hide-default-branch
// and {glyph} with a [glyphs] table, end to end.
func TestArgsTaskTicketGlyph(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	sb := newSandbox(t)
	repo := sb.HomePath("src", "shop")
	writeFile(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/feature/ABC-123-fix-login\n")
	writeFile(t, filepath.Join(repo, ".git", "refs", "remotes", "origin", "HEAD"), "ref: refs/remotes/origin/main\n")
	mainRepo := sb.HomePath("src", "blog")
	writeFile(t, filepath.Join(mainRepo, ".git", "HEAD"), "ref: refs/heads/main\n")

	ws, tGit, pGit := srv.NewWorkspace("work", repo)
	srv.SetForeground(pGit, herdrsim.Proc{Argv: []string{"sudo", "git", "log", "--oneline"}})
	tAgent, pAgent := srv.NewTab(ws, repo)
	srv.SetForeground(pAgent, herdrsim.Proc{Argv: []string{"claude"}})
	srv.SetAgent(pAgent, "claude", herdr.StatusWorking)
	srv.SetTitle(pAgent, "✳ Fix login redirect")
	tIdle, pIdle := srv.NewTab(ws, repo)
	srv.SetForeground(pIdle, herdrsim.Proc{Argv: []string{"codex"}})
	srv.SetAgent(pIdle, "codex", herdr.StatusIdle)
	srv.SetTitle(pIdle, "codex v0.42.0")
	tMain, _ := srv.NewTab(ws, mainRepo)
	tVim, pVim := srv.NewTab(ws, mainRepo)
	srv.SetForeground(pVim, herdrsim.Proc{Argv: []string{"nvim", "README.md"}})
	tabs := []string{tGit, tAgent, tIdle, tMain, tVim}

	onceApply(t, sb, srv, "--format", "{args|dir}", "--max-len", "0")
	assertLabels(t, srv, tabs[:1], "git log --oneline")

	onceApply(t, sb, srv, "--format", "{icon} {task|proc|dir}", "--force")
	assertLabels(t, srv, tabs[1:3], "🟡 Fix login redirect", "⚪ shop")

	onceApply(t, sb, srv, "--format", "{repo}:{ticket|branch}", "--hide-default-branch", "--force", "--max-len", "0")
	assertLabels(t, srv, []string{tGit, tMain}, "shop:ABC-123", "blog")

	cfg := filepath.Join(sb.ConfigHome, "glyphs.toml")
	writeFile(t, cfg, "[glyphs]\ngit = \"G\"\nclaude = \"C\"\n")
	onceApply(t, sb, srv, "--config", cfg, "--format", "{glyph} {proc|dir}", "--force")
	assertLabels(t, srv, tabs, "G git", "C shop", "\ueb08 shop", "blog", "\ue7c5 nvim")
}

// TestIndexFollowsPositions: {index} is the tab's position in its
// workspace, kept right as tabs are created, moved and closed (herdr
// renumbers without renaming), 1-9 only; people's labels get the prefix
// only with --index-prefix-all.
func TestIndexFollowsPositions(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	sb := newSandbox(t)
	ws, t1, _ := srv.NewWorkspace("work", sb.HomePath("a"))
	t2, p2 := srv.NewTab(ws, sb.HomePath("b"))
	srv.SetForeground(p2, herdrsim.Proc{Argv: []string{"vim"}})
	t3, _ := srv.NewTab(ws, sb.HomePath("c"))
	srv.HumanRename(t3, "notes")
	tabs := []string{t1, t2, t3}
	const format = "{index} {proc|dir}"

	onceApply(t, sb, srv, "--format", format)
	assertLabels(t, srv, tabs, "1 a", "2 vim", "notes")

	srv.MoveTab(t1, 2) // now b, c, a
	onceApply(t, sb, srv, "--format", format)
	assertLabels(t, srv, tabs, "3 a", "1 vim", "notes")

	onceApply(t, sb, srv, "--format", format, "--index-prefix-all")
	assertLabels(t, srv, tabs, "3 a", "1 vim", "2 notes")
	srv.CloseTab(t2) // now c, a
	onceApply(t, sb, srv, "--format", format, "--index-prefix-all")
	assertLabels(t, srv, []string{t3, t1}, "1 notes", "2 a")
	// The prefixed label is still a person's: without the flag it stays.
	onceApply(t, sb, srv, "--format", format)
	assertLabels(t, srv, []string{t3, t1}, "1 notes", "2 a")

	// From the tenth tab on there is no jump key and no index.
	var more []string
	for range 8 {
		id, _ := srv.NewTab(ws, sb.HomePath("z"))
		more = append(more, id)
	}
	onceApply(t, sb, srv, "--format", format)
	if got := label(srv, more[6]); got != "9 z" {
		t.Errorf("ninth tab: %q, want 9 z", got)
	}
	if got := label(srv, more[7]); got != "z" {
		t.Errorf("tenth tab: %q, want z", got)
	}
}

// TestIndexWithoutState: a name of ours at an old position is still ours
// when no state file remembers it.
func TestIndexWithoutState(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	sb := newSandbox(t)
	ws, t1, _ := srv.NewWorkspace("work", sb.HomePath("a"))
	t2, _ := srv.NewTab(ws, sb.HomePath("b"))
	onceApply(t, sb, srv, "--format", "{index} {dir}", "--state", "")
	assertLabels(t, srv, []string{t1, t2}, "1 a", "2 b")
	srv.MoveTab(t2, 0)
	onceApply(t, sb, srv, "--format", "{index} {dir}", "--state", "")
	assertLabels(t, srv, []string{t1, t2}, "2 a", "1 b")
	if _, err := os.Stat(sb.StatePath); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("--state \"\" wrote a state file: %v", err)
	}
}

// TestIndexDaemonFollowsMoves: the daemon renumbers as tabs move and close.
func TestIndexDaemonFollowsMoves(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	ws, t1, _ := srv.NewWorkspace("work", "/srv/a")
	t2, _ := srv.NewTab(ws, "/srv/b")
	t3, _ := srv.NewTab(ws, "/srv/c")
	startDaemon(t, srv, "--format", "{index}:{dir}")
	waitLabels(t, srv, "1:a", "2:b", "3:c")
	srv.MoveTab(t3, 0)
	waitLabels(t, srv, "1:c", "2:a", "3:b")
	srv.CloseTab(t1)
	waitLabels(t, srv, "1:c", "2:b")
	quiet(t, srv, 300*time.Millisecond)
	if got := strings.Join(tabLabels(srv, []string{t3, t2}), ","); got != "1:c,2:b" {
		t.Fatalf("labels %s", got)
	}
}

// TestReadmeNewTemplates: docs/templates.md's examples of the new tokens, on the
// original README's four tabs, through once --apply.
func TestReadmeNewTemplates(t *testing.T) {
	t.Parallel()
	cases := []struct {
		format string
		title  string // claude's terminal title
		want   []string
	}{
		{"{icon} {task|proc|dir}", "✳ Fix login redirect", []string{"⚪ pi", "🟡 Fix login redirect", "rmk", "btop"}},
		{"{icon} {task|proc|dir}", "✳ Claude Code", []string{"⚪ pi", "🟡 nixos", "rmk", "btop"}},
		{"{index} {proc|dir}", "", []string{"1 pi", "2 nixos", "3 rmk", "4 btop"}},
		{"{glyph} {proc|dir}", "", []string{"\ueb08 pi", "\ueb08 nixos", "rmk", "\ueacd btop"}},
	}
	for _, c := range cases {
		t.Run(c.format+" "+c.title, func(t *testing.T) {
			t.Parallel()
			srv := startServer(t)
			sb := newSandbox(t)
			tabs, panes := readmeSession(srv, sb)
			if c.title != "" {
				srv.SetTitle(panes[1], c.title)
			}
			onceApply(t, sb, srv, "--format", c.format)
			assertLabels(t, srv, tabs, c.want...)
		})
	}
}
