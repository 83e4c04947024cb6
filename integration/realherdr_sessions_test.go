package integration

import (
	"context"
	"crypto/md5"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/ncruces/go-sqlite3/driver"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// TestRealHerdrSessionStoresNameTabs: one agent of each family of
// session store names its tab ({session|dir}) from the session herdr says
// its pane runs, and follows a person's rename with no poll (--poll 0,
// --agent-poll 0): Qwen Code's chat (JSON lines, appended), Copilot
// CLI's workspace.yaml (a small file replaced whole) and a Cursor chat's
// store.db (SQLite in WAL mode, its writer open as the agent keeps it).
// herdr 0.8.2 keeps these agents' sessions from their official sources
// (herdr:qwen, herdr:copilot, herdr:cursor) without their processes,
// which it finds on screen for their status.
func TestRealHerdrSessionStoresNameTabs(t *testing.T) {
	t.Parallel()
	const (
		qwenID    = "3f2a6c1e-9b7d-4e21-8f3a-5c6d7e8f9a0b"
		copilotID = "66957610-db49-4dea-972d-c079e1898044"
		cursorID  = "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"
	)
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		sb := w.Sandbox()
		dirs := mkdirs(t, sb, "src/api", "src/web", "src/cli")
		ws, qwenTab, qwenPane := w.NewWorkspace(t, dirs[0])
		copilotTab, copilotPane := w.NewTab(t, ws, dirs[1])
		cursorTab, cursorPane := w.NewTab(t, ws, dirs[2])

		chat := sb.HomePath(".qwen", "projects", qwenFolder(t, dirs[0]), "chats", qwenID+".jsonl")
		writeFile(t, chat, qwenTitle("Fix login redirect loop", "auto"))
		workspace := sb.HomePath(".copilot", "session-state", copilotID, "workspace.yaml")
		writeFile(t, workspace, copilotWorkspaceYAML("Add dark mode toggle", false))
		store := sb.HomePath(".cursor", "chats", cursorBucket(t, dirs[2]), cursorID, "store.db")
		db := cursorStore(t, store, "Speed up the CLI start")

		for _, r := range []struct{ pane, agent, id string }{
			{qwenPane, "qwen", qwenID}, {copilotPane, "copilot", copilotID}, {cursorPane, "cursor", cursorID},
		} {
			reportAgentSession(t, w, r.pane, r.agent, r.id)
			want := herdr.AgentSession{Source: "herdr:" + r.agent, Agent: r.agent, Kind: herdr.SessionKindID, Value: r.id}
			if s := paneSession(t, w, r.pane); s == nil || *s != want {
				t.Fatalf("%s: pane %s reports agent_session %+v, want %+v", w.Name(), r.pane, s, want)
			}
		}

		d := startWorldDaemon(t, w, "--format", "{session|dir}", "--max-len", "40", "--poll", "0", "--agent-poll", "0")
		waitWorldLabels(t, w, ws, "Fix login redirect loop", "Add dark mode toggle", "Speed up the CLI start")
		idle(t, d)

		appendFile(t, chat, qwenTitle("auth redirect", "manual"))
		followed(t, w, d, qwenTab, "auth redirect", "after Qwen Code's /rename")

		replaceFile(t, workspace, copilotWorkspaceYAML("dark mode", true))
		followed(t, w, d, copilotTab, "dark mode", "after Copilot's /rename")

		setCursorName(t, db, "cli start")
		followed(t, w, d, cursorTab, "cli start", "after a Cursor chat's rename")
	})
}

// reportAgentSession makes agent the pane's agent (from a source of the
// test's own: herdr finds these agents' processes for their status) and
// reports its session id as the agent's herdr hook does at session start.
func reportAgentSession(t *testing.T, w world, pane, agent, id string) {
	t.Helper()
	client := herdr.New(w.Socket(), herdr.WithTimeout(10*time.Second))
	for _, c := range []struct {
		method string
		params map[string]any
	}{
		{"pane.report_agent", map[string]any{"pane_id": pane, "source": "herdrtabrenamer-test", "agent": agent, "state": "idle"}},
		{"pane.report_agent_session", map[string]any{"pane_id": pane, "source": "herdr:" + agent, "agent": agent,
			"seq": 1, "agent_session_id": id, "session_start_source": "startup"}},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := client.Call(ctx, c.method, c.params, nil)
		cancel()
		if err != nil {
			t.Fatalf("%s: %s: %v", w.Name(), c.method, err)
		}
	}
}

// qwenFolder is Qwen Code's folder of projects/ for dir: its resolved
// path with every character but an ASCII letter or digit made '-'.
func qwenFolder(t *testing.T, dir string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			return c
		}
		return '-'
	}, real)
}

// qwenTitle is the record Qwen Code appends for a session title.
func qwenTitle(title, source string) string {
	return `{"uuid":"` + title + `","type":"system","subtype":"custom_title","sessionId":"s","systemPayload":{"customTitle":"` +
		title + `","titleSource":"` + source + `"}}` + "\n"
}

// copilotWorkspaceYAML is a Copilot CLI session's workspace.yaml.
func copilotWorkspaceYAML(name string, userNamed bool) string {
	named := "false"
	if userNamed {
		named = "true"
	}
	return "id: 66957610-db49-4dea-972d-c079e1898044\ncwd: /home/u/src/web\nuser_named: " + named +
		"\nsummary_count: 0\ncreated_at: 2026-11-02T09:00:00.000Z\nname: " + name + "\n"
}

// replaceFile replaces path with content as an agent saves a small file:
// written beside it, then moved over it.
func replaceFile(t *testing.T, path, content string) {
	t.Helper()
	writeFile(t, path+".tmp", content)
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
}

// cursorBucket is Cursor's folder of chats/ for dir: the MD5 of its
// resolved path.
func cursorBucket(t *testing.T, dir string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	sum := md5.Sum([]byte(real))
	return hex.EncodeToString(sum[:])
}

// cursorStore makes a Cursor chat's store.db named name and returns its
// writer, in WAL mode and open until the test ends.
func cursorStore(t *testing.T, path, name string) *sql.DB {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('0', '')"); err != nil {
		t.Fatal(err)
	}
	setCursorName(t, db, name)
	return db
}

// setCursorName renames the chat: meta row "0" is the hex of its JSON.
func setCursorName(t *testing.T, db *sql.DB, name string) {
	t.Helper()
	v := hex.EncodeToString([]byte(`{"agentId":"a1","name":"` + name + `","mode":"agent"}`))
	if _, err := db.Exec("UPDATE meta SET value = ? WHERE key = '0'", v); err != nil {
		t.Fatal(err)
	}
}
