package session

import (
	"crypto/md5"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	// The agents' writers, in the tests.
	_ "github.com/ncruces/go-sqlite3/driver"
)

// Sessions of the agents read by id, as each keeps them for a session
// started in paneDir (/home/u/src/api). Values are made up; the formats
// and their sources are in docs/sessions.md and beside each fixture.
const (
	qwenID     = "3f2a6c1e-9b7d-4e21-8f3a-5c6d7e8f9a0b"
	kimiID     = "session_6c1e2d3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
	copilotID  = "66957610-db49-4dea-972d-c079e1898044"
	droidID    = "0f3c2b1a-4d5e-4f60-8a7b-9c0d1e2f3a4b"
	grokID     = "019f6000-0000-7000-8000-000000000001"
	cursorID   = "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"
	opencodeID = "ses_7b2f0c1d9ffeAbCdEfGh123456"
	hermesID   = "20261102_090000_a1b2c3"
)

// store is where one agent keeps one session, below the home folder.
type store struct {
	agent, id string
	rel       string // the session file
	schema    string // a SQLite database made from this fixture; "" for a file
}

func cursorBucket() string {
	sum := md5.Sum([]byte(paneDir))
	return hex.EncodeToString(sum[:])
}

var stores = map[string]store{
	"qwen":             {"qwen", qwenID, ".qwen/projects/-home-u-src-api/chats/" + qwenID + ".jsonl", ""},
	"kimi":             {"kimi", kimiID, ".kimi-code/sessions/wd_api_0123456789ab/" + kimiID + "/state.json", ""},
	"copilot":          {"copilot", copilotID, ".copilot/session-state/" + copilotID + "/workspace.yaml", ""},
	"droid":            {"droid", droidID, ".factory/sessions/-home-u-src-api/" + droidID + ".jsonl", ""},
	"grok":             {"grok", grokID, ".grok/sessions/%2Fhome%2Fu%2Fsrc%2Fapi/" + grokID + "/summary.json", ""},
	"cursor":           {"cursor", cursorID, ".cursor/chats/" + cursorBucket() + "/" + cursorID + "/meta.json", ""},
	"cursor store":     {"cursor", cursorID, ".cursor/chats/" + cursorBucket() + "/" + cursorID + "/store.db", "cursor/schema.sql"},
	"opencode json":    {"opencode", opencodeID, ".local/share/opencode/storage/session/4f1c2d3e/" + opencodeID + ".json", ""},
	"opencode":         {"opencode", opencodeID, ".local/share/opencode/opencode.db", "opencode/schema.sql"},
	"kilo":             {"kilo", opencodeID, ".local/share/kilo/kilo.db", "opencode/schema.sql"},
	"hermes":           {"hermes", hermesID, ".hermes/state.db", "hermes/schema.sql"},
	"opencode other":   {"opencode", "ses_0c1d2e3f4a5bOtherSession00", ".local/share/opencode/opencode.db", "opencode/schema.sql"},
	"qwen elsewhere":   {"qwen", qwenID, ".qwen/projects/-home-u-other/chats/" + qwenID + ".jsonl", ""},
	"grok elsewhere":   {"grok", grokID, ".grok/sessions/%2Fhome%2Fu%2Fother/" + grokID + "/summary.json", ""},
	"cursor elsewhere": {"cursor", cursorID, ".cursor/chats/0123456789abcdef0123456789abcdef/" + cursorID + "/meta.json", ""},
}

func (s store) ref() Ref { return Ref{Agent: s.agent, Kind: KindID, Value: s.id, Dir: paneDir} }

// place lays the session down: the fixture's bytes, or a database made
// from the store's schema and then the SQL in fixture (as the agent's
// writer, left open as a running agent leaves it, WAL and all).
func (s store) place(w *world, fixtureName string) string {
	w.t.Helper()
	if s.schema == "" {
		return w.put(s.rel, fixture(w.t, fixtureName))
	}
	p := filepath.Join(w.home, s.rel)
	db := openWriter(w.t, p)
	for _, script := range []string{string(fixture(w.t, s.schema)), fixtureName} {
		if script == "" {
			continue
		}
		if _, err := db.Exec(script); err != nil {
			w.t.Fatalf("%s: %v", s.rel, err)
		}
	}
	return p
}

