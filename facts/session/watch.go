package session

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// maxSessionWatches bounds the folders watched for session files: each is
// an inotify watch, a per-user resource. A pane past the bound has its
// session files looked at every pollEvery instead.
const maxSessionWatches = 64

// sessionCoalesce is how long a written session file settles before it
// is read: an agent appends lines in bursts, and one read per burst is
// enough to see a new title well within a second.
const sessionCoalesce = 100 * time.Millisecond

// sessionBusyGap spaces the reads of files written without a pause: an
// agent streaming an answer commits its database twenty times a second,
// and reading it twice a second still shows a rename within a second, at
// a tenth of the cost.
const sessionBusyGap = 500 * time.Millisecond

// Sessions gives lead panes the title of their agent's session, for
// {session}, and tells when a watched session file got a new title or a
// new session file appeared. herdr says which session a pane's agent runs
// (agent_session) but sends no event when that changes, so a new session
// (Claude Code's /clear, /resume, or a first message) is learnt from its
// file appearing, or looked for after input in the pane's terminal
// (looks.go): the pass that wakes reads the new agent_session. The file
// is read by a Reader, bounded and only when it changed. A pane whose
// folder cannot be watched, or is written without a pause (rest.go), has
// its files looked at every pollEvery instead, and Why tells where a
// pane's title was read or why it has none. Sessions is safe for
// concurrent use.
type Sessions struct {
	reader  *Reader
	log     *slog.Logger
	changed chan struct{}
	// onWatch, when set, hears whether files can be watched: nil once
	// one is, the error when none can be; newWatcher makes the watcher
	// (tests stand in for used-up inotify).
	onWatch    func(error)
	newWatcher func() (*fsnotify.Watcher, error)

	mu       sync.Mutex
	panes    map[string]*sessionPane // by pane id
	none     map[string]string       // why panes asked about have no session to read
	dirs     map[string]int          // watched folder -> panes watching it
	watcher  *fsnotify.Watcher       // nil until a file is to be watched
	failed   bool                    // fsnotify could not start: no watching
	full     bool                    // the watch bound was hit (logged once)
	dirty    map[string]bool         // watched files written since their last read
	check    map[string]bool         // panes to read again once their watch is in place
	appeared bool                    // a session file appeared since the last signal
	timer    *time.Timer             // the coalescing delay under way; nil: none
	rereadAt time.Time               // when the last one ended in a read
	closed   bool
	done     chan struct{} // closed when the watching goroutine ends

	// Looks again at which session panes run (looks.go): unreported are
	// the panes of an agent herdr reports no session for yet; lookTimer
	// fires the looks after input, lookStep the next of lookAfter;
	// otherAt is the last look a file no pane reads asked for.
	unreported map[string]bool
	lookTimer  *time.Timer
	lookStep   int
	otherAt    time.Time
	others     map[string]time.Time // files no pane reads, when last written

	// Folders written without a pause rest (rest.go): writes counts the
	// writes to each watched folder since the last read, resting the
	// looks in a row that found a resting folder's files unchanged.
	writes  map[string]int
	resting map[string]int

	// The panes whose folders are not watched have their files looked at
	// every pollEvery (poll.go).
	stats    map[string]os.FileInfo // polled file -> as last looked at; nil: absent
	polling  bool                   // the polling goroutine runs
	stopPoll chan struct{}          // closed to stop it
	pollDone chan struct{}          // closed when it ends
}

// sessionPane is one pane's session as last read.
type sessionPane struct {
	ref   Ref
	path  string // the resolved session file; "" when there is none
	title string
	// dir is the folder to watch: path's, or while there is no file the
	// one it will appear in; "" for none.
	dir string
	// parent: dir is where the folder of a file not yet written will be
	// made, so any new entry in it may be that folder.
	parent   bool
	watching bool     // dir is watched on the pane's behalf
	wake     []string // the files whose change may change the title
	why      string   // what the title is, or why there is none (Why)
}

