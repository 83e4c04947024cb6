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
	s := NewSessions(Options{Home: home, Getenv: func(string) string { return "" }, Log: slog.New(slog.DiscardHandler)}, nil)
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

// wakeBound is how long a test waits for a wake that should come; only a
// machine stalled that long fails it.
const wakeBound = 10 * time.Second

// project creates rel below ~/.claude/projects: a folder when rel is ""
// or ends in "/", else a transcript whose custom title is its name
// without ".jsonl".
func (h sessionHome) project(rel string) {
	h.t.Helper()
	rel = ".claude/projects/" + rel
	if strings.HasSuffix(rel, "/") {
		if err := os.MkdirAll(filepath.Join(h.home, rel), 0o700); err != nil {
			h.t.Fatal(err)
		}
		return
	}
	h.write(rel, customTitle(strings.TrimSuffix(filepath.Base(rel), ".jsonl")))
}

// wakeStep is files made in a folder of projects/ and what follows.
type wakeStep struct {
	make  []string // made below ~/.claude/projects, in order
	wake  bool
	id    string // the session the pane runs at the next pass
	title string // and its title then
}

// TestSessionNewFilesWake: herdr sends no event when a pane's session
// changes, so a new transcript in a watched folder wakes a pass (once per
// burst), which reads the pane's new session; a pane whose transcript is
// not written yet watches the folder it will be in, or projects/ until
// that folder is made. Other files wake nothing.
func TestSessionNewFilesWake(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		before []string // made below ~/.claude/projects before the first pass
		id     string   // the session the pane runs at the first pass
		steps  []wakeStep
	}{
		{"a new session beside the pane's", []string{"-src-api/c1.jsonl"}, "c1",
			[]wakeStep{{[]string{"-src-api/c2.jsonl"}, true, "c2", "c2"}}},
		{"a burst of new sessions", []string{"-src-api/c1.jsonl"}, "c1",
			[]wakeStep{{[]string{"-src-api/c2.jsonl", "-src-api/c3.jsonl", "-src-api/c4.jsonl"}, true, "c4", "c4"}}},
		{"files other than transcripts", []string{"-src-api/c1.jsonl"}, "c1",
			[]wakeStep{{[]string{"-src-api/c1/", "-src-api/notes.txt", "-src-api/c1/subagents/agent-a1.jsonl"}, false, "c1", "c1"}}},
		{"a transcript in an unwatched folder", []string{"-src-api/c1.jsonl", "-src-web/"}, "c1",
			[]wakeStep{{[]string{"-src-web/w1.jsonl"}, false, "c1", "c1"}}},
		{"a transcript not written yet", []string{"-src-api/"}, "c2",
			[]wakeStep{{[]string{"-src-api/c2.jsonl"}, true, "c2", "c2"}}},
		{"its folder not made yet", []string{"-src-web/"}, "c2", []wakeStep{
			{[]string{"-src-api/"}, true, "c2", ""},
			{[]string{"-src-api/c2.jsonl"}, true, "c2", "c2"},
		}},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			h := sessionHome{t, t.TempDir()}
			for _, rel := range tt.before {
				h.project(rel)
			}
			s := newSessionsIn(t, h.home)
			s.Titles([]herdr.Pane{claudePane("w1:p1", tt.id, "/src/api")})
			for i, st := range tt.steps {
				st.run(t, h, s, i)
			}
		})
	}
}

// run makes st's files once s is quiet, checks that s wakes once or not
// at all, and that the next pass shows the title.
func (st wakeStep) run(t *testing.T, h sessionHome, s *Sessions, i int) {
	t.Helper()
	// The pass's own second look is over: only the watch can wake from
	// here.
	waitQuiet(t, s)
	start := time.Now()
	for _, rel := range st.make {
		h.project(rel)
	}
	burst := time.Since(start)
	wait := wakeBound
	if !st.wake {
		wait = 4 * sessionCoalesce
	}
	if woke := waitChanged(s, wait); woke != st.wake {
		t.Fatalf("step %d: woke %v, want %v", i, woke, st.wake)
	}
	// A burst slower than the coalescing delay may wake twice.
	if st.wake && burst < sessionCoalesce/2 && waitChanged(s, 4*sessionCoalesce) {
		t.Fatalf("step %d: woke twice", i)
	}
	got := s.Titles([]herdr.Pane{claudePane("w1:p1", st.id, "/src/api")})
	if got["w1:p1"] != st.title {
		t.Fatalf("step %d: Titles = %v, want %q", i, got, st.title)
	}
}

