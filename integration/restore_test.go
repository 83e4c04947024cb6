package integration

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
)

// TestRestore: `restore` gives every tab we named its position number back
// (herdr's label for an unnamed tab), leaves names people chose alone,
// stops the daemon so it cannot name them again, and empties the state.
func TestRestore(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	sb := newSandbox(t)
	tabs, _ := readmeSession(srv, sb)
	// A second workspace: positions count per workspace.
	_, ws2tab, _ := srv.NewWorkspace("other", sb.HomePath("projects", "api"))
	// A tab a person named before the daemon ever ran.
	notes, _ := srv.NewTab(srv.Snapshot().Workspaces[0].ID, sb.HomePath("pi"))
	srv.HumanRename(notes, "notes")

	d := startDaemonIn(t, sb, srv)
	waitLabels(t, srv, "pi", "nixos", "rmk", "btop", "notes", "api")
	// The first tab closes: the others move up a place, so their numbers
	// (t2, t3, ...) and positions differ. A person renames a tab we named.
	srv.CloseTab(tabs[0])
	srv.HumanRename(tabs[3], "monitor")
	waitPasses(t, srv, 2)
	waitLabels(t, srv, "nixos", "rmk", "monitor", "notes", "api")
	renamesBefore := len(srv.Renames())
	args := []string{"restore", "--socket", srv.SocketPath(), "--state", sb.StatePath}

	// Dry run: says what it would do and changes nothing.
	out, errOut, code := runCLI(t, sb, args...)
	if code != 0 {
		t.Fatalf("restore (dry run): exit %d\n%s%s", code, out, errOut)
	}
	wantDry := []string{
		`would stop the daemon \(pid \d+\) first`,
		`would restore ` + tabs[1] + ` "nixos" -> "1"`,
		`would restore ` + tabs[2] + ` "rmk" -> "2"`,
		`left +` + tabs[3] + ` "monitor": a person's name`,
		`left +` + notes + ` "notes": a person's name`,
		`would restore ` + ws2tab + ` "api" -> "1"`,
		`would forget ` + tabs[0] + `: the tab is gone`,
		`dry run: nothing renamed`,
		`herdr plugin uninstall herdrtabrenamer`,
	}
	t.Logf("restore (dry run):\n%s", out)
	matchLines(t, out, wantDry)
	if d.Exited() || len(srv.Renames()) != renamesBefore {
		t.Fatalf("dry run stopped the daemon (%v) or renamed %q", d.Exited(), renameLabels(srv)[renamesBefore:])
	}

	out, errOut, code = runCLI(t, sb, append(args, "--apply")...)
	if code != 0 {
		t.Fatalf("restore --apply: exit %d\n%s%s", code, out, errOut)
	}
	matchLines(t, out, []string{
		`stopped the daemon \(pid \d+\)`,
		`restored ` + tabs[1] + ` "nixos" -> "1"`,
		`restored ` + tabs[2] + ` "rmk" -> "2"`,
		`left +` + tabs[3] + ` "monitor": a person's name`,
		`left +` + notes + ` "notes": a person's name`,
		`restored ` + ws2tab + ` "api" -> "1"`,
		`forgot +` + tabs[0] + `: the tab is gone`,
		`herdr plugin uninstall herdrtabrenamer`,
	})
	if code := d.Wait(waitTimeout); code != 0 {
		t.Fatalf("daemon after restore: exit %d, want 0 (stopped by SIGTERM)\n%s", code, d.Log())
	}
	if got, want := labels(srv), []string{"1", "2", "monitor", "notes", "1"}; !slices.Equal(got, want) {
		t.Fatalf("labels after restore = %q, want %q", got, want)
	}
	if got := renameLabels(srv)[renamesBefore:]; len(got) != 3 {
		t.Errorf("restore renamed %q, want the 3 tabs that were ours", got)
	}
	if st := readState(t, sb.StatePath); len(st.Tabs) != 0 {
		t.Errorf("state after restore still holds %+v", st.Tabs)
	}

	// Run again: nothing of ours is left, so it renames nothing.
	out, _, code = runCLI(t, sb, append(args, "--apply")...)
	if code != 0 || strings.Contains(out, "restored") || strings.Contains(out, "stopped") {
		t.Fatalf("second restore: exit %d\n%s", code, out)
	}
	if got := renameLabels(srv)[renamesBefore:]; len(got) != 3 {
		t.Errorf("second restore renamed again: %q", got)
	}
}

// matchLines fails unless every pattern matches some line of out.
func matchLines(t *testing.T, out string, patterns []string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	for _, p := range patterns {
		re := regexp.MustCompile(p)
		if !slices.ContainsFunc(lines, re.MatchString) {
			t.Errorf("no line matches %q in:\n%s", p, out)
		}
	}
}

// TestRestoreRenameFails: a tab herdr did not rename keeps its memory (its
// label is still ours, a later restore must find it), the others are
// restored, and the exit status says something failed.
func TestRestoreRenameFails(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	sb := newSandbox(t)
	tabs, _ := readmeSession(srv, sb)
	d := startDaemonIn(t, sb, srv)
	waitLabels(t, srv, "pi", "nixos", "rmk", "btop")
	if code := d.Stop(); code != 0 {
		t.Fatalf("daemon exit %d\n%s", code, d.Log())
	}
	srv.InjectFault("tab.rename", herdrsim.FaultCloseNoAnswer, 1)
	out, errOut, code := runCLI(t, sb, "restore", "--apply", "--socket", srv.SocketPath(), "--state", sb.StatePath)
	if code != 1 || !strings.Contains(errOut, "restore "+tabs[0]+` to "1"`) || !strings.Contains(errOut, "1 rename(s) failed") {
		t.Fatalf("exit %d, want 1 naming the failed rename of %s\nstdout:\n%s\nstderr:\n%s", code, tabs[0], out, errOut)
	}
	if got, want := labels(srv), []string{"pi", "2", "3", "4"}; !slices.Equal(got, want) {
		t.Fatalf("labels = %q, want %q", got, want)
	}
	st := readState(t, sb.StatePath)
	if len(st.Tabs) != 1 || st.Tabs[tabs[0]].Label != "pi" {
		t.Fatalf("state = %+v, want only %s (label pi) remembered", st.Tabs, tabs[0])
	}
	// The next restore finds it.
	out, _, code = runCLI(t, sb, "restore", "--apply", "--socket", srv.SocketPath(), "--state", sb.StatePath)
	if code != 0 || label(srv, tabs[0]) != "1" || len(readState(t, sb.StatePath).Tabs) != 0 {
		t.Fatalf("second restore: exit %d, label %q, state %+v\n%s", code, label(srv, tabs[0]), readState(t, sb.StatePath).Tabs, out)
	}
}