// openWriter opens the database at p as an agent does: read-write, in WAL
// mode, open until the test ends.
func openWriter(t testing.TB, p string) *sql.DB {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", "file:"+p+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	if err := db.Ping(); err != nil {
		t.Fatal(err)
	}
	return db
}

// Renames as each store takes them.
const (
	opencodeRename = "UPDATE session SET title = 'auth redirect' WHERE id = '" + opencodeID + "'"
	opencodeAuto   = "UPDATE session SET title = 'Fix login redirect loop' WHERE id = '" + opencodeID + "'"
	hermesRename   = "UPDATE sessions SET title = 'auth redirect' WHERE id = '" + hermesID + "'"
	hermesAuto     = "UPDATE sessions SET title = 'Fix login redirect loop' WHERE id = '" + hermesID + "'"
	cursorAuto     = "UPDATE meta SET value = '7b226e616d65223a22466978206c6f67696e207265646972656374206c6f6f70227d' WHERE key = '0'"
	cursorRename   = "UPDATE meta SET value = '7b226e616d65223a2261757468207265646972656374227d' WHERE key = '0'"
)

// TestAgentTitles reads each agent's sessions laid where the agent keeps
// them: a name a person gave over a generated one, a generated one, and
// the placeholders an agent writes before either, which are no title.
func TestAgentTitles(t *testing.T) {
	tests := []struct {
		name, store, fixture, want string
	}{
		{"qwen: /rename over a later automatic title", "qwen", "qwen/named.jsonl", "auth redirect"},
		{"qwen: an automatic title", "qwen", "qwen/auto.jsonl", "Fix login redirect loop"},
		{"qwen: started in another directory", "qwen elsewhere", "qwen/named.jsonl", "auth redirect"},
		{"kimi: /title", "kimi", "kimi/custom.json", "auth redirect"},
		{"kimi: generated", "kimi", "kimi/generated.json", "Fix login redirect loop"},
		{"copilot: /rename, quoted", "copilot", "copilot/user-named.yaml", "auth redirect"},
		{"copilot: generated", "copilot", "copilot/generated.yaml", "Fix login redirect loop"},
		{"droid: /rename", "droid", "droid/manual.jsonl", "auth redirect"},
		{"droid: the auto-titler's", "droid", "droid/auto.jsonl", "Fix login redirect loop"},
		{"droid: the placeholder is no title", "droid", "droid/placeholder.jsonl", ""},
		{"grok: /rename", "grok", "grok/manual.json", "auth redirect"},
		{"grok: generated", "grok", "grok/generated.json", "Fix login redirect loop"},
		{"grok: started in another directory", "grok elsewhere", "grok/manual.json", "auth redirect"},
		{"cursor: meta.json", "cursor", "cursor/meta.json", "Fix login redirect loop"},
		{"cursor: meta.json of another directory", "cursor elsewhere", "cursor/meta.json", "Fix login redirect loop"},
		{"cursor: store.db named", "cursor store", cursorRename, "auth redirect"},
		{"cursor: store.db's New Agent is no title", "cursor store", "", ""},
		{"opencode before 1.2: the JSON store", "opencode json", "opencode/session.json", "Fix login redirect loop"},
		{"opencode before 1.2: the placeholder", "opencode json", "opencode/placeholder.json", ""},
		{"opencode: renamed", "opencode", opencodeRename, "auth redirect"},
		{"opencode: the placeholder is no title", "opencode", "", ""},
		{"opencode: a session not in the database", "opencode other", opencodeRename, ""},
		{"kilo: generated", "kilo", opencodeAuto, "Fix login redirect loop"},
		{"hermes: titled", "hermes", hermesRename, "auth redirect"},
		{"hermes: no title yet", "hermes", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			s := stores[tt.store]
			p := s.place(w, tt.fixture)
			got, path := w.reader().Lookup(s.ref())
			if got != tt.want {
				t.Errorf("Title = %q, want %q", got, tt.want)
			}
			if real, _ := filepath.EvalSymlinks(p); path != real {
				t.Errorf("Lookup's path = %q, want %q", path, real)
			}
		})
	}
}
