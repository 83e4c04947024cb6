package integration

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/realherdr"
)

// Sidebar tokens (--sidebar-tokens) on herdrsim and on a real herdr
// 0.8.2: the daemon reports each agent pane's chosen facts as pane
// metadata tokens htr_NAME, which herdr's agent rows show where its
// config names them ("$htr_dir"); at rest it reports nothing; restore
// clears them.

// sidebarHerdrConfig gives herdr's agent rows our two tokens after the
// state icon: the row reads "claude · zebra" only from our report.
const sidebarHerdrConfig = `
[ui.sidebar.agents]
rows = [["state_icon", "$htr_agent", "$htr_dir"]]
`

// sidebarArgs turns sidebar tokens on for the agent and the folder.
var sidebarArgs = []string{"--sidebar-tokens", "agent,dir"}

// sidebarWorld is a world whose real herdr shows our tokens in its agent
// rows and logs every request it serves.
var sidebarWorld = worldOptions{HerdrConfig: sidebarHerdrConfig, Env: []string{"HERDR_LOG=herdr=debug"}}

// sidebarSetup makes a workspace in ~/projects/zebra whose one pane runs
// Claude Code, as herdr is told of it.
func sidebarSetup(t *testing.T, w world) (*sandbox, string) {
	t.Helper()
	sb := w.Sandbox()
	dirs := mkdirs(t, sb, "projects/zebra")
	_, _, p1 := w.NewWorkspace(t, dirs[0])
	reportAgent(t, w, p1, "claude", "idle")
	return sb, p1
}

// TestRealHerdrSidebarTokens: with sidebar tokens set, the attached
// client's screen shows our values in an agent row configured with them;
// a new agent replaces the value; an idle daemon sends no
// pane.report_metadata; restore --apply clears every token of ours and
// the row shows none.
func TestRealHerdrSidebarTokens(t *testing.T) {
	t.Parallel()
	onWorlds(t, sidebarWorld, func(t *testing.T, w world) {
		sb, p1 := sidebarSetup(t, w)
		scr := openSidebar(t, w)
		scr.wait(t, "the agent row without our tokens", func(s string) bool { return !strings.Contains(s, "claude") })
		before := scr.text()
		start := time.Now()
		d := startWorldDaemon(t, w, sidebarArgs...)
		waitPaneTokens(t, w, d, p1, map[string]string{"htr_agent": "claude", "htr_dir": "zebra"})
		scr.wait(t, "our tokens in the agent row", func(s string) bool { return strings.Contains(s, "claude · zebra") })
		t.Logf("%s: the client's screen before the daemon:\n%s\nand with --sidebar-tokens agent,dir:\n%s", w.Name(), before, scr.text())

		reportAgent(t, w, p1, "codex", "idle")
		waitPaneTokens(t, w, d, p1, map[string]string{"htr_agent": "codex", "htr_dir": "zebra"})
		scr.wait(t, "the new agent in the row", func(s string) bool { return strings.Contains(s, "codex · zebra") })

		// The count below counts what it should: the reports so far.
		if n := reportsSince(t, w, start); n < 2 {
			t.Fatalf("%s: herdr served %d pane.report_metadata since the daemon started, want 2 or more", w.Name(), n)
		}
		passes(t, d, 2)
		counts := herdrRequestsDuring(t, w, 3*time.Second)
		t.Logf("%s: herdr's requests over 3s at rest: %v", w.Name(), counts)
		if n := counts["pane.report_metadata"]; n != 0 {
			t.Errorf("%s: an idle daemon sent %d pane.report_metadata, want 0\n%s", w.Name(), n, lastLines(d.Log(), 40))
		}

		out, stderr, code := runCLI(t, sb, "restore", "--apply", "--socket", w.Socket(), "--state", sb.StatePath)
		if code != 0 {
			t.Fatalf("%s: restore --apply: exit %d: %s", w.Name(), code, stderr)
		}
		if !strings.Contains(out, "cleared  sidebar tokens "+p1) {
			t.Errorf("%s: restore said %q, want the tokens of %s cleared", w.Name(), out, p1)
		}
		if !d.Exited() && d.Wait(waitTimeout) == -1 {
			t.Fatalf("%s: restore --apply did not stop the daemon\n%s", w.Name(), out)
		}
		waitPaneTokens(t, w, d, p1, map[string]string{"htr_agent": "", "htr_dir": ""})
		scr.wait(t, "the row without our tokens", func(s string) bool { return !strings.Contains(s, "codex · zebra") })
		t.Logf("%s: after restore --apply:\n%s", w.Name(), scr.text())
	})
}

