// Package state is herdrtabrenamer's memory of one herdr server: the labels
// it set (and the ones it may still have in flight), and the tabs a user
// locked or released. The daemon and the lock and release commands share
// the file through an flock; writes are atomic (renameio) with their
// temporary files beside the state.
package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/atomicfile"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/safefile"
)

// Version is the file format version; other versions read as empty.
const Version = 1

// PruneAfter is how long a tab must be missing from full passes before its
// entry is dropped: one empty or short snapshot (a glitch, a restart) must
// never wipe our memory, or our own names would later look human.
const PruneAfter = time.Minute

// TabMemory is what we remember of one tab.
type TabMemory struct {
	// Label is the last label we set on the tab.
	Label string `json:"label,omitempty"`
	// Pending holds the labels we recently asked herdr for, newest last.
	// A killed daemon's tab.rename can land after the next daemon's own,
	// so one slot is not enough: every label that may still land must
	// read as ours. Bounded by MaxPending. They read as ours until
	// PendingUntil only: a rename lands late by seconds, and a person may
	// later choose a label we once set.
	Pending      LabelSet   `json:"pending,omitempty"`
	PendingUntil *time.Time `json:"pending_until,omitempty"`
	// Flights are our renames of the tab whose fate is not known yet:
	// saved before each request, so whichever daemon reads the echo can
	// tell whether a person's rename landed inside ours.
	Flights []Flight `json:"flights,omitempty"`
	// Locked: the user froze the tab's current name.
	Locked bool `json:"locked,omitempty"`
	// LockedLabel is the label the tab showed when it was locked: a rename
	// of ours that was on its way then and lands after the lock is put
	// back to it.
	LockedLabel string `json:"locked_label,omitempty"`
	// PersonText and PrefixedAs: under --index-prefix-all, the label a
	// person gave the tab and the label we made of it by putting its
	// position in front. While the tab shows PrefixedAs, its person's text
	// is PersonText: a later prefix replaces only ours, and restore gives
	// the text back exactly.
	PersonText string `json:"person_text,omitempty"`
	PrefixedAs string `json:"prefixed_as,omitempty"`
	// Released: the user handed a name back to us, even a person's.
	Released bool `json:"released,omitempty"`
	// MissingSince is when a full pass first did not see the tab.
	MissingSince *time.Time `json:"missing_since,omitempty"`
}

// WorkspaceMemory is what we remember of one workspace we named: without
// it, our name would read as a person's once the directory it was made of
// changes, and be kept forever.
type WorkspaceMemory struct {
	// Label is the last label we set.
	Label string `json:"label,omitempty"`
	// Pending holds the labels we recently asked herdr for, newest last:
	// as for tabs, a killed daemon's rename can land after the next
	// daemon's own. Older files hold a single string.
	Pending      LabelSet   `json:"pending,omitempty"`
	PendingUntil *time.Time `json:"pending_until,omitempty"`
	// Flights: as for tabs.
	Flights []Flight `json:"flights,omitempty"`
	// MissingSince is when a full pass first did not see the workspace.
	MissingSince *time.Time `json:"missing_since,omitempty"`
}

// Flight is one rename of ours on its way: what it asked for, what the
// last look before it saw, and when it was sent.
type Flight struct {
	Want string    `json:"want"`
	Seen string    `json:"seen"`
	Sent time.Time `json:"sent"`
}

// PendingTTL is how long a label we asked for reads as ours after the
// request: long enough for a killed daemon's request that herdr had not
// read yet to land, far shorter than a person takes to choose the label.
const PendingTTL = 30 * time.Second

// PendingOurs says whether label is one of the pending labels and may
// still be a late rename of ours at now. Files written without
// PendingUntil get a PendingTTL from when they are read.
func PendingOurs(pending LabelSet, until *time.Time, label string, now time.Time) bool {
	return landing(pending, until, now).Has(label)
}

// landing is pending while its labels may still land at now, else none.
func landing(pending LabelSet, until *time.Time, now time.Time) LabelSet {
	if until == nil || !now.Before(*until) {
		return nil
	}
	return pending
}

// AddPending records label as asked for at now.
func AddPending(pending LabelSet, until **time.Time, label string, now time.Time) LabelSet {
	t := now.Add(PendingTTL).UTC()
	*until = &t
	return pending.Add(label)
}

