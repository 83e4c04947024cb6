package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
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
// is closed after every read. Every file SQLite opens goes through
// safeVFS (sqlvfs.go), which never opens one that could block.
//
// One read of a database reads every session asked of it lately, so the
// panes of six sessions in one database cost one read per commit, not
// six. A value is read through SQLite's incremental blob I/O, at most
// sqlQuery.max bytes of it: a title of 100 MiB costs the pages of its
// first bytes, never the whole value.

// sqlQuery is where one agent's database keeps a session's title.
type sqlQuery struct {
	table, key, col string
	// fixed is the key of the one row read (Cursor's "0"); "" reads the
	// row of the session's id.
	fixed string
	// max is how many bytes of the value are read; a longer one is cut,
	// or with whole refused.
	max   int
	whole bool
	apply func(v string, f *found) error
}

const (
	// sqlBusy is how long a read waits on a database locked by a writer.
	sqlBusy = 250 * time.Millisecond
	// sqlTimeout bounds one read of a database, open to close; a read
	// that does not return within readBound is abandoned (bounded.go).
	sqlTimeout = 500 * time.Millisecond
	// maxDBKeys bounds the sessions one read of a database asks for.
	maxDBKeys = 64
)

// errNoRow: the database holds no such session.
var errNoRow = errors.New("no session with that id in it")

var (
	// OpenCode's and Kilo's table session (packages/opencode/src/session/session.sql.ts).
	opencodeQuery = &sqlQuery{table: "session", key: "id", col: "title", max: 4 * maxTitle,
		apply: func(v string, f *found) error { opencodeTitle(v, f); return nil }}
	// Hermes's table sessions in state.db.
	hermesQuery = &sqlQuery{table: "sessions", key: "id", col: "title", max: 4 * maxTitle,
		apply: func(v string, f *found) error { f.auto = v; return nil }}
	// Cursor's chat store.db: table meta, row "0", the hex of a small
	// JSON object.
	cursorQuery = &sqlQuery{table: "meta", key: "key", col: "value", fixed: "0", max: 64 << 10, whole: true, apply: cursorName}
)

// dbState is what the Reader knows of one database: the values last read
// of the sessions asked of it, and the database and its -wal as they were
// then.
type dbState struct {
	fi, wal os.FileInfo
	got     map[string]*found // by key
	asked   map[string]uint64 // key -> Reader.tick when last asked
	used    uint64
}

// readSQL reads ref's title from the database p, reading it only when it
// or its WAL changed since the last read (or the session was not asked
// of it before). The file read is the file checked: p is opened beneath
// root first, and a database whose path leads to another file once
// SQLite is done with it (swapped meanwhile) gives no title.
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
	q := a.query
	key := q.fixed
	if key == "" {
		key = ref.Value
	}
	st := r.db(p)
	st.ask(key, r.tick)
	fresh := sameStat(st.fi, fi) && sameStat(st.wal, wal)
	if got := st.got[key]; fresh && got != nil {
		return got, nil
	}
	keys := []string{key}
	if !fresh {
		// Changed: what was read of it goes, and every session asked of
		// it lately is read again at once.
		st.got, keys = map[string]*found{}, st.keys()
	}
	walMode, err := sqlWALMode(f)
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", p, err)
	}
	r.sqlReads.Add(1)
	values, err := querySQL(p, q, keys, walMode && wal == nil)
	if now, serr := os.Stat(p); serr != nil || !os.SameFile(now, fi) {
		return nil, fmt.Errorf("database %s: replaced while read", p)
	}
	st.fi, st.wal = fi, wal
	for _, k := range keys {
		// Kept, failures too: the same database is not asked again
		// until it changes.
		got := &found{}
		v, ok := values[k]
		switch {
		case err != nil:
			got.bad = err
		case !ok:
			got.bad = errNoRow
		default:
			if aerr := q.apply(v, got); aerr != nil {
				got.bad = fmt.Errorf("the value read does not decode: %w", aerr)
			}
			got.trim()
		}
		st.got[k] = got
	}
	return st.got[key], nil
}

// db is the state of the database p, made when there is none; the least
// recently used goes when there are too many.
func (r *Reader) db(p string) *dbState {
	r.tick++
	st := r.dbs[p]
	if st == nil {
		if len(r.dbs) >= maxFiles {
			oldest := ""
			for k, v := range r.dbs {
				if oldest == "" || v.used < r.dbs[oldest].used {
					oldest = k
				}
			}
			delete(r.dbs, oldest)
		}
		st = &dbState{got: map[string]*found{}, asked: map[string]uint64{}}
		r.dbs[p] = st
	}
	st.used = r.tick
	return st
}

// ask notes that key was asked for at tick, forgetting the key asked
// least lately when there are too many.
func (st *dbState) ask(key string, tick uint64) {
	if _, ok := st.asked[key]; !ok && len(st.asked) >= maxDBKeys {
		oldest, at := "", uint64(0)
		for k, t := range st.asked {
			if oldest == "" || t < at {
				oldest, at = k, t
			}
		}
		delete(st.asked, oldest)
		delete(st.got, oldest)
	}
	st.asked[key] = tick
}

