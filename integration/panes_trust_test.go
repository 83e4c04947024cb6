package integration

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// Pane names and sidebar tokens as trustworthy as tab names, on herdrsim
// and on a real herdr 0.8.2: an agent's leaving is news, a person's pane
// label that equals a render is theirs, a pane's memory follows a new id
// and its release ends when a person names it.

// quietPolls keeps the daemon from polling: what it does here, an event
// or a look of its own brought.
var quietPolls = []string{"--poll", "1h", "--rest-poll", "1h", "--agent-poll", "0"}

// releaseAgent says, as an agent's hook does, that agent left pane
// (pane.release_agent): herdr's pane.agent_detected then says released.
func releaseAgent(t *testing.T, w world, pane, agent string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := herdr.New(w.Socket()).Call(ctx, "pane.release_agent", map[string]any{
		"pane_id": pane, "source": "herdrtabrenamer-test", "agent": agent}, nil); err != nil {
		t.Fatalf("%s: pane.release_agent %s: %v", w.Name(), pane, err)
	}
}

// TestRealHerdrAnAgentLeavingIsNews: an agent leaving its pane renames
// the pane after its folder and clears its sidebar tokens at once, with
// no poll that could find it: herdr's pane.agent_detected says released,
// naming the agent that left.
func TestRealHerdrAnAgentLeavingIsNews(t *testing.T) {
	onWorlds(t, sidebarWorld, func(t *testing.T, w world) {
		dirs := mkdirs(t, w.Sandbox(), "projects/zebra")
		_, _, p1 := w.NewWorkspace(t, dirs[0])
		reportAgent(t, w, p1, "claude", "idle")
		d := startWorldDaemon(t, w, append(append(append([]string{}, paneFormat...), sidebarArgs...), quietPolls...)...)
		waitPaneLabels(t, w, d, map[string]string{p1: "claude"})
		waitPaneTokens(t, w, d, p1, map[string]string{"htr_agent": "claude", "htr_dir": "zebra"})
		if got := worldPane(t, w, p1).Agent; got != "claude" {
			t.Fatalf("%s: pane %s runs %q before the release", w.Name(), p1, got)
		}
		releaseAgent(t, w, p1, "claude")
		if got := worldPane(t, w, p1).Agent; got != "" {
			t.Fatalf("%s: pane %s still runs %q after its release", w.Name(), p1, got)
		}
		waitPaneLabels(t, w, d, map[string]string{p1: "zebra"})
		waitPaneTokens(t, w, d, p1, map[string]string{"htr_agent": "", "htr_dir": ""})
	})
}

// TestRealHerdrAPaneRuleWithoutPaneNamesIsAnError: a [[rules]] table's
// pane-format names no pane while pane names are off; a pass (once
// --apply, as the daemon builds its naming) says so with the file and
// the rule's line, and names nothing.
func TestRealHerdrAPaneRuleWithoutPaneNamesIsAnError(t *testing.T) {
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		sb := w.Sandbox()
		dirs := mkdirs(t, sb, "projects/api")
		_, tab, _ := w.NewWorkspace(t, dirs[0])
		cfg := filepath.Join(sb.ConfigHome, "herdrtabrenamer", "config.toml")
		writeFile(t, cfg, "# panes of ~/projects\n[[rules]]\ndir = \"~/projects/*\"\npane-format = \"{agent}\"\n")
		_, stderr, code := runCLI(t, sb, "once", "--apply", "--socket", w.Socket(), "--state", sb.StatePath)
		want := cfg + `:2: rule 1 (pane-format "{agent}"): names no pane`
		if code != 2 || !strings.Contains(stderr, want) || strings.Count(strings.TrimSpace(stderr), "\n") > 1 {
			t.Fatalf("%s: once --apply exited %d saying %q, want 2 and %q", w.Name(), code, stderr, want)
		}
		if got := worldLabel(t, w, tab); got != "1" {
			t.Errorf("%s: the tab is named %q, want herdr's 1", w.Name(), got)
		}
	})
}

// reportTokens sets pane metadata tokens as another tool does, under
// its own source; a nil value clears one.
func reportTokens(t *testing.T, w world, pane, source string, tokens map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := herdr.New(w.Socket()).Call(ctx, "pane.report_metadata", map[string]any{
		"pane_id": pane, "source": source, "tokens": tokens}, nil); err != nil {
		t.Fatalf("%s: pane.report_metadata %s: %v", w.Name(), pane, err)
	}
}