// TestRealHerdrSidebarTokensAfterARestart: herdr keeps no token across
// a restart of its server; the daemon, running on, reports them again
// on the restored session's agent pane.
func TestRealHerdrSidebarTokensAfterARestart(t *testing.T) {
	t.Parallel()
	onWorlds(t, sidebarWorld, func(t *testing.T, w world) {
		_, p1 := sidebarSetup(t, w)
		d := startWorldDaemon(t, w, sidebarArgs...)
		waitPaneTokens(t, w, d, p1, map[string]string{"htr_agent": "claude", "htr_dir": "zebra"})
		w.Restart(t)
		reportAgent(t, w, p1, "claude", "idle")
		waitPaneTokens(t, w, d, p1, map[string]string{"htr_agent": "claude", "htr_dir": "zebra"})
	})
}

// reportsSince counts the pane.report_metadata requests w's herdr served
// since start: herdrsim's count (all of them), real herdr's debug log.
func reportsSince(t *testing.T, w world, start time.Time) int {
	t.Helper()
	switch w := w.(type) {
	case *simWorld:
		return w.srv.Calls("pane.report_metadata")
	case *realWorld:
		return herdrLogRequests(t, filepath.Join(w.srv.ConfigHome, "herdr", "herdr-server.log"), start, time.Now())["pane.report_metadata"]
	}
	t.Fatalf("no request count for %T", w)
	return 0
}

// TestRealHerdrSidebarTokensDryRun: without --apply the daemon reports
// nothing to herdr and prints what it would send.
func TestRealHerdrSidebarTokensDryRun(t *testing.T) {
	t.Parallel()
	onWorlds(t, sidebarWorld, func(t *testing.T, w world) {
		sb, p1 := sidebarSetup(t, w)
		out, stderr, code := runCLI(t, sb, "once", "--socket", w.Socket(), "--state", sb.StatePath, "--sidebar-tokens", "agent,dir")
		if code != 0 {
			t.Fatalf("%s: once: exit %d: %s", w.Name(), code, stderr)
		}
		want := "would report sidebar tokens " + p1 + ` htr_agent="claude" htr_dir="zebra"`
		if !strings.Contains(out, want) {
			t.Errorf("%s: once printed %q, want %q", w.Name(), out, want)
		}
		if got := paneTokensOf(t, w, p1); got["htr_agent"] != "" || got["htr_dir"] != "" {
			t.Errorf("%s: a dry run left tokens %v", w.Name(), got)
		}
	})
}

// paneTokensOf is one pane's metadata tokens as w's herdr holds them.
func paneTokensOf(t *testing.T, w world, pane string) map[string]string {
	t.Helper()
	return worldPane(t, w, pane).Tokens
}

// worldPane is one pane of w's session.
func worldPane(t *testing.T, w world, id string) herdr.Pane {
	t.Helper()
	for _, p := range w.Snapshot(t).Panes {
		if p.ID == id {
			return p
		}
	}
	t.Fatalf("%s: no pane %s", w.Name(), id)
	return herdr.Pane{}
}

// waitPaneTokens waits until pane shows each token of want ("" for
// none).
func waitPaneTokens(t *testing.T, w world, d *daemonProc, pane string, want map[string]string) {
	t.Helper()
	var got map[string]string
	if !poll(waitTimeout, func() bool {
		got = paneTokensOf(t, w, pane)
		for k, v := range want {
			if got[k] != v {
				return false
			}
		}
		return true
	}) {
		t.Fatalf("%s: pane %s tokens %v, want %v\n%s", w.Name(), pane, got, want, lastLines(d.Log(), 40))
	}
}

// sidebarScreen is herdr's own client attached to a real herdr, to read
// its sidebar; on herdrsim, which draws nothing, every wait passes.
type sidebarScreen struct {
	c *realherdr.Client
}

// openSidebar attaches herdr's client on real herdr.
func openSidebar(t *testing.T, w world) sidebarScreen {
	t.Helper()
	rw, ok := w.(*realWorld)
	if !ok {
		return sidebarScreen{}
	}
	return sidebarScreen{c: attachClient(t, rw)}
}

// text is the screen's lines, blanks at their ends cut.
func (s sidebarScreen) text() string {
	if s.c == nil {
		return "(herdrsim draws no screen)"
	}
	var out []string
	for _, l := range s.c.Screen() {
		out = append(out, strings.TrimRight(l, " "))
	}
	return strings.TrimRight(strings.Join(out, "\n"), "\n")
}

// wait waits until ok holds for the screen's text.
func (s sidebarScreen) wait(t *testing.T, what string, ok func(string) bool) {
	t.Helper()
	if s.c == nil {
		return
	}
	if err := s.c.WaitFor(what, func(lines []string) bool { return ok(strings.Join(lines, "\n")) }); err != nil {
		t.Fatal(err)
	}
}