// NewSessions returns a Sessions reading with a Reader made from opt.
// onWatch, when not nil, hears whether session folders can be watched:
// nil once one is, the error when none can be (the user's inotify
// watches used up), so the daemon's health record can say so.
func NewSessions(opt Options, onWatch func(error)) *Sessions {
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	return &Sessions{reader: New(opt), log: opt.Log, changed: make(chan struct{}, 1), newWatcher: fsnotify.NewWatcher, onWatch: onWatch,
		panes: map[string]*sessionPane{}, none: map[string]string{}, unreported: map[string]bool{}, others: map[string]time.Time{}, dirs: map[string]int{}, dirty: map[string]bool{}, check: map[string]bool{},
		stats: map[string]os.FileInfo{}}
}

// watchTrouble tells onWatch; s.mu held.
func (s *Sessions) watchTrouble(err error) {
	if s.onWatch != nil {
		s.onWatch(err)
	}
}

// Changed receives after a watched session file was written and its title
// is no longer the one Titles returned, a session file appeared in a
// watched folder, or a pane's session may have changed unannounced
// (looks.go): a pass then shows the new title or reads which session the
// pane now runs. One receive stands for any number of changes.
func (s *Sessions) Changed() <-chan struct{} { return s.changed }

// BytesRead is how many bytes of session files have been read.
func (s *Sessions) BytesRead() int64 { return s.reader.BytesRead() }

// Titles returns the session title of each of panes that has one, by pane
// id, and watches their session files from then on, or the folder a file
// not written yet will appear in. A pane without an agent session stops
// being watched.
func (s *Sessions) Titles(panes []herdr.Pane) map[string]string {
	out := make(map[string]string, len(panes))
	for _, p := range panes {
		ref, none := sessionRef(p)
		if none != "" {
			s.forget(p.ID)
			s.noteNone(p.ID, none, p.Agent != "" && p.AgentSession == nil)
			continue
		}
		a := s.reader.lookup(ref)
		why := a.why()
		if unanswered(a.err) {
			// A hung file keeps the pane's title as last read.
			if a.title, a.path = s.lastRead(p.ID, ref, a.path); a.title != "" {
				why = "the title read before stands: " + why
			}
		}
		if a.title != "" {
			out[p.ID] = a.title
		}
		next := sessionPane{ref: ref, path: a.path, title: a.title, dir: filepath.Dir(a.path), wake: wakes(ref, a.path), why: why}
		if a.path == "" {
			next.dir, next.parent = s.reader.Awaited(ref)
		}
		s.track(p.ID, next)
	}
	return out
}

// lastRead is the title and file last read for pane id, while it runs
// ref; path otherwise.
func (s *Sessions) lastRead(id string, ref Ref, path string) (string, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.panes[id]; p != nil && p.ref == ref {
		return p.title, p.path
	}
	return "", path
}

// Why says why pane id's {session} is what it is: what its title is and
// the file it was read from, or why there is none (no agent session, a
// file not found, not to be read, or holding no title yet). explain shows
// it; "" for a pane never asked about.
func (s *Sessions) Why(id string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.panes[id]; p != nil {
		return p.why
	}
	return s.none[id]
}

// noteNone records why pane id, asked about, has no session to read;
// unreported: its agent may report one yet.
func (s *Sessions) noteNone(id, why string, unreported bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.none) >= maxFiles {
		clear(s.none)
		clear(s.unreported)
	}
	s.none[id] = why
	if unreported {
		s.unreported[id] = true
	} else {
		delete(s.unreported, id)
	}
}

// Prune stops watching for panes that are gone.
func (s *Sessions) Prune(live map[string]bool) {
	s.mu.Lock()
	ids := make([]string, 0, len(s.panes))
	for id := range s.panes {
		if !live[id] {
			ids = append(ids, id)
		}
	}
	for id := range s.none {
		if !live[id] {
			delete(s.none, id)
			delete(s.unreported, id)
		}
	}
	s.mu.Unlock()
	for _, id := range ids {
		s.forget(id)
	}
}