// TestRealHerdrSidebarTokensTurnedOff: sidebar tokens turned off are
// cleared from herdr's sidebar, another tool's tokens kept: a config
// emptied and reloaded (SIGHUP) clears ours at once, and a daemon started
// again without them clears what an earlier daemon left (herdr keeps
// tokens while its server runs), before they could go stale under a new
// agent.
func TestRealHerdrSidebarTokensTurnedOff(t *testing.T) {
	onWorlds(t, sidebarWorld, func(t *testing.T, w world) {
		sb, p1 := sidebarSetup(t, w)
		reportTokens(t, w, p1, "othertool", map[string]any{"model": "opus"})
		cfg := filepath.Join(sb.ConfigHome, "tokens.toml")
		on, off := "sidebar-tokens = [\"agent\", \"dir\"]\n", "sidebar-tokens = []\n"
		writeFile(t, cfg, on)
		d := startWorldDaemon(t, w, append([]string{"--config", cfg}, quietPolls...)...)
		waitPaneTokens(t, w, d, p1, map[string]string{"htr_agent": "claude", "htr_dir": "zebra", "model": "opus"})

		writeFile(t, cfg, off)
		if err := d.Cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		waitPaneTokens(t, w, d, p1, map[string]string{"htr_agent": "", "htr_dir": "", "model": "opus"})

		writeFile(t, cfg, on)
		if err := d.Cmd.Process.Signal(syscall.SIGHUP); err != nil {
			t.Fatal(err)
		}
		waitPaneTokens(t, w, d, p1, map[string]string{"htr_agent": "claude", "htr_dir": "zebra"})
		if code := d.Stop(); code != 0 {
			t.Fatalf("%s: daemon exited %d\n%s", w.Name(), code, d.Log())
		}
		writeFile(t, cfg, off)
		reportAgent(t, w, p1, "codex", "idle")
		d = startWorldDaemon(t, w, append([]string{"--config", cfg}, quietPolls...)...)
		waitPaneTokens(t, w, d, p1, map[string]string{"htr_agent": "", "htr_dir": "", "model": "opus"})
	})
}

// TestRealHerdrSidebarTokensWithoutRoom: another tool's tokens fill the
// agent pane's 32 (herdr's cap, every source's together), so herdr
// refuses ours. The daemon says so once in its log at warn level, status
// says it with what to do, and the refused report is not sent again at
// rest; once the other tool clears some of its own, ours go in and
// status is clear.
func TestRealHerdrSidebarTokensWithoutRoom(t *testing.T) {
	onWorlds(t, sidebarWorld, func(t *testing.T, w world) {
		sb, p1 := sidebarSetup(t, w)
		fill := map[string]any{}
		for i := range 31 {
			fill[fmt.Sprintf("other_%02d", i)] = "x"
			if len(fill) == 16 || i == 30 {
				reportTokens(t, w, p1, "othertool", fill)
				fill = map[string]any{}
			}
		}
		d := startWorldDaemon(t, w, sidebarArgs...)
		said := func() int { return strings.Count(d.Log(), "herdr has no room on a pane for our sidebar tokens") }
		if !poll(waitTimeout, func() bool { return said() > 0 }) {
			t.Fatalf("%s: no word of the refusal\n%s", w.Name(), lastLines(d.Log(), 40))
		}
		passes(t, d, 3)
		counts := herdrRequestsDuring(t, w, 3*time.Second)
		if n := counts["pane.report_metadata"]; n != 0 || said() != 1 {
			t.Errorf("%s: at rest, %d pane.report_metadata in 3s and the refusal said %d times, want 0 and once\n%s",
				w.Name(), n, said(), lastLines(d.Log(), 40))
		}
		if !strings.Contains(d.Log(), `"level":"WARN"`) {
			t.Errorf("%s: the refusal was not said at warn level", w.Name())
		}
		status := func() string {
			out, _, _ := runCLI(t, sb, "status", "--socket", w.Socket(), "--state", sb.StatePath)
			return out
		}
		if out := status(); !strings.Contains(out, "cannot report sidebar tokens") || !strings.Contains(out, "list fewer tokens in sidebar-tokens") {
			t.Errorf("%s: status says nothing of the refusal:\n%s", w.Name(), out)
		}
		reportTokens(t, w, p1, "othertool", map[string]any{"other_00": nil, "other_01": nil})
		waitPaneTokens(t, w, d, p1, map[string]string{"htr_agent": "claude", "htr_dir": "zebra", "other_02": "x"})
		if !poll(waitTimeout, func() bool { return !strings.Contains(status(), "cannot report sidebar tokens") }) {
			t.Errorf("%s: status still tells of the refusal:\n%s", w.Name(), status())
		}
	})
}
