package session

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/sqlread"
)

// The agents that keep sessions in SQLite (OpenCode and Kilo from 1.2.0,
// Hermes, Cursor's chat store) write it in WAL mode while they run; it is
// read by package sqlread: read-only, as one more reader of the agent's,
// never opening a file that could block, a value cut as it is read.
//
// One read of a database reads every session asked of it lately, so the
// panes of six sessions in one database cost one read per commit, not
// six; and a database is read again only when it or its -wal changed.

// sqlQuery is where one agent's database keeps a session's title.
type sqlQuery struct {
	sqlread.Query
	// fixed is the key of the one row read (Cursor's "0"); "" reads the
	// row of the session's id.
	fixed string
	apply func(v string, f *found) error
}

// maxDBKeys bounds the sessions one read of a database asks for.
const maxDBKeys = 64

// errNoRow: the database holds no such session.
var errNoRow = errors.New("no session with that id in it")

var (
	// OpenCode's and Kilo's table session (packages/opencode/src/session/session.sql.ts).
	opencodeQuery = &sqlQuery{Query: sqlread.Query{Table: "session", Key: "id", Col: "title", Max: 4 * maxTitle},
		apply: func(v string, f *found) error { opencodeTitle(v, f); return nil }}
	// Hermes's table sessions in state.db.
	hermesQuery = &sqlQuery{Query: sqlread.Query{Table: "sessions", Key: "id", Col: "title", Max: 4 * maxTitle},
		apply: func(v string, f *found) error { f.auto = v; return nil }}
	// Cursor's chat store.db: table meta, row "0", the hex of a small
	// JSON object.
	cursorQuery = &sqlQuery{Query: sqlread.Query{Table: "meta", Key: "key", Col: "value", Max: 64 << 10, Whole: true},
		fixed: "0", apply: cursorName}
)

// dbState is what the Reader knows of one database: the values last read
// of the sessions asked of it, and the database and its -wal as they were
// then.
type dbState struct {
	fi, wal os.FileInfo
	got     map[string]*found // by key
	asked   map[string]uint64 // key -> Reader.tick when last asked
	used    uint64
	checked time.Time // when its files were last looked at
}

// dbFresh is how long a database looked at stands without a look again:
// the panes of its sessions are read one after the other, within a
// millisecond or two, and a commit meanwhile wakes a read of its own
// (sessionCoalesce later).
const dbFresh = 50 * time.Millisecond

// readSQL reads ref's title from the database p, reading it only when it
// or its WAL changed since the last read (or the session was not asked
// of it before). The file read is the file checked: p is opened beneath
// root first, and a database whose path leads to another file once
// SQLite is done with it (swapped meanwhile) gives no title.
func readSQL(r *Reader, a agent, p, root string, ref Ref) (*found, error) {
	q := a.query
	key := q.fixed
	if key == "" {
		key = ref.Value
	}
	if st := r.dbs[p]; st != nil && st.got[key] != nil && r.now().Sub(st.checked) < dbFresh {
		// Checked a moment ago, for another pane of the same database.
		st.ask(key, r.tick)
		return st.got[key], nil
	}
	f, fi, err := r.openBeneath(p, root)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	wal, err := sqlread.Sidecars(p, r.uid)
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", p, err)
	}
	st := r.db(p)
	st.checked = r.now()
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
	walMode, err := sqlread.WALMode(f)
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", p, err)
	}
	r.sqlReads.Add(1)
	values, err := r.pool.Values(p, fi, q.Query, keys, walMode && wal == nil)
	if now, serr := os.Stat(p); serr != nil || !os.SameFile(now, fi) {
		return nil, fmt.Errorf("database %s: replaced while read", p)
	}
	st.fi, st.wal = fi, wal
	st.take(q, keys, values, err)
	return st.got[key], nil
}

// take keeps what a read of keys found: their values, or why there are
// none. Failures are kept too: the same database is not asked again until
// it changes.
func (st *dbState) take(q *sqlQuery, keys []string, values map[string]string, err error) {
	for _, k := range keys {
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

// sameStat reports whether a and b are the same file, size and time, or
// both absent.
func sameStat(a, b os.FileInfo) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}
