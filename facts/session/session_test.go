package session

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const (
	claudeSession = "4f35e220-c435-4cf7-b9b9-f40426042847"
	codexA        = "019a3f2e-7c1d-7b20-9e4f-3c5d6e7f8a90"
	codexB        = "019a3f30-11aa-7c33-8d44-5e6f7a8b9c0d"
	codexC        = "019a3f31-22bb-7d44-9e55-6f7a8b9cad1e"
	paneDir       = "/home/u/src/api"
)

// world is a home directory with the agents' folders.
type world struct {
	t    testing.TB
	home string
}

func newWorld(t testing.TB) *world {
	t.Helper()
	return &world{t: t, home: t.TempDir()}
}

func (w *world) reader() *Reader {
	return New(Options{Home: w.home, Getenv: func(string) string { return "" },
		Log: slog.New(slog.DiscardHandler)})
}

// put writes content at rel below the home directory and returns its path.
func (w *world) put(rel string, content []byte) string {
	w.t.Helper()
	p := filepath.Join(w.home, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(p, content, 0o600); err != nil {
		w.t.Fatal(err)
	}
	return p
}

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// claudeRel is where Claude Code keeps the transcript of a session started
// in paneDir.
func claudeRel(id string) string {
	return filepath.Join(".claude", "projects", "-home-u-src-api", id+".jsonl")
}

func appendTo(t testing.TB, p, s string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// TestTitleFromEachFormat reads the fixtures of every agent, each laid
// where the agent keeps it.
func TestTitleFromEachFormat(t *testing.T) {
	claudeRef := Ref{Agent: "claude", Kind: KindID, Value: claudeSession, Dir: paneDir}
	tests := []struct {
		name    string
		fixture string
		rel     string // where it lies below home
		ref     Ref    // Value "" = the file's path
		want    string
	}{
		{"claude renamed twice: the latest /rename wins over a later AI title", "claude/renamed-twice.jsonl", claudeRel(claudeSession), claudeRef, "auth redirect"},
		{"claude AI titles only: the latest", "claude/ai-title.jsonl", claudeRel(claudeSession), claudeRef, "Fix login and logout redirects"},
		{"claude summaries only: the latest", "claude/summary-only.jsonl", claudeRel(claudeSession), claudeRef, "Fix the login redirect loop"},
		{"claude without a title", "claude/none.jsonl", claudeRel(claudeSession), claudeRef, ""},
		{"claude half-written last line: the rename before it", "claude/truncated.jsonl", claudeRel(claudeSession), claudeRef, "login bug"},
		{"claude broken title entry", "claude/malformed.jsonl", claudeRel(claudeSession), claudeRef, ""},
		{"claude by path", "claude/renamed-twice.jsonl", claudeRel(claudeSession), Ref{Agent: "claude", Kind: KindPath}, "auth redirect"},
		{"codex renamed twice", "codex/session_index.jsonl", ".codex/session_index.jsonl", Ref{Agent: "codex", Kind: KindID, Value: codexA}, "auth review, part 2"},
		{"codex name cleared", "codex/session_index.jsonl", ".codex/session_index.jsonl", Ref{Agent: "codex", Kind: KindID, Value: codexB}, ""},
		{"codex never named", "codex/session_index.jsonl", ".codex/session_index.jsonl", Ref{Agent: "codex", Kind: KindID, Value: codexC}, ""},
		{"pi named twice", "pi/named.jsonl", ".pi/agent/sessions/--home-u-src-api--/2026-11-02T09-00-00-000Z_1a6f6bc4.jsonl", Ref{Agent: "pi", Kind: KindPath}, "auth redirect"},
		{"pi without a name", "pi/none.jsonl", ".pi/agent/sessions/--home-u-src-api--/s.jsonl", Ref{Agent: "pi", Kind: KindPath}, ""},
		{"omp: a person's title over a later automatic one", "omp/user-title.jsonl", ".omp/agent/sessions/--home-u-src-api--/s.jsonl", Ref{Agent: "omp", Kind: KindPath}, "auth redirect"},
		{"omp automatic title", "omp/auto-title.jsonl", ".omp/agent/sessions/--home-u-src-api--/s.jsonl", Ref{Agent: "omp", Kind: KindPath}, "Login redirect loop"},
		{"an agent without a known format", "claude/renamed-twice.jsonl", ".gemini/s.jsonl", Ref{Agent: "gemini", Kind: KindPath}, ""},
		{"codex by path is not read", "codex/session_index.jsonl", ".codex/session_index.jsonl", Ref{Agent: "codex", Kind: KindPath}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			p := w.put(tt.rel, fixture(t, tt.fixture))
			ref := tt.ref
			if ref.Value == "" {
				ref.Value = p
			}
			got, path := w.reader().Lookup(ref)
			if got != tt.want {
				t.Errorf("Title = %q, want %q", got, tt.want)
			}
			if real, _ := filepath.EvalSymlinks(p); got != "" && path != real {
				t.Errorf("Lookup's path = %q, want %q", path, real)
			}
		})
	}
}

// TestRenameFollowed: an unchanged file is not read again; a rename
// appended to it is read, and only the appended bytes; a half-written
// line is read again once whole.
func TestRenameFollowed(t *testing.T) {
	w := newWorld(t)
	p := w.put(claudeRel(claudeSession), fixture(t, "claude/renamed-twice.jsonl"))
	r := w.reader()
	ref := Ref{Agent: "claude", Kind: KindID, Value: claudeSession, Dir: paneDir}
	size := func() int64 {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	steps := []struct {
		name      string
		add       string
		want      string
		wantBytes func(before int64) int64 // bytes this call reads
	}{
		{"first read: the whole small file", "", "auth redirect", func(int64) int64 { return size() }},
		{"unchanged: nothing read", "", "auth redirect", func(int64) int64 { return 0 }},
		// A grown file is read from the last read's end on, with the
		// markLen bytes before it that tell an append from a rewrite.
		{"renamed", `{"type":"custom-title","customTitle":"third name","sessionId":"x"}` + "\n", "third name",
			func(before int64) int64 { return size() - before + markLen }},
		{"half a rename", `{"type":"custom-title","customTitle":"fou`, "third name", func(before int64) int64 { return size() - before + markLen }},
		{"the rest of it", `rth name","sessionId":"x"}` + "\n", "fourth name",
			func(before int64) int64 {
				return size() - before + int64(len(`{"type":"custom-title","customTitle":"fou`)) + markLen
			}},
		{"an empty /rename clears it: the AI title", `{"type":"custom-title","customTitle":"","sessionId":"x"}` + "\n",
			"Redirect loop after login", func(before int64) int64 { return size() - before + markLen }},
	}
	for _, st := range steps {
		before := size()
		if st.add != "" {
			appendTo(t, p, st.add)
		}
		read := r.BytesRead()
		if got := r.Title(ref); got != st.want {
			t.Fatalf("%s: Title = %q, want %q", st.name, got, st.want)
		}
		if got, want := r.BytesRead()-read, st.wantBytes(before); got != want {
			t.Errorf("%s: read %d bytes, want %d", st.name, got, want)
		}
	}
}

// bigTranscript writes a transcript of size bytes at p, sparse but for
// tail at its end.
func bigTranscript(t testing.TB, p string, size int64, tail []byte) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size - int64(len(tail))); err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(tail, size-int64(len(tail))); err != nil {
		t.Fatal(err)
	}
}

