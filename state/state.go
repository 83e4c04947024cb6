package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/atomicfile"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/safefile"
)

// Version is the file format version this package writes. A file of an
// older version reads as far as it goes; a newer one is read, never
// written.
const Version = 1

// stateFile is the file's form. Panes are absent from files that older
// versions wrote.
type stateFile struct {
	Version int    `json:"version"`
	Server  string `json:"server,omitempty"`
	// Instance and Terminals name the herdr server process the memory
	// describes (Server).
	Instance   string            `json:"instance,omitempty"`
	Terminals  map[string]string `json:"terminals,omitempty"`
	Tabs       map[string]Entry  `json:"tabs"`
	Workspaces map[string]Entry  `json:"workspaces,omitempty"`
	Panes      map[string]Entry  `json:"panes,omitempty"`
}

// State is the memory of one herdr server. Path "" keeps it in memory
// only. Writers (the daemon, and lock, release and restore run by a
// person) serialise read-modify-write through an flock on Path+".lock".
type State struct {
	path   string
	socket string // the herdr socket the file belongs to

	mu      sync.Mutex
	server  Server
	entries [len(Kinds)]map[string]Entry
	// synced is what the file held of each target when we last read or
	// wrote it: an entry that differs from it is a change of ours the
	// file does not have yet.
	synced  [len(Kinds)]map[string]Entry
	stamp   safefile.Stamp // what we last read or wrote
	damaged *DamagedError
}

// Load reads path, the state of the herdr server at socket. A missing
// file is an empty state. A file that cannot be read as a state, or a
// newer one, leaves the State read-only and is returned as a
// *DamagedError; a file of another server is an *OtherServerError. Both
// are warnings: the State is usable.
func Load(path, socket string) (*State, error) {
	s := &State{path: path, socket: socket}
	s.clear()
	if path == "" {
		return s, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s, s.reload()
}

// Path is the file the state lives in, "" when in memory only.
func (s *State) Path() string { return s.path }

// Entry is a copy of what is remembered of t (zero when nothing).
func (s *State) Entry(t Target) Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.entries[t.Kind][t.ID]
}

// Tab is a copy of what is remembered of tab id.
func (s *State) Tab(id string) Entry { return s.Entry(TabTarget(id)) }

// Has reports whether anything is remembered of t.
func (s *State) Has(t Target) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.entries[t.Kind][t.ID]
	return ok
}

// IDs lists the targets of kind remembered, sorted.
func (s *State) IDs(kind Kind) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]string, 0, len(s.entries[kind]))
	for id := range s.entries[kind] {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Len is how many targets of kind are remembered.
func (s *State) Len(kind Kind) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries[kind])
}

// Server is the herdr server the memory describes.
func (s *State) Server() Server {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.server.clone()
}

func (s *State) clear() {
	for _, k := range Kinds {
		s.entries[k] = map[string]Entry{}
	}
	s.server = Server{}
}

// maxFileSize bounds what is read of the state file: 2,000 tabs take
// well under a megabyte.
const maxFileSize = 16 << 20

// reload replaces the memory with the file's content; s.mu held. The
// error is a *DamagedError or an *OtherServerError.
func (s *State) reload() error {
	s.clear()
	defer s.sync()
	s.damaged = nil
	b, fi, err := s.readFile()
	switch {
	case errors.Is(err, os.ErrNotExist):
		s.stamp = safefile.Stamp{}
		return nil
	case fi != nil:
		// Stamp the file we read, not whatever the path names a moment
		// later: a writer replacing it in between (renameio, a new
		// inode) must make changedOnDisk true.
		s.stamp = safefile.StampOf(fi)
	default:
		// Not opened (not a regular file): its removal must still show.
		if st, serr := os.Stat(s.path); serr == nil {
			s.stamp = safefile.StampOf(st)
		}
	}
	if err != nil {
		return s.damage(err, 0)
	}
	var f stateFile
	if err := json.Unmarshal(b, &f); err != nil {
		return s.damage(err, 0)
	}
	if f.Server != "" && s.socket != "" && !sameServer(f.Server, s.socket) {
		return &OtherServerError{Path: s.path, Server: f.Server, Want: s.socket}
	}
	s.take(f)
	switch {
	case f.Version > Version:
		return s.damage(nil, f.Version)
	case f.Version < 1:
		return s.damage(fmt.Errorf("no format version"), 0)
	}
	return nil
}