type stateFile struct {
	Version int    `json:"version"`
	Server  string `json:"server,omitempty"`
	// Instance names the herdr server process the memory describes: a
	// server restarted without its session reuses ids.
	Instance string               `json:"instance,omitempty"`
	Tabs     map[string]TabMemory `json:"tabs"`
	// Workspaces: workspace labels we set (--workspace-format), by id.
	Workspaces map[string]WorkspaceMemory `json:"workspaces,omitempty"`
}

// State is the persistent memory for one herdr server. Path "" keeps it in
// memory only. Writers (the daemon, and `lock`/`release` run by the user)
// serialise read-modify-write through an flock on Path+".lock".
type State struct {
	Path   string
	Server string
	// Instance is the herdr server process the memory describes, "" when
	// unknown.
	Instance string
	Tabs     map[string]TabMemory
	// Workspaces is ours alone (no user flags): memory wins over disk.
	Workspaces map[string]WorkspaceMemory

	stamp fileStamp // what we last read or wrote
}

type fileStamp struct {
	size  int64
	mtime time.Time
	ino   uint64
}

func stampOf(fi os.FileInfo) fileStamp {
	s := fileStamp{size: fi.Size(), mtime: fi.ModTime()}
	s.ino = inode(fi)
	return s
}

// Load reads path. A missing file is an empty state; a corrupt one is
// an empty state plus a warning (returned, never fatal).
func Load(path, server string) (*State, error) {
	s := &State{Path: path, Server: server, Tabs: map[string]TabMemory{}, Workspaces: map[string]WorkspaceMemory{}}
	if path == "" {
		return s, nil
	}
	warn := s.reload()
	return s, warn
}

// maxFileSize bounds what is read of the state file: 2,000 tabs take
// well under a megabyte.
const maxFileSize = 16 << 20

// reload replaces Tabs with the file's content.
func (s *State) reload() error {
	s.Tabs = map[string]TabMemory{}
	s.Workspaces = map[string]WorkspaceMemory{}
	fh, err := safefile.Open(s.Path)
	if errors.Is(err, os.ErrNotExist) {
		s.stamp = fileStamp{}
		return nil
	}
	if err != nil {
		return fmt.Errorf("read state %s: %w (starting with empty state)", s.Path, err)
	}
	defer fh.Close()
	// Stamp the file we read, not whatever the path names a moment later:
	// a writer replacing it in between (renameio, a new inode) must make
	// ChangedOnDisk true, or our next Update would write over its change.
	if fi, err := fh.Stat(); err == nil {
		s.stamp = stampOf(fi)
	}
	b, err := io.ReadAll(io.LimitReader(fh, maxFileSize+1))
	if err == nil && len(b) > maxFileSize {
		err = fmt.Errorf("larger than %d bytes", maxFileSize)
	}
	if err != nil {
		return fmt.Errorf("read state %s: %w (starting with empty state)", s.Path, err)
	}
	var f stateFile
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("state %s is corrupt: %v (starting with empty state)", s.Path, err)
	}
	if f.Version != Version {
		return fmt.Errorf("state %s has version %d, want %d (starting with empty state)", s.Path, f.Version, Version)
	}
	if f.Server != "" && s.Server != "" && !sameServer(f.Server, s.Server) {
		return &OtherServerError{Path: s.Path, Server: f.Server, Want: s.Server}
	}
	s.Instance = f.Instance
	// Files written before pending labels expired: theirs expire a
	// PendingTTL from now.
	until := time.Now().Add(PendingTTL).UTC()
	for id, m := range f.Tabs {
		if len(m.Pending) > 0 && m.PendingUntil == nil {
			m.PendingUntil = &until
		}
		s.Tabs[id] = m
	}
	for id, m := range f.Workspaces {
		if len(m.Pending) > 0 && m.PendingUntil == nil {
			m.PendingUntil = &until
		}
		s.Workspaces[id] = m
	}
	return nil
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

// ChangedOnDisk reports whether someone else wrote the file since we last
// read or wrote it (the user ran lock or release).
func (s *State) ChangedOnDisk() bool {
	if s.Path == "" {
		return false
	}
	fi, err := os.Stat(s.Path)
	if err != nil {
		return s.stamp != fileStamp{}
	}
	return stampOf(fi) != s.stamp
}

