package integration

import (
	"strings"
	"testing"
)

// Pane names as a person sees them: herdr 0.8.2's own client draws a
// pane's label on its top border (the pane reports no title of its own)
// and in the sidebar's agent rows where its config names the `pane`
// token. herdrsim draws no screen: its twin checks the labels alone.

// panesScreenConfig puts each agent row's agent beside its pane's label:
// before the daemon runs the two rows read alike, "claude".
const panesScreenConfig = `
[ui.sidebar.agents]
rows = [["state_icon", "agent", "pane"]]
`

// TestRealHerdrPaneNamesOnScreen: two Claude Code panes split side by
// side in one tab, one in projects/api and one in projects/web, show no
// name on their borders and the same agent row before the daemon runs;
// with --pane-format each border and each row shows its pane's own name.
func TestRealHerdrPaneNamesOnScreen(t *testing.T) {
	t.Parallel()
	onWorlds(t, worldOptions{HerdrConfig: panesScreenConfig}, func(t *testing.T, w world) {
		dirs := mkdirs(t, w.Sandbox(), "projects/api", "projects/web")
		_, _, p1 := w.NewWorkspace(t, dirs[0])
		p2 := splitPane(t, w, p1, dirs[1])
		reportAgent(t, w, p1, "claude", "idle")
		reportAgent(t, w, p2, "claude", "idle")
		scr := openSidebar(t, w)
		scr.wait(t, "two agent rows of claude and no pane name", func(s string) bool {
			return strings.Count(sidebarColumn(s), "claude") == 2 && !strings.Contains(s, "/claude")
		})
		before := scr.text()

		d := startWorldDaemon(t, w, paneFormat...)
		waitPaneLabels(t, w, d, map[string]string{p1: "api/claude", p2: "web/claude"})
		scr.wait(t, "each pane's name on its border and in its agent row", func(s string) bool {
			return bordersNamed(s, "api/claude", "web/claude") &&
				strings.Contains(sidebarColumn(s), "claude · api/claude") &&
				strings.Contains(sidebarColumn(s), "claude · web/claude")
		})
		t.Logf("%s: the client's screen before the daemon:\n%s\nand with --pane-format '{agent|proc|dir}':\n%s",
			w.Name(), panesExcerpt(before), panesExcerpt(scr.text()))
	})
}

// bordersNamed reports whether the panes' top border, the screen's first
// line to open a pane ("┌"), shows names from left to right.
func bordersNamed(screen string, names ...string) bool {
	for _, l := range strings.Split(screen, "\n") {
		if !strings.Contains(l, "┌") {
			continue
		}
		for _, n := range names {
			i := strings.Index(l, "┌ "+n+" ─")
			if i < 0 {
				return false
			}
			l = l[i+len("┌"):]
		}
		return true
	}
	return false
}

// sidebarColumn is the screen's sidebar: each line up to and with the
// first "│", the sidebar's edge, so that no pane's text counts.
func sidebarColumn(screen string) string {
	lines := strings.Split(screen, "\n")
	for i, l := range lines {
		if j := strings.Index(l, "│"); j >= 0 {
			lines[i] = l[:j+len("│")]
		}
	}
	return strings.Join(lines, "\n")
}

// panesExcerpt is what of the screen tells of pane names: its first
// lines, down to the panes' top border, and the sidebar's agents panel
// to its last row; the whole screen when it has no such panel.
func panesExcerpt(screen string) string {
	lines := strings.Split(screen, "\n")
	side := strings.Split(sidebarColumn(screen), "\n")
	top := 0
	for top < len(lines) && !strings.Contains(lines[top], "┌") {
		top++
	}
	from := -1
	for i, l := range side {
		if strings.HasPrefix(strings.TrimSpace(l), "agents") {
			from = i
			break
		}
	}
	if top == len(lines) || from < 0 {
		return screen
	}
	to := min(from+2, len(side)) // the panel's title and the blank line under it
	for to < len(side) && strings.Trim(side[to], " │") != "" {
		to++
	}
	out := append(lines[:top+1:top+1], "…")
	return strings.Join(append(out, side[from:to]...), "\n")
}