// readFile reads the state file, bounded; fi is what was opened, nil
// when nothing was.
func (s *State) readFile() ([]byte, os.FileInfo, error) {
	fh, err := safefile.Open(s.path)
	if err != nil {
		return nil, nil, err
	}
	defer fh.Close()
	fi, err := fh.Stat()
	if err != nil {
		return nil, nil, err
	}
	b, err := io.ReadAll(io.LimitReader(fh, maxFileSize+1))
	if err == nil && len(b) > maxFileSize {
		err = fmt.Errorf("larger than %d bytes", maxFileSize)
	}
	return b, fi, err
}

// take puts what the file holds in memory. Pending labels an older
// version wrote without their time expire a PendingTTL from now.
func (s *State) take(f stateFile) {
	s.server = Server{Peer: f.Instance, Terminals: f.Terminals}
	until := time.Now().Add(PendingTTL).UTC()
	for kind, m := range map[Kind]map[string]Entry{Tab: f.Tabs, Workspace: f.Workspaces, Pane: f.Panes} {
		for id, e := range m {
			for i := range e.Pending {
				if e.Pending[i].Until.IsZero() {
					e.Pending[i].Until = until
				}
			}
			s.entries[kind][id] = e
		}
	}
}

// OtherServerError says the state file was written for another herdr
// server: its labels say nothing about this server's tabs, and a person's
// label here that matches one of ours there must not read as ours.
type OtherServerError struct {
	Path, Server, Want string
}

func (e *OtherServerError) Error() string {
	return fmt.Sprintf("state %s belongs to the herdr server at %s, not %s: use --state auto, or another file per server", e.Path, e.Server, e.Want)
}

