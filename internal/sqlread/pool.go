package sqlread

import (
	"os"
	"sync"
	"time"
)

// ConnIdle is how long a Pool keeps a database's connection after its
// last read: while its writer works, reads come twice a second or more,
// and opening a connection costs more than a read. At rest none is kept.
const ConnIdle = 2 * time.Second

// Pool reads databases through connections kept while they are read
// often, each closed ConnIdle after its last read. It is safe for
// concurrent use; one read of a database at a time.
type Pool struct {
	mu     sync.Mutex
	conns  map[string]*held // by path
	idle   *time.Timer      // closes conns not used for ConnIdle
	closed bool             // Close was called: keep none
}

// held is a connection kept to a database.
type held struct {
	conn *Conn
	fi   os.FileInfo // the database file it was opened on
	used time.Time
}

// NewPool returns an empty Pool.
func NewPool() *Pool { return &Pool{conns: map[string]*held{}} }

// Values reads keys of the database p, the file fi, through the
// connection kept to it, or a new one kept from now on. A database whose
// writer is not running (immutable) is read once and closed: nothing
// reads it often.
func (pl *Pool) Values(p string, fi os.FileInfo, q Query, keys []string, immutable bool) (map[string]string, error) {
	if immutable {
		return Values(p, q, keys, true)
	}
	pl.mu.Lock()
	defer pl.mu.Unlock()
	h := pl.conns[p]
	if h != nil && !os.SameFile(h.fi, fi) {
		h.conn.Close() // another file now: replaced
		delete(pl.conns, p)
		h = nil
	}
	if h == nil {
		c, err := Open(p, false)
		if err != nil {
			return nil, err
		}
		h = &held{conn: c, fi: fi}
		pl.conns[p] = h
	}
	h.used = time.Now()
	values, err := h.conn.Values(q, keys)
	switch {
	case err != nil || pl.closed:
		h.conn.Close()
		delete(pl.conns, p)
	case pl.idle == nil:
		pl.idle = time.AfterFunc(ConnIdle, pl.closeIdle)
	}
	return values, err
}

// Open says how many connections are kept.
func (pl *Pool) Open() int {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	return len(pl.conns)
}

// closeIdle closes the connections not used for ConnIdle.
func (pl *Pool) closeIdle() {
	pl.mu.Lock()
	defer pl.mu.Unlock()
	pl.idle = nil
	for p, h := range pl.conns {
		if time.Since(h.used) >= ConnIdle {
			h.conn.Close()
			delete(pl.conns, p)
		}
	}
	if len(pl.conns) > 0 && !pl.closed {
		pl.idle = time.AfterFunc(ConnIdle, pl.closeIdle)
	}
}

// Close closes every connection kept; the Pool reads on afterwards,
// keeping none. It does not wait for a read under way (one may hang):
// that one is closed when it ends.
func (pl *Pool) Close() {
	if !pl.mu.TryLock() {
		go func() {
			pl.mu.Lock()
			defer pl.mu.Unlock()
			pl.closeAll()
		}()
		return
	}
	defer pl.mu.Unlock()
	pl.closeAll()
}

func (pl *Pool) closeAll() {
	pl.closed = true
	if pl.idle != nil {
		pl.idle.Stop()
		pl.idle = nil
	}
	for p, h := range pl.conns {
		h.conn.Close()
		delete(pl.conns, p)
	}
}
