// Package sqlread reads values out of SQLite databases other programs
// write (the agents' session stores), read-only, as one more reader of
// theirs, and so that no read can block, bloat or hang the reader.
//
// A database is read by SQLite itself, from
// github.com/ncruces/go-sqlite3 (SQLite compiled to Wasm and translated
// to Go, with its file access in Go: the release builds with
// CGO_ENABLED=0), read-only (mode=ro: nothing is created and nothing of
// the database or its WAL written). Agents write their databases in WAL
// mode while they run: in WAL mode a reader never blocks the writer, and
// a short read sees the last commit whole, mid-checkpoint or not. Like
// every reader it marks in the -shm, SQLite's shared-memory index, which
// WAL frame it reads up to; a read-only -shm (readonly_shm) would make
// each read load the whole WAL instead. immutable=1 would skip the locks
// but also the WAL, so it would show a value a checkpoint behind, or read
// a file a checkpoint is rewriting: it is used only for a database in WAL
// mode that has no -wal (Values' immutable).
//
// Bounds: a database another process holds locked answers busy within
// Busy, the whole read is interrupted at Timeout, and the connection is
// closed after every read. Every file SQLite opens goes through a VFS of
// our own (vfs.go) that never opens one that could block. A value is read
// through SQLite's incremental blob I/O, at most Query.Max bytes of it: a
// title of 100 MiB costs the pages of its first bytes, never the value
// (substr() in SQL would still load it whole into SQLite's memory).
package sqlread

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/safefile"
)

const (
	// Busy is how long a read waits on a database locked by a writer.
	Busy = 250 * time.Millisecond
	// Timeout bounds one read of a database, open to close.
	Timeout = 500 * time.Millisecond
)

// ErrTooBig: a value longer than Query.Max where Query.Whole.
var ErrTooBig = errors.New("larger than the bound")

// Query says where the values are: column Col of table Table, the row of
// each key in column Key.
type Query struct {
	Table, Key, Col string
	// Max is how many bytes of a value are read; a longer one is cut, or
	// with Whole refused (ErrTooBig).
	Max   int
	Whole bool
}

// Sidecars checks the files SQLite opens by name beside the database p:
// its -journal (a hot-journal check opens it), -wal and -shm, each
// absent, or a regular file of uid and no symlink. A -wal without its
// -shm is refused: reading it would make the -shm. It returns the -wal's
// stat, nil when there is none.
func Sidecars(p string, uid int) (wal os.FileInfo, err error) {
	for _, suffix := range []string{"-journal", "-wal", "-shm"} {
		fi, err := os.Lstat(p + suffix)
		switch {
		case errors.Is(err, os.ErrNotExist) && suffix == "-shm" && wal != nil:
			return nil, errors.New("a -wal without its -shm")
		case errors.Is(err, os.ErrNotExist):
			continue
		case err != nil:
			return nil, err
		case !fi.Mode().IsRegular():
			return nil, fmt.Errorf("its %s is %s, not a regular file", suffix, safefile.Kind(fi.Mode()))
		}
		if err := safefile.CheckOwner(p+suffix, fi, uid); err != nil {
			return nil, err
		}
		if suffix == "-wal" {
			wal = fi
		}
	}
	return wal, nil
}

// WALMode reads the database's header from f: whether it is in WAL mode
// (read and write versions 2), or an error when f is no database.
func WALMode(f *os.File) (bool, error) {
	var h [100]byte
	if _, err := f.ReadAt(h[:], 0); err != nil {
		return false, fmt.Errorf("its header: %w", err)
	}
	if string(h[:16]) != "SQLite format 3\x00" {
		return false, errors.New("not a SQLite database")
	}
	return h[18] == 2 && h[19] == 2, nil
}

// Values reads the values of keys in the database at p, read-only, in
// one read transaction: Open, Conn.Values, Close.
func Values(p string, q Query, keys []string, immutable bool) (map[string]string, error) {
	c, err := Open(p, immutable)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.Values(q, keys)
}

// Conn is a database opened for reading, kept between reads while they
// come often: opening one costs more than a read (an instance of SQLite
// and the schema parsed). Between reads it holds no read transaction, so
// it never holds back the writer's checkpoints; it does hold the shared
// lock every connection in WAL mode holds, so the writer's last
// connection closing leaves the -wal for the next to clean. One
// goroutine at a time may use a Conn.
type Conn struct {
	c        *sqlite3.Conn
	prepared map[string]*sqlite3.Stmt // statements kept, by their SQL
}