// Close stops watching, waiting at most readBound for a look under way.
// Titles still reads afterwards, unwatched.
func (s *Sessions) Close() error {
	s.mu.Lock()
	s.closed = true
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	if s.lookTimer != nil {
		s.lookTimer.Stop()
	}
	w, done := s.watcher, s.done
	s.watcher = nil
	polled := s.stopPolling()
	s.mu.Unlock()
	select {
	case <-polled:
	case <-time.After(readBound):
		// Its stat of a file hangs: it ends when that returns.
	}
	s.reader.Close()
	if w == nil {
		return nil
	}
	err := w.Close()
	<-done
	return err
}

// sessionRef is what the Reader needs of p's agent session, or why p
// has none it can read.
func sessionRef(p herdr.Pane) (Ref, string) {
	as := p.AgentSession
	switch {
	case p.Agent == "":
		return Ref{}, "no agent runs in the pane, as herdr sees it"
	case as == nil:
		return Ref{}, fmt.Sprintf("herdr reports no session for its %s (herdr keeps one only from its own integration of the agent)", p.Agent)
	case !Supported(as.Agent):
		return Ref{}, fmt.Sprintf("%s's session titles are not read", as.Agent)
	}
	// Claude Code names the transcript's folder after the directory it
	// started in: its own process's directory, which foreground_cwd is.
	dir := p.ForegroundCwd
	if dir == "" {
		dir = p.Cwd
	}
	return Ref{Agent: as.Agent, Kind: as.Kind, Value: as.Value, Dir: dir}, ""
}

// track records what was read for pane id and moves its watch to
// next.dir. A pane whose watch or file is new is read again once the watch
// is in place: what was written between the read and the watch raises no
// event the pane is known to wait for.
func (s *Sessions) track(id string, next sessionPane) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.none, id)
	delete(s.unreported, id)
	old := s.panes[id]
	keep := old != nil && old.watching && old.dir == next.dir
	if old != nil && old.watching && !keep {
		s.release(old.dir)
	}
	next.watching = keep || next.dir != "" && s.acquire(next.dir)
	if next.watching && (!keep || old.path != next.path) {
		s.check[id] = true
		s.arm()
	}
	s.panes[id] = &next
	if !next.watching && len(next.wake) > 0 {
		s.startPolling()
	}
}

// forget drops pane id and its watch.
func (s *Sessions) forget(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.panes[id]; p != nil && p.watching {
		s.release(p.dir)
	}
	delete(s.panes, id)
	delete(s.check, id)
}

// acquire watches dir for one more pane; false when it cannot. s.mu held.
func (s *Sessions) acquire(dir string) bool {
	if s.rests(dir) {
		return false // looked at instead while written without a pause
	}
	if s.dirs[dir] > 0 {
		s.dirs[dir]++
		return true
	}
	if s.closed || !s.startWatcher() {
		return false
	}
	if len(s.dirs) >= maxSessionWatches {
		if !s.full {
			s.full = true
			s.log.Debug("session files: watch bound reached; the rest get their titles at each pass", "bound", maxSessionWatches)
		}
		return false
	}
	if err := s.watcher.Add(dir); err != nil {
		s.log.Debug("session files: cannot watch folder", "dir", dir, "err", err)
		if errors.Is(err, syscall.ENOSPC) {
			// The user's inotify watches are used up.
			s.watchTrouble(err)
		}
		return false
	}
	s.watchTrouble(nil)
	s.dirs[dir] = 1
	return true
}

// release drops one pane's watch of dir. s.mu held.
func (s *Sessions) release(dir string) {
	if s.dirs[dir]--; s.dirs[dir] > 0 {
		return
	}
	delete(s.dirs, dir)
	if s.watcher != nil {
		if err := s.watcher.Remove(dir); err != nil {
			s.log.Debug("session files: unwatching folder", "dir", dir, "err", err)
		}
	}
}

