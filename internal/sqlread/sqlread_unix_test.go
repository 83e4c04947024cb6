//go:build unix

package sqlread

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/ncruces/go-sqlite3/driver"
)

// writer makes a database at p in WAL mode, with a table of titles, and
// returns its writer, open as a running agent keeps it.
func writer(t *testing.T, p string) *sql.DB {
	t.Helper()
	u := url.URL{Path: p}
	db, err := sql.Open("sqlite3", "file:"+u.EscapedPath()+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec("CREATE TABLE s (id TEXT PRIMARY KEY, title TEXT); INSERT INTO s VALUES ('a', 'auth redirect'), ('b', NULL)"); err != nil {
		t.Fatal(err)
	}
	return db
}

var titles = Query{Table: "s", Key: "id", Col: "title", Max: 4}

// TestNoFileSQLiteOpensCanBlock: the VFS itself, past any check before
// the read, never opens a FIFO: not the -journal SQLite's hot-journal
// check opens read-only, not the -wal. Each read answers, a value or an
// error.
func TestNoFileSQLiteOpensCanBlock(t *testing.T) {
	for _, tc := range []struct {
		sidecar string
		running bool
	}{{"-journal", true}, {"-journal", false}, {"-wal", false}} {
		t.Run(fmt.Sprintf("%s, running %v", tc.sidecar, tc.running), func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "x.db")
			db := writer(t, p)
			if !tc.running {
				if _, err := db.Exec("PRAGMA journal_mode=DELETE"); err != nil {
					t.Fatal(err)
				}
				db.Close()
			}
			if err := syscall.Mkfifo(p+tc.sidecar, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			done := make(chan error, 1)
			go func() { _, err := Values(p, titles, []string{"a"}, false); done <- err }()
			select {
			case err := <-done:
				t.Logf("answered: %v", err)
			case <-time.After(10 * time.Second):
				t.Fatalf("a read blocked on a FIFO %s", tc.sidecar)
			}
		})
	}
}

// TestValuesAreCutAsRead: a value is read up to Max bytes, a NULL is "",
// a key with no row has no value, and with Whole a longer value is an
// error.
func TestValuesAreCutAsRead(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.db")
	writer(t, p)
	got, err := Values(p, titles, []string{"a", "b", "c"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := got["c"]; ok || got["a"] != "auth" || got["b"] != "" || len(got) != 2 {
		t.Errorf("Values = %q (c: %q %v)", got, v, ok)
	}
	whole := titles
	whole.Whole = true
	if _, err := Values(p, whole, []string{"a"}, false); err == nil || !strings.Contains(err.Error(), "bound") {
		t.Errorf("a value over the bound with Whole: %v", err)
	}
}

// TestSidecarsRefused: a -journal, -wal or -shm that is no regular file,
// or a -wal without its -shm, is refused before any read, by name.
func TestSidecarsRefused(t *testing.T) {
	for _, tc := range []struct{ make, want string }{
		{"-journal fifo", "-journal is a FIFO"},
		{"-wal link", "-wal is a symlink"},
		{"-shm dir", "-shm is a folder"},
		{"-wal file", "a -wal without its -shm"},
	} {
		t.Run(tc.make, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "x.db")
			suffix, kind, _ := strings.Cut(tc.make, " ")
			var err error
			switch kind {
			case "fifo":
				err = syscall.Mkfifo(p+suffix, 0o600)
			case "link":
				err = os.Symlink("/dev/null", p+suffix)
			case "dir":
				err = os.Mkdir(p+suffix, 0o700)
			case "file":
				err = os.WriteFile(p+suffix, nil, 0o600)
			}
			if err != nil {
				t.Skip(err)
			}
			if _, err := Sidecars(p, os.Getuid()); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Sidecars = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestPoolKeepsAConnectionWhileRead: a Pool reads through one connection
// per database, kept between reads; a database replaced by another file
// is read through a new one; Close closes them, and reads after it keep
// none.
func TestPoolKeepsAConnectionWhileRead(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.db")
	writer(t, p)
	pl := NewPool()
	read := func(immutable bool) {
		t.Helper()
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := pl.Values(p, fi, titles, []string{"a"}, immutable); err != nil || got["a"] != "auth" {
			t.Fatalf("Values = %q, %v", got, err)
		}
	}
	read(false)
	read(false)
	if n := pl.Open(); n != 1 {
		t.Errorf("%d connections kept after two reads, want 1", n)
	}
	pl.Close()
	read(false)
	if n := pl.Open(); n != 0 {
		t.Errorf("%d connections kept after Close, want none", n)
	}
}
