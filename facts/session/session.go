// Package session reads the title an agent's session carries, for the
// {session} template token: the name a person gave the session (Claude
// Code's /rename, Codex's thread name, pi's /name, ...), else the title
// the agent wrote itself. herdr says which session a pane's agent runs
// (PaneInfo.agent_session): a session id, or the path of the session
// file. docs/sessions.md describes each agent's format and its sources.
//
// A transcript can be hundreds of megabytes and grows while the agent
// works, and the path herdr hands over is untrusted. So a JSON-lines file
// is read only from its end, at most MaxRead bytes per read (back up to
// maxBack from its end when read afresh and the last MaxRead bytes do not
// settle the title), and only when its size or modification time moved
// since the last call (then only what was appended); a file that holds
// one session's title is read whole (at most maxWhole bytes) or by its
// first line, and a SQLite database read-only by package sqlread, all only
// when they changed, every value cut to its one line as it is kept. Only
// a regular file the daemon's user owns is read, never a FIFO or a
// device, not even by SQLite, and never through a symlink that leads out
// of the agent's own folder. Every look runs in a goroutine of its own
// and is abandoned after readBound, so a file system that hangs holds no
// pass up. Whatever goes wrong leaves the title empty and is logged once,
// at debug level, and told by Sessions.Why, which also says where a title
// was read.
package session

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/sqlread"
)

// MaxRead is the most bytes one read of a session file takes. A title
// entry is a line of a few hundred bytes and the agents append it at the
// end, so the last 256 KiB hold it unless a tool wrote more than that
// since; a read this size costs well under a millisecond.
const MaxRead = 256 << 10

// maxTitle caps a title's length in bytes; namer cuts it to the tab's
// width anyway.
const maxTitle = 1024

// maxFiles caps how many files' state a Reader keeps; the least recently
// asked for goes first.
const maxFiles = 256

// Kinds of Ref, as herdr's agent_session names them.
const (
	KindID   = "id"
	KindPath = "path"
)

// Ref names an agent session as herdr reports it.
type Ref struct {
	Agent string // herdr's agent label: "claude", "codex", "qwen", ...
	Kind  string // KindID or KindPath
	Value string // the session id or the session file's path
	// Dir is the pane's directory; it tells where Claude Code keeps the
	// transcript of a session herdr knows by id.
	Dir string
}

func (r Ref) String() string { return r.Agent + " " + r.Kind + " " + r.Value }

// Options configure a Reader. The zero value reads the daemon user's
// files under their home directory.
type Options struct {
	Home   string              // the daemon user's home; "" = os.UserHomeDir()
	Getenv func(string) string // nil = os.Getenv: CLAUDE_CONFIG_DIR, CODEX_HOME, ..., XDG_DATA_HOME
	Log    *slog.Logger        // nil = slog.Default()
	Now    func() time.Time    // nil = time.Now
}

// Reader reads session titles and remembers, per file, what it read. It
// is safe for concurrent use.
type Reader struct {
	home   string
	getenv func(string) string
	log    *slog.Logger
	now    func() time.Time
	uid    int // the owner a session file must have
	// window is the most bytes a read from a file's end takes (MaxRead),
	// back how far from its end a file read afresh is read at most
	// (maxBack); tests shrink them.
	window, back int64

	read     atomic.Int64 // bytes read from session files, ever
	sqlReads atomic.Int64 // databases opened and read, ever

	// smu guards stuck, the look abandoned that has not returned yet.
	smu   sync.Mutex
	stuck *readCall

	mu    sync.Mutex
	files map[string]*fileState // by resolved path
	dbs   map[string]*dbState   // databases, by resolved path
	pool  *sqlread.Pool         // databases kept open while read often
	found map[string]located    // Claude Code transcripts found by id
	// located: where sessions' files were found lately (locateTTL).
	located map[string]locatedAt
	logged  map[string]string // the failure last logged per Ref
	tick    uint64            // use counter, for eviction
	buf     []byte            // read buffer, up to MaxRead
	// checked, when set, runs between a session file's check and its
	// open: tests stand in there for a program swapping a folder.
	checked func()
}

// New returns a Reader.
func New(o Options) *Reader {
	r := &Reader{home: o.Home, getenv: o.Getenv, log: o.Log, now: o.Now, uid: os.Getuid(), window: MaxRead, back: maxBack,
		files: map[string]*fileState{}, dbs: map[string]*dbState{}, pool: sqlread.NewPool(), found: map[string]located{}, located: map[string]locatedAt{}, logged: map[string]string{}}
	if r.home == "" {
		r.home, _ = os.UserHomeDir()
	}
	if r.getenv == nil {
		r.getenv = os.Getenv
	}
	if r.log == nil {
		r.log = slog.Default()
	}
	if r.now == nil {
		r.now = time.Now
	}
	return r
}