// startWatcher makes the watcher on first need. s.mu held.
func (s *Sessions) startWatcher() bool {
	if s.watcher != nil {
		return true
	}
	if s.failed {
		return false
	}
	w, err := s.newWatcher()
	if err != nil {
		s.failed = true
		s.log.Warn("session files: cannot watch them; {session} titles are looked at twice a second", "err", err)
		s.watchTrouble(err)
		return false
	}
	s.watcher, s.done = w, make(chan struct{})
	go s.watch(w, s.done)
	return true
}

// watch receives w's events until it is closed.
func (s *Sessions) watch(w *fsnotify.Watcher, done chan struct{}) {
	defer close(done)
	for {
		select {
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if ev.Has(fsnotify.Write) || ev.Has(fsnotify.Create) {
				s.written(ev.Name, ev.Has(fsnotify.Create))
			}
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			s.log.Debug("session files: watch error", "err", err)
		}
	}
}

// written notes a write to file name, or its creation, and starts the
// coalescing delay: a pane's own file is read again, and a new one that
// may be a session no pane is known to run yet is signalled.
func (s *Sessions) written(name string, created bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return
	case s.markWoken(name, true):
		s.noteWrite(name)
	case created && s.awaits(name), !created && s.otherSession(name, time.Now()):
		s.appeared = true
	default:
		return
	}
	s.arm()
}

// arm starts the coalescing delay unless one is under way. s.mu held.
func (s *Sessions) arm() {
	if s.timer == nil && !s.closed {
		s.timer = time.AfterFunc(max(sessionCoalesce, sessionBusyGap-time.Since(s.rereadAt)), s.reread)
	}
}

// markWoken marks for reading again the session files of the panes
// (watched ones, or with watched false polled ones) that file name wakes;
// false when it wakes none. s.mu held.
func (s *Sessions) markWoken(name string, watched bool) bool {
	woke := false
	for _, p := range s.panes {
		if p.watching == watched && slices.Contains(p.wake, name) {
			s.dirty[p.path] = true
			woke = true
		}
	}
	return woke
}

// awaits reports whether name, just made in a watched folder, may hold a
// session: a session file (*.jsonl; other files the agents keep beside
// them wake nothing), or any entry of a folder watched as the parent of a
// transcript's folder yet to be made. s.mu held.
func (s *Sessions) awaits(name string) bool {
	dir := filepath.Dir(name)
	if s.dirs[dir] == 0 {
		return false
	}
	if strings.HasSuffix(name, ".jsonl") {
		return true
	}
	for _, p := range s.panes {
		if p.watching && p.parent && p.dir == dir {
			return true
		}
	}
	return false
}

// reread reads the titles of the panes whose files were written or whose
// watch is new, and signals Changed when one differs from what was last
// read, a pane's file appeared or moved, or a new session file appeared.
func (s *Sessions) reread() {
	s.mu.Lock()
	dirty, check, changed := s.dirty, s.check, s.appeared
	s.dirty, s.check, s.appeared, s.timer = map[string]bool{}, map[string]bool{}, false, nil
	s.rereadAt = time.Now()
	s.restBusy()
	todo := map[string]sessionPane{}
	for id, p := range s.panes {
		if p.path != "" && dirty[p.path] || check[id] {
			todo[id] = *p
		}
	}
	s.mu.Unlock()
	for id, was := range todo {
		a := s.reader.lookup(was.ref)
		if unanswered(a.err) {
			continue // the title last read stands
		}
		if s.update(id, was.ref, a.title, a.path, a.why()) {
			changed = true
		}
	}
	if changed {
		s.signal()
	}
}

// update records title for pane id if it still runs ref; true when a pass
// would show something new: another title, or another file than the one
// tracked (a pass then watches it).
func (s *Sessions) update(id string, ref Ref, title, path, why string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.panes[id]
	switch {
	case p == nil || p.ref != ref:
		return false
	}
	p.why = why
	switch {
	case p.path != path:
		return true
	case p.title != title:
		p.title = title
		return true
	}
	return false
}
