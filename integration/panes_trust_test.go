package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/triage"
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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

// movePane moves pane to a new tab of workspace ws, as a person does
// (pane.move), and returns its id there: a new one when ws is another.
func movePane(t *testing.T, w world, pane, ws string) string {
	t.Helper()
	switch w := w.(type) {
	case *realWorld:
		var r struct {
			Result struct {
				Pane herdr.Pane `json:"pane"`
			} `json:"move_result"`
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := w.client.Call(ctx, "pane.move", map[string]any{"pane_id": pane,
			"destination": map[string]any{"type": "new_tab", "workspace_id": ws}}, &r); err != nil || r.Result.Pane.ID == "" {
			t.Fatalf("pane.move %s to %s: %+v, %v", pane, ws, r, err)
		}
		return r.Result.Pane.ID
	case *simWorld:
		id := w.srv.MovePane(pane, ws)
		w.mu.Lock()
		w.ttys[id], w.kills[id] = w.ttys[pane], w.kills[pane]
		w.mu.Unlock()
		return id
	}
	t.Fatalf("no pane move for %T", w)
	return ""
}

// cli runs one of our commands against w, failing t unless it exits 0.
func cli(t *testing.T, w world, args ...string) string {
	t.Helper()
	sb := w.Sandbox()
	out, stderr, code := runCLI(t, sb, append(args, "--socket", w.Socket(), "--state", sb.StatePath)...)
	if code != 0 {
		t.Fatalf("%s: %s: exit %d: %s", w.Name(), strings.Join(args, " "), code, stderr)
	}
	return out
}

// TestRealHerdrAPersonsPaneLabelThatARenderSpells: a person who names a
// pane after its folder chose what --pane-format would render; herdr
// names no pane, so the label is theirs: kept at the daemon's start, at
// its passes, and by restore, which clears only the labels we set.
func TestRealHerdrAPersonsPaneLabelThatARenderSpells(t *testing.T) {
	t.Parallel()
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		dirs := mkdirs(t, w.Sandbox(), "projects/api", "projects/web", "projects/doc")
		_, _, p1 := w.NewWorkspace(t, dirs[0])
		p2 := splitPane(t, w, p1, dirs[1])
		p3 := splitPane(t, w, p2, dirs[2])
		personRenamePane(t, w, p1, "api")
		w.Type(t, p1, "tee")
		w.Type(t, p2, "sort")
		d := startWorldDaemon(t, w, paneFormat...)
		waitPaneLabels(t, w, d, map[string]string{p2: "sort", p3: "doc"})
		passes(t, d, 3)
		checkPaneLabel(t, w, d, p1, "api", "at the daemon's start")

		personRenamePane(t, w, p2, "web")
		passes(t, d, 3)
		checkPaneLabel(t, w, d, p2, "web", "after passes")

		out := cli(t, w, "restore", "--apply")
		if !d.Exited() && d.Wait(waitTimeout) == -1 {
			t.Fatalf("%s: restore --apply did not stop the daemon\n%s", w.Name(), out)
		}
		waitPaneLabels(t, w, d, map[string]string{p1: "api", p2: "web", p3: ""})
	})
}

// TestRealHerdrAPanesMemoryFollowsItsMove: a pane moved to another
// workspace gets a new id from herdr and keeps its terminal: our name on
// it is still ours (it follows the pane's program, explain calls it
// ours), and a pane locked with no label stays without one.
func TestRealHerdrAPanesMemoryFollowsItsMove(t *testing.T) {
	t.Parallel()
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		dirs := mkdirs(t, w.Sandbox(), "projects/api", "projects/web", "projects/doc", "projects/ops")
		_, _, p1 := w.NewWorkspace(t, dirs[0])
		p2 := splitPane(t, w, p1, dirs[1])
		p3 := splitPane(t, w, p2, dirs[2])
		ws2, _, _ := w.NewWorkspace(t, dirs[3])
		w.Type(t, p2, "tee")
		d := startWorldDaemon(t, w, paneFormat...)
		waitPaneLabels(t, w, d, map[string]string{p1: "api", p2: "tee", p3: "doc"})
		personRenamePane(t, w, p3, "")
		cli(t, w, "lock", "--pane", p3)

		m2 := movePane(t, w, p2, ws2)
		m3 := movePane(t, w, p3, ws2)
		if m2 == p2 || m3 == p3 {
			t.Fatalf("%s: moved to another workspace, %s and %s kept their ids", w.Name(), m2, m3)
		}
		passes(t, d, 3)
		w.EOF(t, m2)
		waitPaneLabels(t, w, d, map[string]string{m2: "web"})
		passes(t, d, 3)
		checkPaneLabel(t, w, d, m3, "", "locked with no label, moved")
		if out := cli(t, w, "explain", "--pane", m2, "--pane-format", paneFormat[1]); !strings.Contains(out, "ours") {
			t.Errorf("%s: explain --pane %s calls its label no longer ours:\n%s", w.Name(), m2, out)
		}
	})
}

