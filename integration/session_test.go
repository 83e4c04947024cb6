package integration

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// claudeFixture is a Claude Code transcript in the format facts/session
// reads, whose latest AI title is claudeFixtureTitle.
const (
	claudeFixture      = "../facts/session/testdata/claude/ai-title.jsonl"
	claudeFixtureTitle = "Fix login and logout redirects"
)

// followBound is how long a tab may take to show a session's new title
// before the test fails. The promise is well within a second on an idle
// machine; the bound is for a loaded 2-core CI machine, and the measured
// delay is logged instead of asserted.
const followBound = 10 * time.Second

// TestSessionTitleFollowsTheTranscript: a tab whose lead pane runs Claude
// Code is named after its session ({session|dir}): herdr knows the session
// by id (pane.report_agent_session, as Claude Code's hook sends it), and
// the transcript under the daemon's ~/.claude says its title. A /rename
// appends a custom-title line, and the tab follows; renamed twice, the
// latest name wins. The daemon does not poll (--poll 0) and herdr knows
// nothing of a /rename, so only the daemon's watch of the transcript can
// bring those renames.
//
// A second session's transcript path is a symlink to a file outside
// ~/.claude: it is not read, so its tab keeps falling back to {dir}.
func TestSessionTitleFollowsTheTranscript(t *testing.T) {
	t.Parallel()
	fixture, err := os.ReadFile(claudeFixture)
	if err != nil {
		t.Fatal(err)
	}
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		sb := w.Sandbox()
		dirs := mkdirs(t, sb, "src/api", "src/web")
		ws, tab, pane := w.NewWorkspace(t, dirs[0])
		hostileTab, hostilePane := w.NewTab(t, ws, dirs[1])

		const id, hostileID = "4f35e220-c435-4cf7-b9b9-f40426042847", "9d1c0b7e-5a2f-4e63-8b1d-2c7f0e9a4b15"
		transcript := claudeTranscript(t, sb, dirs[0], id)
		writeFile(t, transcript, string(fixture))
		outside := sb.HomePath("outside", hostileID+".jsonl")
		writeFile(t, outside, claudeRename("read me"))
		link := claudeTranscript(t, sb, dirs[1], hostileID)
		if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, link); err != nil {
			t.Fatal(err)
		}

		for p, sid := range map[string]string{pane: id, hostilePane: hostileID} {
			reportClaudeSession(t, w, p, sid)
			want := herdr.AgentSession{Source: "herdr:claude", Agent: "claude", Kind: herdr.SessionKindID, Value: sid}
			if s := paneSession(t, w, p); s == nil || *s != want {
				t.Fatalf("%s: pane %s reports agent_session %+v, want %+v", w.Name(), p, s, want)
			}
		}

		// --max-len 40 shows the fixture's title whole.
		d := startWorldDaemon(t, w, "--format", "{session|dir}", "--max-len", "40", "--poll", "0", "--agent-poll", "0")
		waitWorldLabels(t, w, ws, claudeFixtureTitle, "web")
		// From here on only news brings a pass, and none comes: a tab
		// that follows the transcript was woken by its watch.
		idle(t, d)

		appendFile(t, transcript, claudeRename("auth redirect"))
		followed(t, w, d, tab, "auth redirect", "after a /rename")

		appendFile(t, transcript, claudeRename("login bug"))
		appendFile(t, transcript, claudeRename("auth redirect, take two"))
		followed(t, w, d, tab, "auth redirect, take two", "after two /renames")

		// A write to the file the link leads to changes nothing either.
		appendFile(t, outside, claudeRename("read me too"))
		nudgedPasses(t, w, d, 1)
		if got := worldLabel(t, w, hostileTab); got != "web" {
			t.Fatalf("%s: the tab whose transcript links out of ~/.claude is %q, want %q\n%s", w.Name(), got, "web", d.Log())
		}
	})
}

// TestSessionTitleFollowsANewSession: herdr sends no event when a pane's
// agent session changes, and the daemon does not poll (--poll 0), so only
// its watch of the transcripts' folders brings a new session's title.
// Claude Code's /clear reports a new session id and then writes its
// transcript beside the old one: the tab follows the new transcript's
// title. A session started in a directory Claude Code has no folder for
// yet is followed too, once its folder and transcript are written.
func TestSessionTitleFollowsANewSession(t *testing.T) {
	t.Parallel()
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		sb := w.Sandbox()
		dirs := mkdirs(t, sb, "src/api", "src/web")
		ws, tab, pane := w.NewWorkspace(t, dirs[0])
		newTab, newPane := w.NewTab(t, ws, dirs[1])

		const oldID, clearedID, newID = "4f35e220-c435-4cf7-b9b9-f40426042847",
			"7b2e9c41-0d3a-4f6e-9a15-8c4d2e1f0b37", "c81d4e2a-6f3b-4a90-b7e5-1d2c3b4a5f60"
		writeFile(t, claudeTranscript(t, sb, dirs[0], oldID), claudeRename("auth redirect"))
		reportClaudeSession(t, w, pane, oldID)
		reportClaudeSession(t, w, newPane, newID) // its transcript is not written yet

		d := startWorldDaemon(t, w, "--format", "{session|dir}", "--max-len", "40", "--poll", "0", "--agent-poll", "0")
		waitWorldLabels(t, w, ws, "auth redirect", "web")
		idle(t, d)

		// /clear: the hook reports the new session, which herdr keeps
		// without a word to the daemon.
		reportSessionStart(t, w, pane, clearedID, 2, "clear")
		want := herdr.AgentSession{Source: "herdr:claude", Agent: "claude", Kind: herdr.SessionKindID, Value: clearedID}
		if s := paneSession(t, w, pane); s == nil || *s != want {
			t.Fatalf("%s: after /clear the pane reports agent_session %+v, want %+v", w.Name(), s, want)
		}
		writeFile(t, claudeTranscript(t, sb, dirs[0], clearedID), claudeRename("logout bug"))
		followed(t, w, d, tab, "logout bug", "after /clear and the new transcript")

		writeFile(t, claudeTranscript(t, sb, dirs[1], newID), claudeRename("web session"))
		followed(t, w, d, newTab, "web session", "after a new session's first transcript")
	})
}