// keys are the keys asked of the database lately.
func (st *dbState) keys() []string {
	keys := make([]string, 0, len(st.asked))
	for k := range st.asked {
		keys = append(keys, k)
	}
	return keys
}

// sqlSidecars checks the files SQLite opens by name beside the database:
// its -journal (a hot-journal check opens it), -wal and -shm, each
// absent, or a regular file of the daemon's user and no symlink. A -wal
// without its -shm is refused: reading it would make the -shm. It returns
// the -wal's stat, nil when there is none.
func sqlSidecars(p string, uid int) (os.FileInfo, error) {
	var wal os.FileInfo
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
			return nil, fmt.Errorf("its %s is %s, not a regular file", suffix, safeKind(fi.Mode()))
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

// safeKind names a file's type: "a FIFO", "a symlink", ...
func safeKind(m os.FileMode) string {
	switch {
	case m&os.ModeSymlink != 0:
		return "a symlink"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a folder"
	}
	return "an odd file"
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

// querySQL reads the values of keys in the database at p, read-only, in
// one read transaction, and closes it. A key with no row has no value.
// immutable reads a database in WAL mode that has no -wal (its agent is
// not running): SQLite would otherwise make the -wal and -shm to read it.
// Its file then changes only at a checkpoint of a writer that has just
// started, which a read of a few pages does not meet; when it does, the
// read fails rather than naming, and the -wal it makes wakes a read
// again.
func querySQL(p string, q *sqlQuery, keys []string, immutable bool) (map[string]string, error) {
	useSafeVFS()
	ctx, cancel := context.WithTimeout(context.Background(), sqlTimeout)
	defer cancel()
	c, err := sqlite3.OpenFlags(sqliteDSN(p, immutable), sqlite3.OPEN_READONLY|sqlite3.OPEN_URI|sqlite3.OPEN_NOFOLLOW)
	if err != nil {
		return nil, sqlError(err)
	}
	defer c.Close()
	c.SetInterrupt(ctx)
	if err := c.BusyTimeout(sqlBusy); err != nil {
		return nil, sqlError(err)
	}
	// query_only refuses any write; a small page cache keeps a read's
	// memory small.
	for _, pragma := range []string{"PRAGMA query_only=1", "PRAGMA cache_size=-256", "BEGIN"} {
		if err := c.Exec(pragma); err != nil {
			return nil, sqlError(err)
		}
	}
	values, err := sqlValues(c, q, keys)
	if err != nil {
		return nil, sqlError(err)
	}
	return values, nil
}

// sqlValues reads the values of keys: the rows' ids and types first, then
// at most q.max bytes of each text or blob through incremental blob I/O.
func sqlValues(c *sqlite3.Conn, q *sqlQuery, keys []string) (map[string]string, error) {
	in := strings.TrimSuffix(strings.Repeat("?,", len(keys)), ",")
	st, _, err := c.Prepare(fmt.Sprintf("SELECT %s, rowid, typeof(%s) FROM %s WHERE %s IN (%s)", q.key, q.col, q.table, q.key, in))
	if err != nil {
		return nil, err
	}
	defer st.Close()
	for i, k := range keys {
		if err := st.BindText(i+1, k); err != nil {
			return nil, err
		}
	}
	values := map[string]string{}
	for st.Step() {
		key, row, kind := st.ColumnText(0), st.ColumnInt64(1), st.ColumnText(2)
		if kind != "text" && kind != "blob" {
			values[key] = "" // NULL: no title yet
			continue
		}
		v, err := sqlValue(c, q, row)
		if err != nil {
			return nil, err
		}
		values[key] = v
	}
	return values, st.Err()
}

// sqlValue reads at most q.max bytes of the value in row.
func sqlValue(c *sqlite3.Conn, q *sqlQuery, row int64) (string, error) {
	b, err := c.OpenBlob("main", q.table, q.col, row, false)
	if err != nil {
		return "", err
	}
	defer b.Close()
	if q.whole && b.Size() > int64(q.max) {
		return "", fmt.Errorf("a value of %d bytes, %w of %d", b.Size(), errTooBig, q.max)
	}
	buf := make([]byte, min(b.Size(), int64(q.max)))
	if _, err := io.ReadFull(b, buf); err != nil {
		return "", err
	}
	return string(buf), nil
}

// sqlError says in one line why a read of a database failed.
func sqlError(err error) error {
	switch {
	case errors.Is(err, sqlite3.BUSY), errors.Is(err, sqlite3.LOCKED):
		return fmt.Errorf("locked by another process: no read within %v", sqlBusy)
	case errors.Is(err, sqlite3.INTERRUPT):
		return fmt.Errorf("no answer within %v", sqlTimeout)
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

// sqliteDSN opens p read-only through safeVFS: mode=ro writes nothing to
// the database. OPEN_NOFOLLOW refuses a database that is a symlink.
func sqliteDSN(p string, immutable bool) string {
	u := url.URL{Path: p}
	dsn := "file:" + u.EscapedPath() + "?vfs=" + safeVFSName + "&mode=ro"
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
