package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// README's "Before and after" shows the top line of herdr 0.8.2's own
// client, where herdr draws a workspace's tabs: this test makes that
// screen and checks README's two lines against it.

// readmeScreenFormat is the template README's screen shows.
const readmeScreenFormat = "{icon} {proc|dir}"

// TestRealHerdrReadmeScreen: four tabs of one workspace, the pi agent
// idle in ~/pi, Claude Code working in ~/opt/nixos, a shell and top in
// ~/projects/rmk, read 1 2 3 4 in herdr's tab bar before the daemon runs
// and their names with it; README's screen lines are these, as drawn.
func TestRealHerdrReadmeScreen(t *testing.T) {
	t.Parallel()
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		dirs := mkdirs(t, w.Sandbox(), "pi", "opt/nixos", "projects/rmk")
		ws, _, p1 := w.NewWorkspace(t, dirs[0])
		_, p2 := w.NewTab(t, ws, dirs[1])
		_, _ = w.NewTab(t, ws, dirs[2])
		_, p4 := w.NewTab(t, ws, dirs[2])
		reportAgent(t, w, p1, "pi", "idle")
		reportAgent(t, w, p2, "claude", "working")
		w.Type(t, p4, "top")
		scr := openSidebar(t, w)
		scr.wait(t, "four numbered tabs", func(s string) bool {
			return strings.HasSuffix(tabBar(s), " 1        2        3        4     +")
		})
		before := tabBar(scr.text())

		startWorldDaemon(t, w, "--format", readmeScreenFormat)
		waitWorldLabels(t, w, ws, "⚪ pi", "🟡 nixos", "rmk", "top")
		scr.wait(t, "the four names in the tab bar", func(s string) bool {
			bar := tabBar(s)
			return strings.Contains(bar, "pi ") && strings.Contains(bar, "nixos ") && strings.Contains(bar, "rmk ") && strings.Contains(bar, "top ")
		})
		after := tabBar(scr.text())
		t.Logf("%s: herdr's tab bar before the daemon:\n%s\nand with --format %q:\n%s", w.Name(), before, readmeScreenFormat, after)
		if _, ok := w.(*realWorld); !ok {
			return
		}
		want := readmeScreen(t)
		if len(want) != 2 || want[0] != before || want[1] != after {
			t.Errorf("README's screen lines are\n%q\nherdr's client draws\n%q", want, []string{before, after})
		}
	})
}

// tabBar is the screen's top line, where herdr draws the workspace's
// tabs, blanks at its end cut; "" without a screen.
func tabBar(screen string) string {
	line, _, _ := strings.Cut(screen, "\n")
	if !strings.Contains(line, "│") {
		return ""
	}
	return strings.TrimRight(line, " ")
}

// readmeScreen is the text of each ```text block of README's "Before and
// after".
func readmeScreen(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(raw), "\n## Before and after\n")
	if !ok {
		t.Fatal(`README.md has no "## Before and after" section`)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	var blocks []string
	for {
		var block string
		_, rest, ok := strings.Cut(sec, "```text\n")
		if !ok {
			return blocks
		}
		block, sec, _ = strings.Cut(rest, "\n```")
		blocks = append(blocks, block)
	}
}
