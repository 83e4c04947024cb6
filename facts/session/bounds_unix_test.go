//go:build unix

package session

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// TestDatabaseSidecarsNeverBlock: SQLite opens the files beside a
// database by name (its hot-journal check opens the -journal, a reader
// the -wal and the -shm). A FIFO at any of them, with the agent running
// (a -wal beside the database) or not, in WAL mode or in rollback mode,
// gives no title and one line naming it, and never blocks.
func TestDatabaseSidecarsNeverBlock(t *testing.T) {
	for _, tc := range []struct {
		name, store, sidecar string
		running, rollback    bool
	}{
		{"opencode running, a FIFO -journal", "opencode", "-journal", true, false},
		{"hermes running, a FIFO -journal", "hermes", "-journal", true, false},
		{"opencode in rollback mode, a FIFO -journal", "opencode", "-journal", false, true},
		{"cursor store running, a FIFO -journal", "cursor store", "-journal", true, false},
		{"opencode, a FIFO -wal", "opencode", "-wal", false, false},
		{"opencode running, a FIFO -shm", "opencode", "-shm", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			s := stores[tc.store]
			p := filepath.Join(w.home, s.rel)
			db := openWriter(t, p)
			if _, err := db.Exec(string(fixture(t, s.schema)) + ";" + opencodeRenameOf(tc.store)); err != nil {
				t.Fatal(err)
			}
			if tc.rollback {
				if _, err := db.Exec("PRAGMA journal_mode=DELETE"); err != nil {
					t.Fatal(err)
				}
			}
			if !tc.running {
				db.Close()
			}
			fifo := p + tc.sidecar
			if tc.sidecar != "-journal" {
				_ = syscall.Unlink(fifo)
			}
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			ss := newSessionsIn(t, w.home)
			pane := herdr.Pane{ID: "w1:p1", Agent: s.agent, Cwd: paneDir,
				AgentSession: &herdr.AgentSession{Source: "herdr:" + s.agent, Agent: s.agent, Kind: herdr.SessionKindID, Value: s.id}}
			done := make(chan map[string]string, 1)
			go func() { done <- ss.Titles([]herdr.Pane{pane}) }()
			select {
			case got := <-done:
				if len(got) != 0 {
					t.Errorf("Titles = %v, want none", got)
				}
			case <-time.After(wakeBound):
				t.Fatalf("Titles blocked on a FIFO %s", tc.sidecar)
			}
			why := ss.Why(pane.ID)
			if !strings.Contains(why, tc.sidecar) || !strings.Contains(why, "FIFO") || strings.Contains(why, "\n") {
				t.Errorf("Why = %q, want one line naming the FIFO %s", why, tc.sidecar)
			}
		})
	}
}

// opencodeRenameOf names the session of store's fixture.
func opencodeRenameOf(store string) string {
	switch store {
	case "hermes":
		return hermesRename
	case "cursor store":
		return cursorRename
	}
	return opencodeRename
}

// TestABlockedReadIsAbandoned: a read that does not return (a file system
// that hangs) is abandoned after readBound and said once, at warn; while
// it hangs, other reads answer at once that it does, so no pass waits on
// it again; once it returns, titles are read again.
func TestABlockedReadIsAbandoned(t *testing.T) {
	w := newWorld(t)
	w.put(claudeRel(claudeSession), fixture(t, "claude/ai-title.jsonl"))
	piFile := w.put(".pi/agent/sessions/a/s.jsonl", fixture(t, "pi/named.jsonl"))
	rec := &levels{}
	r := New(Options{Home: w.home, Getenv: func(string) string { return "" }, Log: slog.New(rec)})
	release, hung := make(chan struct{}), make(chan struct{}, 1)
	r.checked = func() {
		select {
		case hung <- struct{}{}:
			<-release
		default:
		}
	}
	claude := Ref{Agent: "claude", Kind: KindID, Value: claudeSession, Dir: paneDir}
	lookup := func(ref Ref) (string, error) {
		t.Helper()
		done := make(chan answer, 1)
		go func() { done <- r.lookup(ref) }()
		select {
		case a := <-done:
			return a.title, a.err
		case <-time.After(wakeBound):
			t.Fatalf("a lookup of %v blocked", ref)
		}
		return "", nil
	}
	if title, err := lookup(claude); title != "" || err == nil || !strings.Contains(err.Error(), "abandoned") {
		t.Fatalf("the blocked read: %q, %v; want it abandoned", title, err)
	}
	if title, err := lookup(piRef(piFile)); title != "" || err == nil || !strings.Contains(err.Error(), "has not returned") {
		t.Fatalf("a read while one hangs: %q, %v; want an answer that one hangs", title, err)
	}
	if n := rec.count(slog.LevelWarn); n != 1 {
		t.Errorf("%d warnings, want one", n)
	}
	close(release)
	deadline := time.Now().Add(wakeBound)
	for {
		title, err := lookup(piRef(piFile))
		if title == "auth redirect" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the hung read returned: %q, %v", title, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if title, err := lookup(claude); title != "Fix login and logout redirects" {
		t.Errorf("the file once hung: %q, %v", title, err)
	}
}

// levels counts log records by level.
type levels struct {
	records
	by map[slog.Level]int
}

func (l *levels) Handle(ctx context.Context, rec slog.Record) error {
	l.mu.Lock()
	if l.by == nil {
		l.by = map[slog.Level]int{}
	}
	l.by[rec.Level]++
	l.mu.Unlock()
	return l.records.Handle(ctx, rec)
}
func (l *levels) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *levels) WithGroup(string) slog.Handler      { return l }

func (l *levels) count(level slog.Level) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.by[level]
}
