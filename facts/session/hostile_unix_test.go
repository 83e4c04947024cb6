//go:build unix

package session

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	named    = []byte(`{"type":"session_info","name":"read me"}` + "\n")
	sessions = filepath.Join(".pi", "agent", "sessions")
)

// hostileCases are paths herdr could hand over that must not be read.
// outside is a folder beside home holding outside.jsonl, a readable title.
var hostileCases = []struct {
	name  string
	setup func(t *testing.T, w *world, outside string) Ref
	uid   int // 0: the test's own
}{
	{"a symlink out of the folder", func(_ *testing.T, w *world, outside string) Ref {
		return piRef(w.link(filepath.Join(sessions, "x", "s.jsonl"), filepath.Join(outside, "outside.jsonl")))
	}, 0},
	{"a symlinked folder out of it", func(_ *testing.T, w *world, outside string) Ref {
		w.link(filepath.Join(sessions, "x"), outside)
		return piRef(filepath.Join(w.home, sessions, "x", "outside.jsonl"))
	}, 0},
	{"a path outside the folder", func(_ *testing.T, w *world, outside string) Ref {
		w.put(filepath.Join(sessions, "x", "keep"), nil)
		return piRef(filepath.Join(outside, "outside.jsonl"))
	}, 0},
	{"dot-dot out of the folder", func(t *testing.T, w *world, outside string) Ref {
		w.put(filepath.Join(sessions, "x", "s.jsonl"), named)
		rel, err := filepath.Rel(filepath.Join(w.home, sessions, "x"), filepath.Join(outside, "outside.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		return piRef(filepath.Join(w.home, sessions, "x") + "/" + rel)
	}, 0},
	{"a relative path", func(_ *testing.T, w *world, _ string) Ref {
		w.put(filepath.Join(sessions, "x", "s.jsonl"), named)
		return Ref{Agent: "pi", Kind: KindPath, Value: filepath.Join(sessions, "x", "s.jsonl")}
	}, 0},
	{"a FIFO", func(t *testing.T, w *world, _ string) Ref {
		p := filepath.Join(w.home, sessions, "x", "fifo.jsonl")
		w.put(filepath.Join(sessions, "x", "keep"), nil)
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		return piRef(p)
	}, 0},
	{"a device", func(t *testing.T, w *world, _ string) Ref {
		p := filepath.Join(w.home, sessions, "x", "dev.jsonl")
		w.put(filepath.Join(sessions, "x", "keep"), nil)
		if err := syscall.Mknod(p, syscall.S_IFCHR|0o600, 1<<8|5); err != nil { // /dev/zero's numbers
			t.Skipf("mknod: %v", err)
		}
		return piRef(p)
	}, 0},
	{"a device, linked", func(_ *testing.T, w *world, _ string) Ref {
		return piRef(w.link(filepath.Join(sessions, "x", "s.jsonl"), "/dev/zero"))
	}, 0},
	{"a folder", func(_ *testing.T, w *world, _ string) Ref {
		w.put(filepath.Join(sessions, "x", "dir.jsonl", "keep"), nil)
		return piRef(filepath.Join(w.home, sessions, "x", "dir.jsonl"))
	}, 0},
	{"another user's file", func(_ *testing.T, w *world, _ string) Ref {
		return piRef(w.put(filepath.Join(sessions, "x", "s.jsonl"), named))
	}, os.Getuid() + 1},
	{"a Claude Code id stepping out", func(_ *testing.T, w *world, outside string) Ref {
		w.put(filepath.Join(".claude", "projects", "-home-u-src-api", "keep"), nil)
		return Ref{Agent: "claude", Kind: KindID, Value: "../../../../" + filepath.Base(outside) + "/outside", Dir: paneDir}
	}, 0},
	{"a FIFO for Claude Code's projects folder", func(t *testing.T, w *world, _ string) Ref {
		if err := os.MkdirAll(filepath.Join(w.home, ".claude"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(filepath.Join(w.home, ".claude", "projects"), 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
		return Ref{Agent: "claude", Kind: KindID, Value: claudeSession, Dir: paneDir}
	}, 0},
	{"a Claude Code project folder linked out", func(t *testing.T, w *world, outside string) Ref {
		if err := os.Rename(filepath.Join(outside, "outside.jsonl"), filepath.Join(outside, claudeSession+".jsonl")); err != nil {
			t.Fatal(err)
		}
		w.link(filepath.Join(".claude", "projects", "-home-u-src-api"), outside)
		return Ref{Agent: "claude", Kind: KindID, Value: claudeSession, Dir: paneDir}
	}, 0},
}

// TestHostilePathsRefused: what herdr hands over is untrusted. Every case
// holds a readable title, and none may be read, block, or be logged more
// than once.
func TestHostilePathsRefused(t *testing.T) {
	for _, tt := range hostileCases {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			w := &world{t: t, home: filepath.Join(base, "home")}
			outside := filepath.Join(base, "outside")
			if err := os.MkdirAll(outside, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(outside, "outside.jsonl"), append(named,
				[]byte(`{"type":"custom-title","customTitle":"read me"}`+"\n")...), 0o600); err != nil {
				t.Fatal(err)
			}
			ref := tt.setup(t, w, outside)
			rec := &records{}
			r := New(Options{Home: w.home, Getenv: func(string) string { return "" }, Log: slog.New(rec)})
			if tt.uid != 0 {
				r.uid = tt.uid
			}
			done := make(chan [2]string, 1)
			go func() { done <- [2]string{r.Title(ref), r.Title(ref)} }()
			select {
			case got := <-done:
				if got != [2]string{} {
					t.Errorf("Title = %q, want nothing", got)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Title blocked")
			}
			if n, lvl := rec.count(); n != 1 || lvl != slog.LevelDebug {
				t.Errorf("two refusals logged %d records (level %v), want one at debug", n, lvl)
			}
		})
	}
}

// TestSymlinkInsideTheFolderIsRead: a link that stays in the agent's
// folder is followed.
func TestSymlinkInsideTheFolderIsRead(t *testing.T) {
	w := newWorld(t)
	w.put(".pi/agent/sessions/a/real.jsonl", fixture(t, "pi/named.jsonl"))
	p := w.link(".pi/agent/sessions/b/link.jsonl", filepath.Join(w.home, ".pi/agent/sessions/a/real.jsonl"))
	if got := w.reader().Title(piRef(p)); got != "auth redirect" {
		t.Errorf("Title = %q", got)
	}
}

func piRef(p string) Ref { return Ref{Agent: "pi", Kind: KindPath, Value: p} }

// link makes rel below home a symlink to target and returns its path.
func (w *world) link(rel, target string) string {
	w.t.Helper()
	p := filepath.Join(w.home, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		w.t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		w.t.Fatal(err)
	}
	return p
}

// records counts log records and keeps the last one's level.
type records struct {
	mu    sync.Mutex
	n     int
	level slog.Level
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	r.level = rec.Level
	return nil
}
func (r *records) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *records) WithGroup(string) slog.Handler      { return r }

func (r *records) count() (int, slog.Level) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n, r.level
}

// TestFolderSwappedAfterTheCheckIsNotFollowed: the file read is the file
// checked. A folder on the way to a session file that becomes a symlink
// out of the agent's folder between the check and the open (here, in the
// reader's own window between them) leads nowhere.
func TestFolderSwappedAfterTheCheckIsNotFollowed(t *testing.T) {
	w := newWorld(t)
	p := w.put(".pi/agent/sessions/a/s.jsonl", fixture(t, "pi/named.jsonl"))
	outside := filepath.Join(t.TempDir(), "a")
	if err := os.MkdirAll(outside, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "s.jsonl"), named, 0o600); err != nil {
		t.Fatal(err)
	}
	r := w.reader()
	folder := filepath.Dir(p)
	r.checked = func() {
		if err := os.Rename(folder, folder+".old"); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(outside, folder); err != nil {
			t.Fatal(err)
		}
	}
	if got := r.Title(piRef(p)); got == "read me" {
		t.Fatalf("Title %q came from outside the agent's folder", got)
	}
}