// Update runs fn on the freshest state under the file lock and saves the
// result atomically. Entries fn did not touch keep the in-memory labels
// while the user's marks come from disk (mergeMine).
func (s *State) Update(fn func(tabs map[string]TabMemory)) error {
	return s.locked(fn, func() {
		if s.ChangedOnDisk() {
			_ = s.mergeDisk() // corrupt on disk: our memory wins
		}
	})
}

// mergeDisk reads the file someone else changed and puts the daemon's
// memory back over it (mergeMine); the workspaces stay as memory has them.
// When the file cannot be read, memory stays as it was.
func (s *State) mergeDisk() error {
	mine, mineWS, instance := s.Tabs, s.Workspaces, s.Instance
	err := s.reload()
	s.Workspaces = mineWS
	if instance != "" {
		s.Instance = instance
	}
	if err != nil {
		s.Tabs = mine
		return err
	}
	s.mergeMine(mine)
	return nil
}

// mergeMine puts the daemon's memory of each tab back over a state just
// read from disk: the daemon is the authority on the labels it set, the
// user (lock, release) on the marks.
func (s *State) mergeMine(mine map[string]TabMemory) {
	for id, m := range mine {
		if d, ok := s.Tabs[id]; ok {
			m.Locked, m.Released, m.LockedLabel = d.Locked, d.Released, d.LockedLabel
			// Another daemon's renames on their way (a takeover) stay
			// known to whoever decides them.
			m.Flights = unionFlights(m.Flights, d.Flights)
		}
		s.Tabs[id] = m
	}
}

func unionFlights(a, b []Flight) []Flight {
	out := slices.Clone(a)
	for _, f := range b {
		if !slices.ContainsFunc(out, func(g Flight) bool { return g.Want == f.Want && g.Sent.Equal(f.Sent) }) {
			out = append(out, f)
		}
	}
	return out
}

// locked runs prepare and then fn on s.Tabs under the file lock and writes
// the result atomically; renameio litter of a killed writer goes first.
func (s *State) locked(fn func(tabs map[string]TabMemory), prepare func()) error {
	if s.Path == "" {
		fn(s.Tabs)
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(s.Path), 0o700); err != nil {
		return fmt.Errorf("state dir for %s: %w", s.Path, err)
	}
	unlock, err := flockFile(s.Path+".lock", true)
	if err != nil {
		return err
	}
	defer unlock()
	removeTempLitter(s.Path)
	prepare()
	fn(s.Tabs)
	return s.write()
}

// Edit runs fn on what the file holds right now, under the file lock, and
// saves the result. It is for `lock` and `release`: unlike Update it keeps
// nothing from memory, so a copy read a moment earlier can never write a
// stale label over the daemon's newer one.
func (s *State) Edit(fn func(tabs map[string]TabMemory)) error {
	return s.locked(fn, func() {
		_ = s.reload() // a corrupt file was already reported by Load
	})
}

// Refresh merges a file changed by someone else into memory: flags from
// disk, labels from memory. It is a no-op when the file did not change.
func (s *State) Refresh() error {
	if !s.ChangedOnDisk() {
		return nil
	}
	unlock, err := flockFile(s.Path+".lock", false)
	if err != nil {
		return err
	}
	defer unlock()
	return s.mergeDisk()
}

func (s *State) write() error {
	f := stateFile{Version: Version, Server: s.Server, Instance: s.Instance, Tabs: s.Tabs, Workspaces: s.Workspaces}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encode state: %w", err)
	}
	b = append(b, '\n')
	// The temp file goes beside the state, not to $TMPDIR: there a killed
	// writer's litter is found and removed by removeTempLitter.
	if err := atomicfile.WriteFile(s.Path, b, 0o600); err != nil {
		return fmt.Errorf("write state %s: %w", s.Path, err)
	}
	if fi, err := os.Stat(s.Path); err == nil {
		s.stamp = stampOf(fi)
	}
	return nil
}

// Memory is an entry the state forgets when its tab or workspace has been
// missing for PruneAfter: TabMemory or WorkspaceMemory.
type Memory[M any] interface {
	missingSince() *time.Time
	withMissingSince(*time.Time) M
}

