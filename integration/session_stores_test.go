package integration

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRealHerdrSessionSwitchFollowed: a Claude Code /resume takes up a
// session whose transcript exists, and /clear starts one not written yet;
// each agent's hook reports it to herdr a moment after the key that asked
// for it, and herdr tells no one. The daemon polls nothing within the
// test's life (freshArgs, --agent-poll 0): the tab follows each switch
// within a second because its local watch saw the pane's terminal read
// the person's keys and looked again. At rest, before and after, it asks
// herdr nothing (herdr's debug log, herdrsim's counters).
func TestRealHerdrSessionSwitchFollowed(t *testing.T) {
	t.Parallel()
	onWorlds(t, freshWorld(t, "HERDR_LOG=herdr=debug"), func(t *testing.T, w world) {
		sb := w.Sandbox()
		dirs := freshSetup(t, w, "projects/api")
		_, tab, pane := w.NewWorkspace(t, dirs[0])

		const first, resumed, cleared = "4f35e220-c435-4cf7-b9b9-f40426042847",
			"9d1c0b7e-5a2f-4e63-8b1d-2c7f0e9a4b15", "7b2e9c41-0d3a-4f6e-9a15-8c4d2e1f0b37"
		writeFile(t, claudeTranscript(t, sb, dirs[0], first), claudeRename("auth redirect"))
		writeFile(t, claudeTranscript(t, sb, dirs[0], resumed), claudeRename("logout bug"))
		reportClaudeSession(t, w, pane, first)

		d := freshDaemon(t, w, "--format", "{session|dir}", "--max-len", "40", "--agent-poll", "0")
		waitWorldLabel(t, w, tab, "auth redirect", d.Log)
		idle(t, d)
		atRest(t, w, d, "before the switches")

		for _, sw := range []struct {
			what, id, start, want string
			seq                   int
		}{
			{"/resume of a written session", resumed, "resume", "logout bug", 2},
			{"/clear, its transcript not written yet", cleared, "clear", "api", 3},
		} {
			// The person's keys, then the hook's report of the session.
			w.Type(t, pane, ":")
			time.Sleep(150 * time.Millisecond)
			reportSessionStart(t, w, pane, sw.id, sw.seq, sw.start)
			if s := paneSession(t, w, pane); s == nil || s.Value != sw.id {
				t.Fatalf("%s: after %s the pane reports agent_session %+v", w.Name(), sw.what, s)
			}
			followed(t, w, d, tab, sw.want, "after "+sw.what)
		}
		atRest(t, w, d, "after the switches")
	})
}

// atRest waits until the looks the last input asked for are over, then
// checks that herdr gets no request from the daemon over freshRestSpan.
func atRest(t *testing.T, w world, d *daemonProc, when string) {
	t.Helper()
	time.Sleep(4 * time.Second) // the last look is 3 s after the last input
	counts := herdrRequestsDuring(t, w, freshRestSpan)
	t.Logf("%s: %s, herdr's requests over %v at rest: %v", w.Name(), when, freshRestSpan, counts)
	for method, n := range counts {
		if method != "pane.report_metadata" && n > 0 {
			t.Errorf("%s: %s, %d %s over %v at rest, want none\n%s", w.Name(), when, n, method, freshRestSpan, d.Log())
		}
	}
}

// TestRealHerdrDatabaseFIFONeverHangs: a FIFO named <db>-journal beside
// a Hermes database and a Cursor chat's store.db, each agent running (its
// writer open, the database in WAL mode): SQLite's hot-journal check
// would open it and block. The daemon names every tab (those two after
// their folders, a Claude Code tab beside them after its session), once
// and explain return and say why each tab's {session} is what it is, and
// SIGTERM stops the daemon at once. (herdr keeps an OpenCode session only
// once it sees OpenCode's process: facts/session's tests cover its
// database.)
func TestRealHerdrDatabaseFIFONeverHangs(t *testing.T) {
	t.Parallel()
	const (
		cursorID = "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d"
		hermesID = "20261102_090000_a1b2c3"
		claudeID = "4f35e220-c435-4cf7-b9b9-f40426042847"
	)
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		sb := w.Sandbox()
		dirs := mkdirs(t, sb, "src/api", "src/web", "src/cli")
		ws, _, cursorPane := w.NewWorkspace(t, dirs[0])
		_, hermesPane := w.NewTab(t, ws, dirs[1])
		_, claudePane := w.NewTab(t, ws, dirs[2])

		store := sb.HomePath(".cursor", "chats", cursorBucket(t, dirs[0]), cursorID, "store.db")
		cursorStore(t, store, "Speed up the CLI start")
		state := sb.HomePath(".hermes", "state.db")
		if _, err := walDB(t, state).Exec(hermesSchema(hermesID)); err != nil {
			t.Fatal(err)
		}
		for _, db := range []string{store, state} {
			if err := syscall.Mkfifo(db+"-journal", 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
		}
		writeFile(t, claudeTranscript(t, sb, dirs[2], claudeID), claudeRename("auth redirect"))
		reportAgentSession(t, w, cursorPane, "cursor", cursorID)
		reportAgentSession(t, w, hermesPane, "hermes", hermesID)
		reportClaudeSession(t, w, claudePane, claudeID)

		args := []string{"--format", "{session|dir}", "--max-len", "40"}
		d := startWorldDaemon(t, w, append(args, "--poll", "0", "--agent-poll", "0")...)
		waitWorldLabels(t, w, ws, "api", "web", "auth redirect")

		for _, cmd := range []string{"explain", "once"} {
			start := time.Now()
			out, stderr, code := runCLI(t, sb, append([]string{cmd, "--socket", w.Socket()}, args...)...)
			t.Logf("%s: %s returned in %v", w.Name(), cmd, time.Since(start).Round(time.Millisecond))
			if code != 0 {
				t.Fatalf("%s: %s: exit %d\n%s%s", w.Name(), cmd, code, out, stderr)
			}
			if cmd == "explain" && (strings.Count(out, "-journal is a FIFO") != 2 || !strings.Contains(out, "the name a person gave the session, read from")) {
				t.Errorf("%s: explain does not say why each tab's {session} is what it is:\n%s", w.Name(), out)
			}
		}

		start := time.Now()
		if err := d.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		code := d.Wait(freshBound)
		t.Logf("%s: the daemon stopped %v after SIGTERM", w.Name(), time.Since(start).Round(time.Millisecond))
		if code != 0 {
			t.Fatalf("%s: after SIGTERM the daemon exited %d (-1: still running after %v)\n%s", w.Name(), code, freshBound, d.Log())
		}
	})
}

// walDB opens a database at path in WAL mode, as a running agent keeps
// it, until the test ends.
func walDB(t *testing.T, path string) *sql.DB {
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
	return db
}

// hermesSchema is Hermes's table sessions holding session id, titled.
func hermesSchema(id string) string {
	return "CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, title TEXT);" +
		"INSERT INTO sessions VALUES ('" + id + "', 'cli', 'Fix login redirect loop')"
}
