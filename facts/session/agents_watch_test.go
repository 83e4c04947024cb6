package session

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"go.uber.org/goleak"
)

// renameBound is how long a rename may take to signal Changed: the
// promise is within a second; the bound leaves room for a loaded machine.
const renameBound = 1500 * time.Millisecond

// renameStep is how an agent records a person's rename: a line appended,
// a file replaced whole (written beside it, then moved over it), its
// first line rewritten in place, or a database row updated by the
// agent's open writer.
type renameStep func(t *testing.T, w *world, s store, p string)

func appendLine(line string) renameStep {
	return func(t *testing.T, _ *world, _ store, p string) { appendTo(t, p, line+"\n") }
}

func replaceWith(name string) renameStep {
	return func(t *testing.T, w *world, _ store, p string) {
		tmp := p + ".tmp"
		if err := os.WriteFile(tmp, fixture(t, name), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, p); err != nil {
			t.Fatal(err)
		}
	}
}

func rewriteInPlace(name string) renameStep {
	return func(t *testing.T, _ *world, _ store, p string) {
		if err := os.WriteFile(p, fixture(t, name), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func updateRow(stmt string) renameStep {
	return func(t *testing.T, w *world, s store, p string) {
		if _, err := openWriter(t, p).Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAgentRenameWhileRunning: each agent's session starts with a
// generated title, a person renames it while the daemon runs, and the
// watch of its store signals Changed within a second; the next pass shows
// the name.
func TestAgentRenameWhileRunning(t *testing.T) {
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, before) })
	tests := []struct {
		store, start string
		rename       renameStep
	}{
		{"qwen", "qwen/auto.jsonl", appendLine(`{"type":"system","subtype":"custom_title","sessionId":"` + qwenID + `","systemPayload":{"customTitle":"auth redirect","titleSource":"manual"}}`)},
		{"kimi", "kimi/generated.json", replaceWith("kimi/custom.json")},
		{"copilot", "copilot/generated.yaml", replaceWith("copilot/user-named.yaml")},
		{"droid", "droid/auto.jsonl", rewriteInPlace("droid/manual.jsonl")},
		{"grok", "grok/generated.json", replaceWith("grok/manual.json")},
		{"cursor store", cursorAuto, updateRow(cursorRename)},
		{"opencode", opencodeAuto, updateRow(opencodeRename)},
		{"kilo", opencodeAuto, updateRow(opencodeRename)},
		{"hermes", hermesAuto, updateRow(hermesRename)},
	}
	for _, tt := range tests {
		t.Run(tt.store, func(t *testing.T) {
			w := newWorld(t)
			s := stores[tt.store]
			p := s.place(w, tt.start)
			ss := newSessionsIn(t, w.home)
			pane := herdr.Pane{ID: "w1:p1", Agent: s.agent, Cwd: paneDir,
				AgentSession: &herdr.AgentSession{Source: "herdr:" + s.agent, Agent: s.agent, Kind: herdr.SessionKindID, Value: s.id}}
			if got := ss.Titles([]herdr.Pane{pane}); got[pane.ID] != "Fix login redirect loop" {
				t.Fatalf("before the rename: %v (%s)", got, ss.Why(pane.ID))
			}
			waitQuiet(t, ss)
			for waitChanged(ss, 4*sessionCoalesce) { // the pass's own second look
			}
			start := time.Now()
			tt.rename(t, w, s, p)
			if !waitChanged(ss, renameBound) {
				t.Fatalf("no Changed within %v of the rename", renameBound)
			}
			t.Logf("Changed %v after the rename", time.Since(start).Round(time.Millisecond))
			if got := ss.Titles([]herdr.Pane{pane}); got[pane.ID] != "auth redirect" {
				t.Fatalf("after the rename: %v (%s)", got, ss.Why(pane.ID))
			}
		})
	}
}

// TestSessionFilesPolledWithoutWatch: with no watch to be had (fsnotify
// fails to start), the session files of the panes are looked at every
// pollEvery, stat only: a rename still signals Changed within a second,
// and nothing is read while nothing changes.
func TestSessionFilesPolledWithoutWatch(t *testing.T) {
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, before) })
	w := newWorld(t)
	claude := w.put(claudeRel(claudeSession), fixture(t, "claude/ai-title.jsonl"))
	db := stores["opencode"]
	dbPath := db.place(w, opencodeAuto)
	var told []error
	s := NewSessions(Options{Home: w.home, Getenv: func(string) string { return "" }, Log: slog.New(slog.DiscardHandler)},
		func(err error) { told = append(told, err) })
	s.newWatcher = func() (*fsnotify.Watcher, error) { return nil, errors.New("too many open files") }
	t.Cleanup(func() { s.Close() })
	panes := []herdr.Pane{claudePane("w1:p1", claudeSession, paneDir),
		{ID: "w1:p2", Agent: "opencode", AgentSession: &herdr.AgentSession{Source: "herdr:opencode", Agent: "opencode", Kind: herdr.SessionKindID, Value: opencodeID}}}
	want := map[string]string{"w1:p1": "Fix login and logout redirects", "w1:p2": "Fix login redirect loop"}
	if got := s.Titles(panes); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Titles = %v, want %v", got, want)
	}
	if len(told) != 1 || told[0] == nil {
		t.Errorf("told %v, want the watcher's error once", told)
	}
	// The first looks read again what the pass read: unchanged, nothing.
	for waitChanged(s, 3*pollEvery) {
	}
	read := s.BytesRead()
	if waitChanged(s, 3*pollEvery) || s.BytesRead() != read {
		t.Fatalf("unchanged files: woke, or read %d bytes", s.BytesRead()-read)
	}
	steps := []struct {
		change func()
		want   map[string]string
	}{
		{func() { appendTo(t, claude, customTitle("auth redirect")) }, map[string]string{"w1:p1": "auth redirect", "w1:p2": "Fix login redirect loop"}},
		{func() { updateRow(opencodeRename)(t, w, db, dbPath) }, map[string]string{"w1:p1": "auth redirect", "w1:p2": "auth redirect"}},
	}
	for i, st := range steps {
		st.change()
		if !waitChanged(s, renameBound) {
			t.Fatalf("step %d: no Changed within %v without a watch", i, renameBound)
		}
		if got := s.Titles(panes); fmt.Sprint(got) != fmt.Sprint(st.want) {
			t.Fatalf("step %d: Titles = %v, want %v", i, got, st.want)
		}
	}
	s.Prune(nil)
	s.mu.Lock()
	n := len(s.panes)
	s.mu.Unlock()
	if n != 0 {
		t.Errorf("%d panes kept after Prune", n)
	}
}

