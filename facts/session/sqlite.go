package session

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"time"

	// SQLite compiled to Wasm and translated to Go, with its file access
	// in Go: the release builds with CGO_ENABLED=0.
	"github.com/ncruces/go-sqlite3"
)

// The agents that keep sessions in SQLite (OpenCode and Kilo from 1.2.0,
// Hermes, Cursor's chat store) write it in WAL mode while they run. A
// database is read by SQLite itself, read-only (mode=ro: nothing is
// created and nothing of the database or its WAL written), as one more
// reader of the agent's: in WAL mode a reader never blocks the writer,
// and the short read sees the last commit whole, mid-checkpoint or not.
// Like every reader it marks in the -shm, SQLite's shared-memory index,
// which WAL frame it reads up to; a read-only -shm (readonly_shm) would
// make each read load the whole WAL instead.
// immutable=1 would skip the locks but also the WAL, so it would show a
// title a checkpoint behind, or read a file a checkpoint is rewriting.
// A database another process holds locked answers busy within
// sqlBusy, and the whole read is bounded by sqlTimeout; the connection
// is closed after every read.

// sqlQuery is how one agent's database names a session.
type sqlQuery struct {
	sql   string // selects one value; ? is the session id when byID
	byID  bool
	apply func(v string, f *found) error
}

const (
	// sqlBusy is how long a read waits on a database locked by a writer.
	sqlBusy = 250 * time.Millisecond
	// sqlTimeout bounds one read of a database, open to close.
	sqlTimeout = time.Second
)

// errNoRow: the database holds no such session.
var errNoRow = errors.New("no session with that id in it")

var (
	// OpenCode's and Kilo's table session (packages/opencode/src/session/session.sql.ts).
	opencodeQuery = &sqlQuery{sql: "SELECT title FROM session WHERE id = ?", byID: true,
		apply: func(v string, f *found) error { opencodeTitle(v, f); return nil }}
	// Hermes's table sessions in state.db.
	hermesQuery = &sqlQuery{sql: "SELECT COALESCE(title, '') FROM sessions WHERE id = ?", byID: true,
		apply: func(v string, f *found) error { f.auto = v; return nil }}
	// Cursor's chat store.db: table meta, row "0".
	cursorQuery = &sqlQuery{sql: "SELECT value FROM meta WHERE key = '0'", apply: cursorName}
)

// readSQL reads ref's title from the database p when it, or its WAL,
// changed since the last read. The file read is the file checked: p is
// opened beneath root first, and a database whose path leads to another
// file once SQLite is done with it (swapped meanwhile) gives no title.
func readSQL(r *Reader, a agent, p, root string, ref Ref) (*found, error) {
	f, fi, err := r.openBeneath(p, root)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	wal, err := sqlSidecars(p, r.uid)
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", p, err)
	}
	key := p
	if a.query.byID {
		key += "\x00" + ref.Value
	}
	r.tick++
	if st := r.files[key]; st != nil && sameStat(st.fi, fi) && sameStat(st.wal, wal) {
		st.used = r.tick
		return &st.found, nil
	}
	walMode, err := sqlWALMode(f)
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", p, err)
	}
	v, err := querySQL(p, a.query, ref.Value, walMode && wal == nil)
	if err != nil && !errors.Is(err, errNoRow) {
		return nil, fmt.Errorf("database %s: %w", p, err)
	}
	if now, err := os.Stat(p); err != nil || !os.SameFile(now, fi) {
		return nil, fmt.Errorf("database %s: replaced while read", p)
	}
	st := &fileState{fi: fi, wal: wal, used: r.tick}
	if err != nil {
		// Kept: the same database is not asked again until it changes.
		st.found.bad = err
		r.keep(key, st)
		return &st.found, nil
	}
	if err := a.query.apply(v, &st.found); err != nil {
		return nil, fmt.Errorf("database %s: the value read does not decode: %w", p, err)
	}
	r.keep(key, st)
	return &st.found, nil
}

// sqlSidecars checks the database's -wal and -shm files, which SQLite
// opens by name: each absent, or a regular file of the daemon's user and
// no symlink. A -wal without its -shm is refused: reading it would make
// the -shm. It returns the -wal's stat, nil when there is none.
func sqlSidecars(p string, uid int) (os.FileInfo, error) {
	var wal os.FileInfo
	for _, suffix := range []string{"-wal", "-shm"} {
		fi, err := os.Lstat(p + suffix)
		switch {
		case errors.Is(err, os.ErrNotExist) && suffix == "-shm" && wal != nil:
			return nil, errors.New("a -wal without its -shm")
		case errors.Is(err, os.ErrNotExist):
			continue
		case err != nil:
			return nil, err
		case !fi.Mode().IsRegular():
			return nil, fmt.Errorf("its %s is not a regular file (%v)", suffix, fi.Mode().Type())
		}
		if err := ownedBy(p+suffix, fi, uid); err != nil {
			return nil, err
		}
		if suffix == "-wal" {
			wal = fi
		}
	}
	return wal, nil
}

// sqlWALMode reads the database's header from f: whether it is in WAL
// mode (read and write versions 2), or an error when f is no database.
func sqlWALMode(f *os.File) (bool, error) {
	var h [100]byte
	if _, err := f.ReadAt(h[:], 0); err != nil {
		return false, fmt.Errorf("its header: %w", err)
	}
	if string(h[:16]) != "SQLite format 3\x00" {
		return false, errors.New("not a SQLite database")
	}
	return h[18] == 2 && h[19] == 2, nil
}

// querySQL runs q on the database at p, read-only, and closes it.
// immutable reads a database in WAL mode that has no -wal (its agent is
// not running): SQLite would otherwise make the -wal and -shm to read it.
// Its file then changes only at a checkpoint of a writer that has just
// started, which a read of a few pages does not meet; when it does, the
// read fails rather than naming, and the -wal it makes wakes a read
// again.
func querySQL(p string, q *sqlQuery, id string, immutable bool) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), sqlTimeout)
	defer cancel()
	db, err := sqlite3.OpenFlags(sqliteDSN(p, immutable), sqlite3.OPEN_READONLY|sqlite3.OPEN_URI|sqlite3.OPEN_NOFOLLOW)
	if err != nil {
		return "", err
	}
	defer db.Close()
	db.SetInterrupt(ctx)
	st, _, err := db.Prepare(q.sql)
	if err != nil {
		return "", err
	}
	defer st.Close()
	if q.byID {
		if err := st.BindText(1, id); err != nil {
			return "", err
		}
	}
	if !st.Step() {
		if err := st.Err(); err != nil {
			return "", err
		}
		return "", errNoRow
	}
	return st.ColumnText(0), nil
}

// sqliteDSN opens p read-only: mode=ro writes nothing to the database,
// query_only refuses any write, and a small page cache keeps a read's
// memory small. OPEN_NOFOLLOW refuses a database that is a symlink.
func sqliteDSN(p string, immutable bool) string {
	u := url.URL{Path: p}
	dsn := fmt.Sprintf("file:%s?mode=ro&_pragma=busy_timeout(%d)&_pragma=query_only(1)&_pragma=cache_size(-256)",
		u.EscapedPath(), sqlBusy.Milliseconds())
	if immutable {
		dsn += "&immutable=1"
	}
	return dsn
}

// sameStat reports whether a and b are the same file, size and time, or
// both absent.
func sameStat(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}
