package session

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDatabaseReadWritesNothing: reading a session's title from a
// database, while the agent runs (its writer open, WAL and -shm beside
// the database) or not (no WAL), creates no file, writes nothing to the
// database or its WAL, and leaves no file open. (A reader's mark in the
// -shm, SQLite's shared-memory index, is how readers and the writer
// share the WAL.)
func TestDatabaseReadWritesNothing(t *testing.T) {
	for _, running := range []bool{true, false} {
		t.Run(map[bool]string{true: "agent running", false: "agent stopped"}[running], func(t *testing.T) {
			w := newWorld(t)
			s := stores["opencode"]
			p := filepath.Join(w.home, s.rel)
			db := openWriter(t, p)
			if _, err := db.Exec(string(fixture(t, s.schema)) + ";" + opencodeRename); err != nil {
				t.Fatal(err)
			}
			if !running {
				db.Close()
			}
			before := folderState(t, filepath.Dir(p))
			fds := openFiles(t)
			r := w.reader()
			read := func(n int) {
				for range n {
					if got := r.Title(s.ref()); got != "auth redirect" {
						t.Fatalf("Title = %q", got)
					}
					clear(r.dbs) // each read opens the database afresh
				}
			}
			read(1)
			if running {
				// SQLite keeps the descriptor of a database this process
				// also has open (the test's writer) until that closes, as
				// closing it would drop the writer's locks; the daemon has
				// no such writer. It is one, reused by later reads.
				fds = openFiles(t)
			}
			read(3)
			if after := folderState(t, filepath.Dir(p)); after != before {
				t.Errorf("the folder changed:\nbefore %s\nafter  %s", before, after)
			}
			if n := openFiles(t); n != fds {
				t.Errorf("%d files open before the reads, %d after", fds, n)
			}
		})
	}
}

// folderState is every file of dir with its size and modification time
// (of the -shm only its size).
func folderState(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := ""
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(e.Name(), "-shm") {
			out += fmt.Sprintf("%s %d; ", e.Name(), fi.Size())
			continue
		}
		out += fmt.Sprintf("%s %s %d; ", e.Name(), fi.ModTime().Format(time.RFC3339Nano), fi.Size())
	}
	return out
}

// openFiles is how many files the test process has open; -1 where that
// cannot be told.
func openFiles(t *testing.T) int {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(entries)
}

func TestOpencodePlaceholder(t *testing.T) {
	for _, tc := range []struct {
		title string
		want  bool
	}{
		{"New session - 2026-11-02T09:00:00.123Z", true},
		{"Child session - 2026-11-02T09:00:00.123Z", true},
		{"New session - 2026-11-02T09:00:00Z", false},
		{"New session - tomorrow", false},
		{"New session", false},
		{"Fix login redirect loop", false},
		{"", false},
	} {
		if got := isOpencodePlaceholder(tc.title); got != tc.want {
			t.Errorf("isOpencodePlaceholder(%q) = %v", tc.title, got)
		}
	}
}

func TestYAMLScalars(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		bad      bool
	}{
		{"name: auth redirect\n", "auth redirect", false},
		{"name: auth redirect # a comment\n", "auth redirect", false},
		{"name: 'it''s: here'\n", "it's: here", false},
		{`name: "auth: \"redirect\" \u00e9\t1"` + "\n", "auth: \"redirect\" é\t1", false},
		{"name: a long name\n  folded onto\n  two lines\nuser_named: true\n", "a long name folded onto two lines", false},
		{"name: \"a long name\n  folded\"\n", "a long name folded", false},
		{"name:\n", "", false},
		{"name: ~\n", "", false},
		{"  name: indented is not top-level\n", "", false},
		{"name: |\n  block\n", "", true},
		{"name: [a, b]\n", "", true},
		{"name: *alias\n", "", true},
		{`name: "unterminated` + "\n", "", true},
		{`name: "\q"` + "\n", "", true},
	} {
		got, err := yamlScalars([]byte(tc.in), "name")
		if (err != nil) != tc.bad || got["name"] != tc.want {
			t.Errorf("yamlScalars(%q) = %q, %v; want %q, error %v", tc.in, got["name"], err, tc.want, tc.bad)
		}
	}
}