// outsideFile copies fixture name to a folder outside any home.
func outsideFile(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), filepath.Base(name))
	if err := os.WriteFile(p, fixture(t, name), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// linkOut makes the store's file a symlink to a copy of fixture name
// outside the agent's folder.
func linkOut(name string) func(t *testing.T, w *world, s store) {
	return func(t *testing.T, w *world, s store) { w.link(s.rel, outsideFile(t, name)) }
}

// outsideDB makes a Hermes database titled outside any home.
func outsideDB(t *testing.T) string {
	out := filepath.Join(t.TempDir(), "state.db")
	if _, err := openWriter(t, out).Exec(string(fixture(t, "hermes/schema.sql")) + ";" + hermesRename); err != nil {
		t.Fatal(err)
	}
	return out
}

// agentHostileCases each lay down a store that must give no title.
var agentHostileCases = []struct {
	name, store string
	setup       func(t *testing.T, w *world, s store)
}{
	{"qwen: a chat linked out", "qwen", linkOut("qwen/named.jsonl")},
	{"kimi: a state.json cut short", "kimi", func(t *testing.T, w *world, s store) {
		w.put(s.rel, fixture(t, "kimi/custom.json")[:40])
	}},
	{"copilot: a huge workspace.yaml", "copilot", func(t *testing.T, w *world, s store) {
		w.put(s.rel, append(fixture(t, "copilot/user-named.yaml"), []byte("notes: "+strings.Repeat("x", maxWhole)+"\n")...))
	}},
	{"copilot: a block scalar", "copilot", func(_ *testing.T, w *world, s store) {
		w.put(s.rel, []byte("user_named: true\nname: |\n  auth redirect\n"))
	}},
	{"droid: a first line past the bound", "droid", func(_ *testing.T, w *world, s store) {
		w.put(s.rel, []byte(`{"type":"session_start","title":"auth redirect","isSessionTitleManuallySet":true,"pad":"`+strings.Repeat("x", MaxRead)+`"}`+"\n"))
	}},
	{"grok: a session folder linked out", "grok", func(t *testing.T, w *world, s store) {
		out := filepath.Dir(outsideFile(t, "grok/manual.json"))
		if err := os.Rename(filepath.Join(out, "manual.json"), filepath.Join(out, "summary.json")); err != nil {
			t.Fatal(err)
		}
		w.link(filepath.Dir(s.rel), out)
	}},
	{"cursor: meta.json linked out", "cursor", linkOut("cursor/meta.json")},
	{"opencode: a locked database", "opencode", func(t *testing.T, w *world, s store) {
		p := filepath.Join(w.home, s.rel)
		db := openWriter(t, p)
		if _, err := db.Exec(string(fixture(t, s.schema)) + ";" + opencodeRename); err != nil {
			t.Fatal(err)
		}
		db.Close()
		lock := openWriter(t, p)
		for _, q := range []string{"PRAGMA locking_mode=EXCLUSIVE", "BEGIN EXCLUSIVE", opencodeAuto} {
			if _, err := lock.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
	}},
	{"kilo: a damaged database", "kilo", func(_ *testing.T, w *world, s store) {
		w.put(s.rel, append([]byte("SQLite format 3\x00"), make([]byte, 4096)...))
	}},
	{"hermes: a database linked out", "hermes", func(t *testing.T, w *world, s store) {
		w.link(s.rel, outsideDB(t))
	}},
	{"hermes: a -wal linked out", "hermes", func(t *testing.T, w *world, s store) {
		out := outsideDB(t)
		w.put(s.rel, nil)
		w.put(s.rel+"-shm", nil)
		w.link(s.rel+"-wal", out+"-wal")
	}},
}

// hostileWhy are words the reason for some of agentHostileCases holds.
var hostileWhy = map[string]string{"opencode: a locked database": "locked by another process"}

// TestAgentHostileStores: a session file linked out of the agent's
// folder, a huge or damaged one, a locked or damaged database: no title,
// never a hang, and one line saying why.
func TestAgentHostileStores(t *testing.T) {
	for _, tt := range agentHostileCases {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			s := stores[tt.store]
			tt.setup(t, w, s)
			ss := newSessionsIn(t, w.home)
			pane := herdr.Pane{ID: "w1:p1", Agent: s.agent, Cwd: paneDir,
				AgentSession: &herdr.AgentSession{Source: "herdr:" + s.agent, Agent: s.agent, Kind: herdr.SessionKindID, Value: s.id}}
			done := make(chan map[string]string, 1)
			start := time.Now()
			go func() { done <- ss.Titles([]herdr.Pane{pane}) }()
			select {
			case got := <-done:
				if len(got) != 0 {
					t.Errorf("Titles = %v, want none", got)
				}
			case <-time.After(wakeBound):
				t.Fatal("Titles blocked")
			}
			why := ss.Why(pane.ID)
			if why == "" || strings.Contains(why, "\n") || !strings.Contains(why, hostileWhy[tt.name]) || strings.Contains(why, "_pragma") {
				t.Errorf("Why = %q, want one line saying %q", why, hostileWhy[tt.name])
			}
			t.Logf("in %v: %s", time.Since(start).Round(time.Millisecond), why)
		})
	}
}