// Open opens the database at p read-only. immutable reads a database in
// WAL mode that has no -wal (its writer is not running): SQLite would
// otherwise make the -wal and -shm to read it. Its file then changes only
// at a checkpoint of a writer that has just started, which a read of a
// few pages does not meet; when it does, the read fails rather than
// giving a wrong value. The error says in one line why.
func Open(p string, immutable bool) (*Conn, error) {
	useSafeVFS()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	c, err := sqlite3.OpenFlags(dsn(p, immutable), sqlite3.OPEN_READONLY|sqlite3.OPEN_URI|sqlite3.OPEN_NOFOLLOW)
	if err != nil {
		return nil, oneLine(err)
	}
	c.SetInterrupt(ctx)
	err = c.BusyTimeout(Busy)
	// query_only refuses any write; a small page cache keeps a read's
	// memory small.
	for _, sql := range []string{"PRAGMA query_only=1", "PRAGMA cache_size=-256"} {
		if err == nil {
			err = c.Exec(sql)
		}
	}
	c.SetInterrupt(context.Background())
	if err != nil {
		c.Close()
		return nil, oneLine(err)
	}
	return &Conn{c: c, prepared: map[string]*sqlite3.Stmt{}}, nil
}

// Values reads the values of keys, in one read transaction, within
// Timeout. A key with no row has no value; a NULL (or a number) is "".
func (c *Conn) Values(q Query, keys []string) (map[string]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	c.c.SetInterrupt(ctx)
	defer c.c.SetInterrupt(context.Background())
	if err := c.c.Exec("BEGIN"); err != nil {
		return nil, oneLine(err)
	}
	if len(c.prepared) > 8 {
		c.closeStatements() // keys asked in many numbers: not worth keeping
	}
	values, err := read(c.c, q, keys, c.prepared)
	if end := c.c.Exec("COMMIT"); err == nil {
		err = end
	}
	if err != nil {
		return nil, oneLine(err)
	}
	return values, nil
}

// Close closes the database.
func (c *Conn) Close() error {
	c.closeStatements()
	return c.c.Close()
}

func (c *Conn) closeStatements() {
	for sql, st := range c.prepared {
		st.Close()
		delete(c.prepared, sql)
	}
}

// read reads the values of keys: the rows' ids and types first, then at
// most q.Max bytes of each text or blob through incremental blob I/O.
// prepared, when not nil, keeps the statement for the next read of as
// many keys.
func read(c *sqlite3.Conn, q Query, keys []string, prepared map[string]*sqlite3.Stmt) (map[string]string, error) {
	in := strings.TrimSuffix(strings.Repeat("?,", len(keys)), ",")
	sql := fmt.Sprintf("SELECT %s, rowid, typeof(%s) FROM %s WHERE %s IN (%s)", q.Key, q.Col, q.Table, q.Key, in)
	st := prepared[sql]
	if st == nil {
		var err error
		if st, _, err = c.Prepare(sql); err != nil {
			return nil, err
		}
		if prepared != nil {
			prepared[sql] = st
		} else {
			defer st.Close()
		}
	}
	// Reset, the statement holds no read of the database past this one.
	defer func() { _ = st.Reset() }()
	for i, k := range keys {
		if err := st.BindText(i+1, k); err != nil {
			return nil, err
		}
	}
	values := map[string]string{}
	for st.Step() {
		key, row, kind := st.ColumnText(0), st.ColumnInt64(1), st.ColumnText(2)
		if kind != "text" && kind != "blob" {
			values[key] = ""
			continue
		}
		v, err := value(c, q, row)
		if err != nil {
			return nil, err
		}
		values[key] = v
	}
	return values, st.Err()
}

// value reads at most q.Max bytes of the value in row.
func value(c *sqlite3.Conn, q Query, row int64) (string, error) {
	b, err := c.OpenBlob("main", q.Table, q.Col, row, false)
	if err != nil {
		return "", err
	}
	defer b.Close()
	if q.Whole && b.Size() > int64(q.Max) {
		return "", fmt.Errorf("a value of %d bytes, %w of %d", b.Size(), ErrTooBig, q.Max)
	}
	buf := make([]byte, min(b.Size(), int64(q.Max)))
	if _, err := io.ReadFull(b, buf); err != nil {
		return "", err
	}
	return string(buf), nil
}

// oneLine says in one line why a read of a database failed.
func oneLine(err error) error {
	switch {
	case errors.Is(err, ErrTooBig):
		return err
	case errors.Is(err, sqlite3.BUSY), errors.Is(err, sqlite3.LOCKED):
		return fmt.Errorf("locked by another process: no read within %v", Busy)
	case errors.Is(err, sqlite3.INTERRUPT):
		return fmt.Errorf("no answer within %v", Timeout)
	case errors.Is(err, sqlite3.NOTADB), errors.Is(err, sqlite3.CORRUPT):
		return errors.New("damaged, or no SQLite database")
	case errors.Is(err, sqlite3.CANTOPEN):
		return errors.New("SQLite cannot open it or a file beside it")
	}
	msg := strings.TrimPrefix(err.Error(), "sqlite3: ")
	if i := strings.IndexAny(msg, "\r\n"); i >= 0 {
		msg = msg[:i]
	}
	return fmt.Errorf("SQLite: %s", msg)
}

// dsn opens p read-only through the safe VFS: mode=ro writes nothing to
// the database. OPEN_NOFOLLOW refuses a database that is a symlink.
func dsn(p string, immutable bool) string {
	u := url.URL{Path: p}
	dsn := "file:" + u.EscapedPath() + "?vfs=" + safeVFSName + "&mode=ro"
	if immutable {
		dsn += "&immutable=1"
	}
	return dsn
}