// TestRealHerdrAPaneReleaseEndsWhenAPersonNamesIt: `release --pane` of a
// pane that gets no name now (no agent, --pane-format {agent}) waits for
// one; the person names the pane meanwhile, so the release is over and
// an agent's start later keeps their name. A released pane nobody named
// takes the agent's name.
func TestRealHerdrAPaneReleaseEndsWhenAPersonNamesIt(t *testing.T) {
	t.Parallel()
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		dirs := mkdirs(t, w.Sandbox(), "projects/api", "projects/web")
		_, _, p1 := w.NewWorkspace(t, dirs[0])
		p2 := splitPane(t, w, p1, dirs[1])
		d := startWorldDaemon(t, w, "--pane-format", "{agent}")
		passes(t, d, 2)
		cli(t, w, "release", "--pane", p1)
		cli(t, w, "release", "--pane", p2)
		passes(t, d, 2)
		personRenamePane(t, w, p1, "notes")
		passes(t, d, 3)
		reportAgent(t, w, p1, "claude", "idle")
		reportAgent(t, w, p2, "codex", "idle")
		waitPaneLabels(t, w, d, map[string]string{p2: "codex"})
		passes(t, d, 3)
		checkPaneLabel(t, w, d, p1, "notes", "named by its person after its release, at an agent's start")
	})
}

// titleSetter lets a test give a pane a new terminal title with no key
// typed and no program started (the way a long-running program does):
// on real herdr a pipeline in the pane's shell prints each line appended
// to a file as a title; herdrsim is told the title.
type titleSetter func(title string)

// quietTitles starts what sets pane's titles.
func quietTitles(t *testing.T, w world, pane, dir string) titleSetter {
	t.Helper()
	switch w := w.(type) {
	case *simWorld:
		return func(title string) { w.srv.SetTitle(pane, title) }
	case *realWorld:
		trig := filepath.Join(dir, ".titles")
		writeFile(t, trig, "")
		w.Type(t, pane, "tail -n0 -f "+trig+` | while read x; do printf '\033]2;%s\007' "$x"; done`)
		time.Sleep(500 * time.Millisecond) // tail is reading
		return func(title string) {
			f, err := os.OpenFile(trig, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString(title + "\n"); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Fatalf("no titles for %T", w)
	return nil
}

// chattyTitles makes pane print a new terminal title every 50 ms until t
// ends: twenty pane.updated a second, twice what herdr 0.8 drains from a
// subscription entry.
func chattyTitles(t *testing.T, w world, pane string) {
	t.Helper()
	switch w := w.(type) {
	case *simWorld:
		stop, done := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				case <-time.After(50 * time.Millisecond):
					w.srv.SetTitle(pane, fmt.Sprintf("chatty %d", i))
				}
			}
		}()
		t.Cleanup(func() { close(stop); <-done })
	case *realWorld:
		w.Type(t, pane, `sh -c 'i=0; while :; do i=$((i+1)); printf "\033]2;chatty %s\007" $i; sleep 0.05; done'`)
	}
}

// TestRealHerdrAChattyPaneDelaysNoOtherName: one pane prints a new title
// twenty times a second, more than herdr 0.8 drains from the one
// pane.updated entry of a subscription; another pane's new title still
// names its tab within herdr's poll (the kernel's word of the write to
// its terminal answers before), where the backlog took tens of seconds.
// The daemon polls nothing else here (--poll and --rest-poll an hour).
func TestRealHerdrAChattyPaneDelaysNoOtherName(t *testing.T) {
	t.Parallel()
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		dirs := mkdirs(t, w.Sandbox(), "projects/logs", "projects/quiet")
		ws, _, chatty := w.NewWorkspace(t, dirs[0])
		lead := splitPane(t, w, chatty, dirs[0])
		reportAgent(t, w, lead, "claude", "idle") // the tab's lead: the chatty pane names nothing
		tab, quiet := w.NewTab(t, ws, dirs[1])
		setTitle := quietTitles(t, w, quiet, dirs[1])
		d := startWorldDaemon(t, w, append([]string{"--format", "{title|dir}"}, quietPolls...)...)
		waitWorldLabel(t, w, tab, "quiet", d.Log)
		chattyTitles(t, w, chatty)
		time.Sleep(3 * time.Second) // a backlog, and the daemon's answer to it
		for i := range 5 {
			title := fmt.Sprintf("step %d", i)
			start := time.Now()
			setTitle(title)
			waitWorldLabel(t, w, tab, title, d.Log)
			took := time.Since(start)
			t.Logf("%s: %q named the tab after %v", w.Name(), title, took)
			if took > triage.AnswerPoll+2*time.Second {
				t.Errorf("%s: %q named the tab after %v, want within herdr's poll (%v)", w.Name(), title, took, triage.AnswerPoll)
			}
			time.Sleep(time.Second)
		}
	})
}