// Close closes the databases the Reader keeps open; it reads on
// afterwards, keeping none.
func (r *Reader) Close() { r.pool.Close() }

// BytesRead is how many bytes the Reader has read from session files so
// far (stat calls and folder listings not counted).
func (r *Reader) BytesRead() int64 { return r.read.Load() }

// Supported reports whether the Reader knows where agent keeps its
// sessions and how they name themselves.
func Supported(agent string) bool {
	_, ok := agents[agent]
	return ok
}

// Title returns the title of ref's session, one line, or "" when there is
// none or it cannot be read.
func (r *Reader) Title(ref Ref) string {
	return r.lookup(ref).title
}

// Lookup is Title that also returns the file it read, resolved: a caller
// watches it to learn of a new title. The path is "" when there is no
// file (yet) or it may not be read.
func (r *Reader) Lookup(ref Ref) (title, path string) {
	a := r.lookup(ref)
	return a.title, a.path
}

// errNoTitle: the session's file was read and holds no title (yet).
var errNoTitle = errors.New("no title entry")

// wakes are the files whose change may change the title read from the
// session file p: p, and a SQLite database's -wal beside it, which every
// commit writes.
func wakes(ref Ref, p string) []string {
	if p == "" {
		return nil
	}
	if a, ok := agents[ref.Agent]; ok && a.query != nil && isDatabase(p) {
		return []string{p, p + "-wal"}
	}
	return []string{p}
}

// isDatabase reports whether the session file p of an agent that keeps a
// SQLite store is that database, not one of the JSON files it keeps
// besides (Cursor's meta.json, OpenCode's store before 1.2.0).
func isDatabase(p string) bool { return !strings.HasSuffix(p, ".json") }

// Awaited returns the folder a watcher learns from that ref's session file
// appeared, for when Lookup finds none: a session the agent has not
// written yet (Claude Code writes the transcript at the first message).
// It is the folder the file will be in, resolved and inside the agent's
// folder, or, with parent true, the existing folder above it that the
// file's folder will be made in. "" when the file is not awaited that way.
func (r *Reader) Awaited(ref Ref) (dir string, parent bool) {
	a, ok := agents[ref.Agent]
	if !ok || a.await == nil {
		return "", false
	}
	root := a.root(r)
	if root == "" {
		return "", false
	}
	return a.await(r, root, ref)
}

func (r *Reader) title(ref Ref) answer {
	a, ok := agents[ref.Agent]
	if !ok {
		return answer{err: fmt.Errorf("no session format known for agent %q", ref.Agent)}
	}
	p, root, err := r.locate(a, ref)
	if err != nil {
		return answer{err: err}
	}
	if r.checked != nil {
		r.checked()
	}
	read := a.read
	if read == nil {
		read = tailRead
	}
	f, err := read(r, a, p, root, ref)
	if err != nil {
		return answer{err: err}
	}
	title, what := a.pick(f, ref)
	switch title = oneLine(title); {
	case title != "":
		return answer{title: title, path: p, what: what + ", read from " + p}
	case f.bad != nil:
		return answer{path: p, err: fmt.Errorf("%s: %w", p, f.bad)}
	case f.window != "":
		return answer{path: p, err: fmt.Errorf("%s: %w in %s (older lines are not read)", p, errNoTitle, f.window)}
	}
	return answer{path: p, err: fmt.Errorf("%s: %w", p, errNoTitle)}
}

// note logs err once per Ref and failure; a success forgets it, so the
// next failure is logged again.
func (r *Reader) note(ref Ref, err error) {
	key := ref.String()
	if err == nil {
		delete(r.logged, key)
		return
	}
	msg := err.Error()
	if r.logged[key] == msg {
		return
	}
	if len(r.logged) >= maxFiles {
		clear(r.logged)
	}
	r.logged[key] = msg
	r.log.Debug("session title: none", "agent", ref.Agent, "kind", ref.Kind, "session", ref.Value, "err", err)
}

// oneLine is the first line of s, trimmed, at most maxTitle bytes.
func oneLine(s string) string {
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	if len(s) > maxTitle {
		cut := maxTitle
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	return s
}