// conversation is n bytes (about) of Claude Code transcript lines.
func conversation(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, `{"type":"assistant","sessionId":%q,"message":{"role":"assistant","content":[{"type":"text","text":"step %d of a long answer"}]},"uuid":"u%d"}`+"\n", claudeSession, i, i)
	}
	return b.Bytes()
}

// TestBigTranscriptReadsOnlyItsTail: a 200 MB transcript costs at most
// MaxRead bytes, the first time and when a rename is appended, and
// nothing when unchanged.
func TestBigTranscriptReadsOnlyItsTail(t *testing.T) {
	w := newWorld(t)
	p := w.put(claudeRel(claudeSession), nil)
	tail := append([]byte("\n"+`{"type":"custom-title","customTitle":"big one","sessionId":"x"}`+"\n"), conversation(MaxRead/2)...)
	bigTranscript(t, p, 200<<20, tail)
	r := w.reader()
	ref := Ref{Agent: "claude", Kind: KindID, Value: claudeSession, Dir: paneDir}
	for i, want := range []struct {
		title    string
		maxBytes int64
	}{{"big one", MaxRead}, {"big one", 0}} {
		read := r.BytesRead()
		if got := r.Title(ref); got != want.title {
			t.Fatalf("call %d: Title = %q, want %q", i+1, got, want.title)
		}
		if n := r.BytesRead() - read; n > want.maxBytes {
			t.Errorf("call %d: read %d bytes of a 200 MB file, bound %d", i+1, n, want.maxBytes)
		} else {
			t.Logf("call %d: read %d bytes of a 200 MB file", i+1, n)
		}
	}
	// More than MaxRead appended at once: the rename before it stands, the
	// read stays bounded, and a rename at the end wins.
	appendTo(t, p, string(conversation(MaxRead+MaxRead/2)))
	read := r.BytesRead()
	if got := r.Title(ref); got != "big one" || r.BytesRead()-read > MaxRead {
		t.Errorf("after a long append: Title %q, read %d", got, r.BytesRead()-read)
	}
	appendTo(t, p, `{"type":"custom-title","customTitle":"renamed at the end","sessionId":"x"}`+"\n")
	if got := r.Title(ref); got != "renamed at the end" {
		t.Errorf("after a rename: Title %q", got)
	}
}