// TestSessionAwaitedWatchesBounded: panes whose transcripts are written,
// not written yet, or whose folders are not made yet share the bound of
// maxSessionWatches folders, and Prune releases every watch.
func TestSessionAwaitedWatchesBounded(t *testing.T) {
	cases := []struct {
		name    string
		made    func(i int) string // made below ~/.claude/projects for pane i
		watched int
	}{
		{"transcripts", func(i int) string { return fmt.Sprintf("-p%d/c%d.jsonl", i, i) }, maxSessionWatches},
		{"transcripts not written yet", func(i int) string { return fmt.Sprintf("-p%d/", i) }, maxSessionWatches},
		{"folders not made yet", func(int) string { return "" }, 1},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			h := sessionHome{t, t.TempDir()}
			h.project("")
			s := newSessionsIn(t, h.home)
			var panes []herdr.Pane
			for i := range maxSessionWatches + 6 {
				h.project(tt.made(i))
				panes = append(panes, claudePane(fmt.Sprintf("w1:p%d", i), fmt.Sprintf("c%d", i), fmt.Sprintf("/p%d", i)))
			}
			s.Titles(panes)
			if n, w := watches(s); n != tt.watched || w != tt.watched {
				t.Errorf("%d folders watched (fsnotify: %d), want %d", n, w, tt.watched)
			}
			s.Prune(nil)
			if n, w := watches(s); n != 0 || w != 0 || len(s.panes) != 0 {
				t.Errorf("after Prune: %d folders watched (fsnotify: %d), %d panes kept", n, w, len(s.panes))
			}
		})
	}
}

// waitQuiet waits until s has no coalescing delay under way.
func waitQuiet(t *testing.T, s *Sessions) {
	t.Helper()
	deadline := time.Now().Add(wakeBound)
	for {
		s.mu.Lock()
		quiet := s.timer == nil
		s.mu.Unlock()
		if quiet {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the coalescing delay never ended")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// watches is how many folders s counts as watched, and how many its
// fsnotify watcher holds.
func watches(s *Sessions) (counted, held int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.watcher != nil {
		held = len(s.watcher.WatchList())
	}
	return len(s.dirs), held
}

// TestSessionWriteBeforeWatchWakes: a transcript written after a pass
// read the pane's session but before its watch was in place raises no
// event the pane waits for; the second look after the watch wakes a pass.
func TestSessionWriteBeforeWatchWakes(t *testing.T) {
	for _, before := range []string{"-src-api/", "-src-api/c1.jsonl"} {
		t.Run(before, func(t *testing.T) {
			h := sessionHome{t, t.TempDir()}
			h.project(before)
			s := newSessionsIn(t, h.home)
			pane := claudePane("w1:p1", "c2", "/src/api")
			ref, _ := sessionRef(pane)
			title, path := s.reader.Lookup(ref) // what Titles does first
			h.project("-src-api/c2.jsonl")
			dir, parent := s.reader.Awaited(ref)
			s.track(pane.ID, sessionPane{ref: ref, path: path, title: title, dir: dir, parent: parent})
			if !waitChanged(s, wakeBound) {
				t.Fatal("no wake")
			}
			if got := s.Titles([]herdr.Pane{pane}); got[pane.ID] != "c2" {
				t.Errorf("Titles = %v", got)
			}
		})
	}
}

// With no file watch to be had (the user's inotify instances used up),
// agents' session titles are looked at twice a second, and the one told of
// watching hears why.
func TestSessionWatchTroubleIsTold(t *testing.T) {
	var told []error
	s := NewSessions(Options{Log: slog.New(slog.DiscardHandler)}, func(err error) { told = append(told, err) })
	s.newWatcher = func() (*fsnotify.Watcher, error) { return nil, errors.New("too many open files") }
	s.mu.Lock()
	watching := s.acquire(t.TempDir())
	s.mu.Unlock()
	if watching {
		t.Fatal("a folder watched with no watcher")
	}
	if len(told) != 1 || told[0] == nil {
		t.Fatalf("told %v, want the watcher's error once", told)
	}
}
