package daemon

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/facts/session"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"go.uber.org/goleak"
)

// sessionHome is a home directory with agent session files.
type sessionHome struct {
	t    *testing.T
	home string
}

func (h sessionHome) write(rel, content string) string {
	h.t.Helper()
	p := filepath.Join(h.home, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		h.t.Fatal(err)
	}
	return p
}

func (h sessionHome) append(p, content string) {
	h.t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		h.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(content); err != nil {
		h.t.Fatal(err)
	}
}

func newSessionsIn(t *testing.T, home string) *Sessions {
	t.Helper()
	s := NewSessions(session.Options{Home: home, Getenv: func(string) string { return "" }}, slog.New(slog.DiscardHandler))
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

func customTitle(name string) string {
	return `{"type":"custom-title","customTitle":"` + name + `","sessionId":"s"}` + "\n"
}

func claudePane(id, sessionID, dir string) herdr.Pane {
	return herdr.Pane{ID: id, Agent: "claude", Cwd: dir, ForegroundCwd: dir,
		AgentSession: &herdr.AgentSession{Source: "herdr:claude", Agent: "claude", Kind: herdr.SessionKindID, Value: sessionID}}
}

// waitChanged reports whether s signals Changed within d.
func waitChanged(s *Sessions, d time.Duration) bool {
	select {
	case <-s.Changed():
		return true
	case <-time.After(d):
		return false
	}
}

// TestSessionTitlesFollowRenames: the panes with an agent session get its
// title; a rename appended to a transcript wakes the loop within a second
// and the next Titles shows it; other writes wake nothing.
func TestSessionTitlesFollowRenames(t *testing.T) {
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, before) }) // registered first: runs after Close
	h := sessionHome{t, t.TempDir()}
	claude := h.write(".claude/projects/-src-api/c1.jsonl", `{"type":"user","message":{"content":"hi"}}`+"\n"+customTitle("login bug"))
	pi := h.write(".pi/agent/sessions/--src-web--/p1.jsonl", `{"type":"session_info","name":"web work"}`+"\n")
	s := newSessionsIn(t, h.home)
	panes := []herdr.Pane{
		claudePane("w1:p1", "c1", "/src/api"),
		{ID: "w1:p2", Agent: "pi", AgentSession: &herdr.AgentSession{Source: "herdr:pi", Agent: "pi", Kind: herdr.SessionKindPath, Value: pi}},
		{ID: "w1:p3", Cwd: "/src/api"}, // a shell
		{ID: "w1:p4", Agent: "gemini", AgentSession: &herdr.AgentSession{Source: "x", Agent: "gemini", Kind: herdr.SessionKindID, Value: "g"}},
	}
	want := map[string]string{"w1:p1": "login bug", "w1:p2": "web work"}
	if got := s.Titles(panes); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("Titles = %v, want %v", got, want)
	}
	steps := []struct {
		name   string
		file   string
		add    string
		wake   bool
		titles map[string]string
	}{
		{"a conversation line", claude, `{"type":"assistant","message":{"content":[]}}` + "\n", false, want},
		{"/rename", claude, customTitle("auth redirect"), true, map[string]string{"w1:p1": "auth redirect", "w1:p2": "web work"}},
		{"pi's /name", pi, `{"type":"session_info","name":"web, part 2"}` + "\n", true, map[string]string{"w1:p1": "auth redirect", "w1:p2": "web, part 2"}},
	}
	for _, st := range steps {
		h.append(st.file, st.add)
		wait := time.Second
		if !st.wake {
			wait = 4 * sessionCoalesce
		}
		if woke := waitChanged(s, wait); woke != st.wake {
			t.Fatalf("%s: woke %v, want %v", st.name, woke, st.wake)
		}
		read := s.BytesRead()
		if got := s.Titles(panes); fmt.Sprint(got) != fmt.Sprint(st.titles) {
			t.Fatalf("%s: Titles = %v, want %v", st.name, got, st.titles)
		}
		if st.wake && s.BytesRead() != read {
			t.Errorf("%s: the pass read %d bytes the wake had read already", st.name, s.BytesRead()-read)
		}
	}
}

// TestSessionWatchesBounded: past maxSessionWatches folders the titles
// still come, unwatched; gone panes and panes that lost their session
// free their watches.
func TestSessionWatchesBounded(t *testing.T) {
	h := sessionHome{t, t.TempDir()}
	s := newSessionsIn(t, h.home)
	var panes []herdr.Pane
	for i := range maxSessionWatches + 6 {
		id := fmt.Sprintf("c%d", i)
		h.write(fmt.Sprintf(".claude/projects/-p%d/%s.jsonl", i, id), customTitle("t"+id))
		panes = append(panes, claudePane(fmt.Sprintf("w1:p%d", i), id, fmt.Sprintf("/p%d", i)))
	}
	got := s.Titles(panes)
	last := fmt.Sprintf("w1:p%d", len(panes)-1)
	if len(got) != len(panes) || got[last] != fmt.Sprintf("tc%d", len(panes)-1) {
		t.Errorf("%d titles for %d panes; the last one's %q", len(got), len(panes), got[last])
	}
	if n := len(s.dirs); n != maxSessionWatches {
		t.Errorf("%d folders watched, bound %d", n, maxSessionWatches)
	}
	panes[0].AgentSession = nil
	s.Titles(panes[:1])
	if n := len(s.dirs); n != maxSessionWatches-1 {
		t.Errorf("after a pane lost its session: %d folders watched", n)
	}
	s.Prune(map[string]bool{"w1:p1": true})
	if n, p := len(s.dirs), len(s.panes); n != 1 || p != 1 {
		t.Errorf("after Prune: %d folders watched, %d panes kept", n, p)
	}
}