// BenchmarkTitle200MB reads the title of a 200 MB transcript afresh each
// time (a new Reader), the cost of a daemon's first pass over it.
func BenchmarkTitle200MB(b *testing.B) {
	w := newWorld(b)
	p := w.put(claudeRel(claudeSession), nil)
	tail := append([]byte("\n"+`{"type":"custom-title","customTitle":"big one","sessionId":"x"}`+"\n"), conversation(MaxRead/2)...)
	bigTranscript(b, p, 200<<20, tail)
	ref := Ref{Agent: "claude", Kind: KindID, Value: claudeSession, Dir: paneDir}
	var read int64
	for b.Loop() {
		r := w.reader()
		if r.Title(ref) != "big one" {
			b.Fatal("no title")
		}
		read += r.BytesRead()
	}
	b.ReportMetric(float64(read)/float64(b.N), "bytes-read/op")
}

// TestClaudeTranscriptFoundAnywhere: a session started in another
// directory than the pane's is found by listing projects/, and one not
// written yet is looked for again only after rescan.
func TestClaudeTranscriptFoundAnywhere(t *testing.T) {
	w := newWorld(t)
	now := time.Unix(1_800_000_000, 0)
	r := New(Options{Home: w.home, Getenv: func(string) string { return "" }, Log: slog.New(slog.DiscardHandler),
		Now: func() time.Time { return now }})
	ref := Ref{Agent: "claude", Kind: KindID, Value: claudeSession, Dir: "/home/u/elsewhere"}
	w.put(filepath.Join(".claude", "projects", "-home-u-other", "x.jsonl"), nil)
	if got := r.Title(ref); got != "" {
		t.Fatalf("before the transcript exists: %q", got)
	}
	w.put(filepath.Join(".claude", "projects", "-home-u-src-api", claudeSession+".jsonl"), fixture(t, "claude/renamed-twice.jsonl"))
	if got := r.Title(ref); got != "" {
		t.Errorf("found before rescan: %q", got)
	}
	now = now.Add(rescan)
	if got := r.Title(ref); got != "auth redirect" {
		t.Errorf("after rescan: %q", got)
	}
	for _, dir := range []string{"/home/u/src.api", "/home/u/src_api"} {
		if f := claudeFolders(dir); len(f) == 0 || f[0] != "-home-u-src-api" {
			t.Errorf("claudeFolders(%q) = %q", dir, f)
		}
	}
	if f := claudeFolders("/" + strings.Repeat("a", 250)); len(f) != 0 {
		t.Errorf("a long directory's folder is hashed by Claude Code, not guessed: %q", f)
	}
}