// sameServer says whether two socket paths name one server: the same
// spelling, or the same socket file.
func sameServer(a, b string) bool {
	if a == b {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// changedOnDisk reports whether someone else wrote the file since we last
// read or wrote it (a person ran lock or release); s.mu held.
func (s *State) changedOnDisk() bool {
	if s.path == "" {
		return false
	}
	fi, err := os.Stat(s.path)
	if err != nil {
		return s.stamp != safefile.Stamp{}
	}
	return safefile.StampOf(fi) != s.stamp
}

// Update runs fn on the freshest memory under the file lock and saves the
// result atomically. The daemon's own memory (the labels it set, its
// renames on their way, what a pass learnt) wins over the file; a
// person's marks (lock, release) come from the file. A damaged file is
// not written: the error is its *DamagedError.
func (s *State) Update(fn func(*Tx)) error {
	return s.locked(fn, func() error {
		if s.changedOnDisk() {
			return s.mergeDisk()
		}
		return nil
	})
}

// Edit runs fn on what the file holds right now, under the file lock, and
// saves the result. It is for lock, release and restore: unlike Update it
// keeps nothing from memory, so a copy read a moment earlier can never
// write a stale label over the daemon's newer one.
func (s *State) Edit(fn func(*Tx)) error {
	return s.locked(fn, s.reload)
}

// InMemory runs fn on the memory without saving it: what a look that
// must not write (explain) learns.
func (s *State) InMemory(fn func(*Tx)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fn(&Tx{s: s})
}

// Refresh takes in a file changed by someone else: a person's marks from
// the file, the daemon's labels from memory. A damaged file that was
// fixed or removed since reads anew. It does nothing when the file did
// not change.
func (s *State) Refresh() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.changedOnDisk() {
		return nil
	}
	unlock, err := flockFile(s.path+".lock", false)
	if err != nil {
		return err
	}
	defer unlock()
	return s.mergeDisk()
}

// mergeDisk reads the file someone else changed and puts the daemon's
// memory back over it (mergeMine); s.mu held. When the file does not
// read, memory stays as it was and the State turns read-only: it will
// not write over what it could not read. A damaged file that was fixed
// or removed since is all there is.
func (s *State) mergeDisk() error {
	wasDamaged := s.damaged != nil
	mine, synced, server := s.entries, s.synced, s.server
	err := s.reload()
	switch {
	case s.damaged != nil && s.damaged.Newer == 0:
		s.entries, s.server = mine, server
		return err
	case wasDamaged:
		return err
	}
	s.mergeMine(mine, synced, s.stamp == safefile.Stamp{})
	if server.Peer != "" || len(server.Terminals) > 0 {
		s.server = server
	}
	return err
}

// mergeMine puts back over a state just read from disk the changes of
// ours the file does not have yet: of each target we changed since we
// last read or wrote the file, our memory with the file's marks (lock,
// release: a person's, which only the file holds) and the renames on
// their way of both. What someone else saved of the rest stands. When the
// file is gone (a person removed it) all we remember stays, without
// marks: the labels we set are still ours to change.
func (s *State) mergeMine(mine, synced [len(Kinds)]map[string]Entry, gone bool) {
	for _, kind := range Kinds {
		for id, e := range mine[kind] {
			was, ok := synced[kind][id]
			if !gone && ok && reflect.DeepEqual(e, was) {
				continue
			}
			d := s.entries[kind][id]
			e.Locked, e.Released, e.LockedLabel, e.ReleasedFrom = d.Locked, d.Released, d.LockedLabel, d.ReleasedFrom
			// Another process's renames on their way (a takeover, a
			// lock's put-back) stay known to whoever decides them.
			e.Flights = unionFlights(e.Flights, d.Flights)
			s.entries[kind][id] = e
		}
		for id, was := range synced[kind] {
			// Forgotten here and not saved: forgotten, unless someone
			// else changed it since.
			if _, ok := mine[kind][id]; !ok && reflect.DeepEqual(s.entries[kind][id], was) {
				delete(s.entries[kind], id)
			}
		}
	}
}

func unionFlights(a, b []Flight) []Flight {
	out := slices.Clone(a)
	for _, f := range b {
		i := slices.IndexFunc(out, func(g Flight) bool { return g.Want == f.Want && g.Seen == f.Seen && g.Sent.Equal(f.Sent) })
		switch {
		case i < 0:
			out = append(out, f)
		case f.Answered:
			out[i].Answered = true
		}
	}
	return out
}

// locked runs prepare and then fn under the file lock and writes the
// result atomically; renameio litter of a killed writer goes first.
func (s *State) locked(fn func(*Tx), prepare func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.path == "" {
		fn(&Tx{s: s})
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("state dir for %s: %w", s.path, err)
	}
	unlock, err := flockFile(s.path+".lock", true)
	if err != nil {
		return err
	}
	defer unlock()
	removeTempLitter(s.path)
	if err := prepare(); err != nil {
		return err
	}
	if s.damaged != nil {
		return s.damaged
	}
	fn(&Tx{s: s})
	return s.write()
}

// write saves the memory; s.mu and the file lock held.
func (s *State) write() error {
	f := stateFile{Version: Version, Server: s.socket, Instance: s.server.Peer, Terminals: s.server.Terminals,
		Tabs: s.entries[Tab], Workspaces: s.entries[Workspace], Panes: s.entries[Pane]}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encode state: %w", err)
	}
	b = append(b, '\n')
	// The temp file goes beside the state, not to $TMPDIR: there a killed
	// writer's litter is found and removed by removeTempLitter.
	if err := atomicfile.WriteFile(s.path, b, 0o600); err != nil {
		return fmt.Errorf("write state %s: %w", s.path, err)
	}
	if fi, err := os.Stat(s.path); err == nil {
		s.stamp = safefile.StampOf(fi)
	}
	s.sync()
	return nil
}

// sync records the memory as what the file holds; s.mu held.
func (s *State) sync() {
	for _, k := range Kinds {
		s.synced[k] = maps.Clone(s.entries[k])
	}
}

// removeTempLitter deletes renameio temp files ("." + base + digits) left
// by a writer killed mid-write. Called under the state lock, so no live
// writer owns them.
func removeTempLitter(path string) {
	dir, base := filepath.Split(path)
	matches, _ := filepath.Glob(filepath.Join(dir, "."+base+"*"))
	for _, m := range matches {
		suffix := strings.TrimPrefix(filepath.Base(m), "."+base)
		if suffix != "" && strings.Trim(suffix, "0123456789") == "" {
			_ = os.Remove(m)
		}
	}
}