func (m TabMemory) missingSince() *time.Time { return m.MissingSince }
func (m TabMemory) withMissingSince(t *time.Time) TabMemory {
	m.MissingSince = t
	return m
}
func (m WorkspaceMemory) missingSince() *time.Time { return m.MissingSince }
func (m WorkspaceMemory) withMissingSince(t *time.Time) WorkspaceMemory {
	m.MissingSince = t
	return m
}

// pruneStep is the one rule for forgetting tabs and workspaces: one
// missing from a full pass is marked, one seen again is unmarked, and one
// missing for PruneAfter is dropped (keep false).
func pruneStep[M Memory[M]](m M, present bool, now time.Time) (next M, keep, changed bool) {
	since := m.missingSince()
	switch {
	case present && since != nil:
		return m.withMissingSince(nil), true, true
	case present:
		return m, true, false
	case since == nil:
		t := now.UTC()
		return m.withMissingSince(&t), true, true
	case now.Sub(*since) >= PruneAfter:
		return m, false, true
	}
	return m, true, false
}

// Prune applies pruneStep to every entry and reports whether anything
// changed.
func Prune[M Memory[M]](entries map[string]M, present map[string]bool, now time.Time) bool {
	changed := false
	for id, m := range entries {
		next, keep, c := pruneStep(m, present[id], now)
		switch {
		case !keep:
			delete(entries, id)
		case c:
			entries[id] = next
		}
		changed = changed || c
	}
	return changed
}

// NeedsPrune reports whether Prune would change anything, without
// changing it: an idle pass must not touch the disk.
func NeedsPrune[M Memory[M]](entries map[string]M, present map[string]bool, now time.Time) bool {
	for id, m := range entries {
		if _, _, c := pruneStep(m, present[id], now); c {
			return true
		}
	}
	return false
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

// MaxPending bounds the labels remembered as possibly in flight per tab.
// Only requests sent in the last moments of a killed daemon can land late,
// and each sends at most one per tab and pass, so a handful is plenty.
const MaxPending = 8

// LabelSet is a small ordered set of labels, oldest first.
type LabelSet []string

// UnmarshalJSON also reads the single string older versions wrote.
func (l *LabelSet) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*l = nil
		if one != "" {
			*l = LabelSet{one}
		}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*l = LabelSet(many)
	return nil
}

// Add puts label last, dropping an earlier copy and the oldest labels
// beyond MaxPending.
func (l LabelSet) Add(label string) LabelSet {
	out := slices.DeleteFunc(slices.Clone(l), func(s string) bool { return s == label })
	out = append(out, label)
	if len(out) > MaxPending {
		out = out[len(out)-MaxPending:]
	}
	return out
}

// Has reports whether label is in the set.
func (l LabelSet) Has(label string) bool { return slices.Contains(l, label) }

// Remove drops label.
func (l LabelSet) Remove(label string) LabelSet {
	out := slices.DeleteFunc(slices.Clone(l), func(s string) bool { return s == label })
	if len(out) == 0 {
		return nil
	}
	return out
}

// OurLabels are the labels of the tab that are ours at now: the last one
// we set, and the pending ones that may still land.
func (m TabMemory) OurLabels(now time.Time) []string {
	return ourLabels(m.Label, m.Pending, m.PendingUntil, now)
}

// OurLabels is as for tabs.
func (m WorkspaceMemory) OurLabels(now time.Time) []string {
	return ourLabels(m.Label, m.Pending, m.PendingUntil, now)
}

func ourLabels(label string, pending LabelSet, until *time.Time, now time.Time) []string {
	var out []string
	if label != "" {
		out = append(out, label)
	}
	return append(out, landing(pending, until, now)...)
}

// PendingLanded says whether label is a pending one of ours other than
// the last we set: a rename whose reply was lost, or a killed daemon's
// late one, landed.
func (m TabMemory) PendingLanded(label string, now time.Time) bool {
	return label != m.Label && PendingOurs(m.Pending, m.PendingUntil, label, now)
}

// Landing are the pending labels that may still land at now.
func (m TabMemory) Landing(now time.Time) []string {
	return landing(m.Pending, m.PendingUntil, now)
}