func TestOneLine(t *testing.T) {
	long := strings.Repeat("é", maxTitle)
	tests := []struct{ in, want string }{
		{"  name  ", "name"},
		{"first\nsecond", "first"},
		{"first\r\nsecond", "first"},
		{"\nsecond", ""},
		{long, long[:maxTitle]},
		{"a" + long, "a" + long[:maxTitle-2]},
	}
	for _, tt := range tests {
		if got := oneLine(tt.in); got != tt.want {
			t.Errorf("oneLine(%.20q) = %.20q (%d bytes), want %.20q", tt.in, got, len(got), tt.want)
		}
	}
	w := newWorld(t)
	p := w.put(".pi/agent/sessions/x/s.jsonl", []byte(`{"type":"session_info","name":"two\nlines"}`+"\n"))
	if got := w.reader().Title(Ref{Agent: "pi", Kind: KindPath, Value: p}); got != "two" {
		t.Errorf("a two-line name: %q", got)
	}
}

// TestAwaited: a Claude Code session not written yet is awaited in its
// pane's folder of projects/ (by either naming rule), else in projects/
// itself; never outside ~/.claude, and never for what is not read by id.
func TestAwaited(t *testing.T) {
	ref := Ref{Agent: "claude", Kind: KindID, Value: claudeSession, Dir: "/home/u/src/my_api"}
	cases := []struct {
		name   string
		made   []string // folders made below ~/.claude/projects
		link   bool     // the pane's folder is a symlink out of ~/.claude
		ref    Ref
		dir    string // below ~/.claude/projects; "-" for none
		parent bool
	}{
		{"the pane's folder", []string{"-home-u-src-my-api"}, false, ref, "-home-u-src-my-api", false},
		{"the older rule's folder", []string{"-home-u-src-my_api"}, false, ref, "-home-u-src-my_api", false},
		{"projects/ until the folder is made", []string{"-elsewhere"}, false, ref, "", true},
		{"no projects/", nil, false, ref, "-", false},
		{"a folder linked out", []string{"-elsewhere"}, true, ref, "", true},
		{"a relative directory", []string{"x"}, false, Ref{Agent: "claude", Kind: KindID, Value: claudeSession, Dir: "src"}, "-", false},
		{"an id Claude Code does not make", []string{"-home-u-src-my-api"}, false, Ref{Agent: "claude", Kind: KindID, Value: "../x", Dir: ref.Dir}, "-", false},
		{"a session known by path", []string{"-home-u-src-my-api"}, false, Ref{Agent: "claude", Kind: KindPath, Value: "/x.jsonl", Dir: ref.Dir}, "-", false},
		{"another agent", []string{"-home-u-src-my-api"}, false, Ref{Agent: "codex", Kind: KindID, Value: codexA, Dir: ref.Dir}, "-", false},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			projects := filepath.Join(w.home, ".claude", "projects")
			for _, f := range tt.made {
				w.put(filepath.Join(".claude", "projects", f, "keep"), nil)
			}
			if tt.link {
				outside := t.TempDir()
				if err := os.Symlink(outside, filepath.Join(projects, "-home-u-src-my-api")); err != nil {
					t.Fatal(err)
				}
			}
			want := ""
			if tt.dir != "-" {
				want = filepath.Join(projects, tt.dir)
				if real, err := filepath.EvalSymlinks(want); err == nil {
					want = real
				}
			}
			dir, parent := w.reader().Awaited(tt.ref)
			if dir != want || parent != tt.parent {
				t.Errorf("Awaited = %q, %v; want %q, %v", dir, parent, want, tt.parent)
			}
		})
	}
}

// A transcript rewritten in place (the same file, longer, other lines
// before its old end) is read afresh: reading on from where the last read
// stopped would keep the old title, or take half a line for a whole one.
func TestRewrittenInPlaceIsReadAfresh(t *testing.T) {
	w := newWorld(t)
	p := w.put(claudeRel(claudeSession), fixture(t, "claude/renamed-twice.jsonl"))
	r := w.reader()
	ref := Ref{Agent: "claude", Kind: KindID, Value: claudeSession, Dir: paneDir}
	if got := r.Title(ref); got != "auth redirect" {
		t.Fatalf("Title = %q before the rewrite", got)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	// The new title comes first; past the old end there is only talk.
	body := `{"type":"custom-title","customTitle":"rewritten","sessionId":"x"}` + "\n"
	for int64(len(body)) < 2*fi.Size() {
		body += string(conversation(1))
	}
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(body), 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if got := r.Title(ref); got != "rewritten" {
		t.Fatalf("Title = %q after the file was rewritten in place, want %q", got, "rewritten")
	}
}