// reportSessionStart reports that pane's Claude Code started session id
// (start: "clear", "resume", ...), as herdr's hook does at SessionStart;
// seq must exceed the hook's earlier reports.
func reportSessionStart(t *testing.T, w world, pane, id string, seq int, start string) {
	t.Helper()
	client := herdr.New(w.Socket(), herdr.WithTimeout(10*time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := client.Call(ctx, "pane.report_agent_session", map[string]any{"pane_id": pane, "source": "herdr:claude", "agent": "claude",
		"seq": seq, "agent_session_id": id, "agent_session_path": "/elsewhere/" + id + ".jsonl", "session_start_source": start}, nil); err != nil {
		t.Fatalf("%s: pane.report_agent_session: %v", w.Name(), err)
	}
}

// claudeTranscript is where Claude Code keeps the transcript of session id
// started in dir: ~/.claude/projects/<dir, every character but an ASCII
// letter or digit made '-'>/<id>.jsonl. Claude Code names the folder
// after its resolved working directory.
func claudeTranscript(t *testing.T, sb *sandbox, dir, id string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	folder := strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			return c
		}
		return '-'
	}, real)
	return sb.HomePath(".claude", "projects", folder, id+".jsonl")
}

// claudeRename is what Claude Code appends to a transcript at /rename.
func claudeRename(name string) string {
	line := func(v map[string]string) string {
		b, _ := json.Marshal(v)
		return string(b) + "\n"
	}
	return line(map[string]string{"type": "custom-title", "customTitle": name}) +
		line(map[string]string{"type": "agent-name", "agentName": name})
}

// appendFile appends s to the file at path in one write, as an agent
// appends a line.
func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		f.Close()
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// reportClaudeSession makes Claude Code the pane's agent and reports its
// session id: the agent with pane.report_agent from a source of the
// test's own (herdr's Claude Code source only records a session: herdr
// finds claude's process and reads its status off the screen), then the
// session with pane.report_agent_session as herdr's Claude Code hook
// sends it at SessionStart, transcript path included (herdr keeps the id).
func reportClaudeSession(t *testing.T, w world, pane, id string) {
	t.Helper()
	client := herdr.New(w.Socket(), herdr.WithTimeout(10*time.Second))
	for _, c := range []struct {
		method string
		params map[string]any
	}{
		{"pane.report_agent", map[string]any{"pane_id": pane, "source": "herdrtabrenamer-test", "agent": "claude", "state": "idle"}},
		{"pane.report_agent_session", map[string]any{"pane_id": pane, "source": "herdr:claude", "agent": "claude",
			"seq": 1, "agent_session_id": id, "agent_session_path": "/elsewhere/" + id + ".jsonl", "session_start_source": "startup"}},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := client.Call(ctx, c.method, c.params, nil)
		cancel()
		if err != nil {
			t.Fatalf("%s: %s: %v", w.Name(), c.method, err)
		}
	}
}

// paneSession is the agent_session herdr's snapshot shows for pane.
func paneSession(t *testing.T, w world, pane string) *herdr.AgentSession {
	t.Helper()
	return worldPane(t, w, pane).AgentSession
}

// idle waits until d, which does not poll, has nothing under way: it has
// subscribed, that subscription has delivered herdr's history of tab and
// workspace renames (the JSON log's replay_over records of its gen), and
// the pass it asked for ran. Until news comes, d runs no pass.
func idle(t *testing.T, d *daemonProc) {
	t.Helper()
	settled(t, d)
	testutil.WaitFor(t, "a daemon with nothing under way", func() bool {
		recs := daemonRecords(d)
		gen, sub := 0, -1
		for i, m := range recs {
			if m["trace"] == "subscribed" {
				gen, sub = gen+1, i
			}
		}
		if sub < 0 {
			return false
		}
		over, passed := map[any]bool{}, false
		for i := sub; i < len(recs); i++ {
			m := recs[i]
			if m["replay_over"] != nil && m["gen"] == float64(gen) {
				over[m["replay_over"]] = true
			}
			passed = passed || m["local_reads"] != nil
		}
		return passed && over["tab.renamed"] && over["workspace.renamed"]
	}, d.Log)
}

// followed waits until tab's label is want, after a write to the session's
// transcript, and logs how long that took; it fails only past followBound.
func followed(t *testing.T, w world, d *daemonProc, tab, want, after string) {
	t.Helper()
	start := time.Now()
	var got string
	if !poll(followBound, func() bool { got = worldLabel(t, w, tab); return got == want }) {
		t.Fatalf("%s: %s the tab is %q, want %q (waited %v)\n%s", w.Name(), after, got, want, followBound, d.Log())
	}
	t.Logf("%s: %s the tab followed in %v", w.Name(), after, time.Since(start).Round(time.Millisecond))
}
