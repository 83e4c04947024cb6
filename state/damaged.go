package state

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/atomicfile"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/safefile"
)

// DamagedError says the state file cannot be written without losing what
// a person chose: it does not parse, is too large or not a regular file
// (Err), or a newer herdrtabrenamer wrote it (Newer, its format). The
// State is read-only while it lasts; nothing is renamed, since no rename
// goes out without its record saved. It ends when a person fixes or
// removes the file.
type DamagedError struct {
	Path  string
	Err   error // why the file does not read; nil for a newer format
	Newer int   // the newer format's version; 0 when Err is set
	// KeptAt is the copy of the damaged file kept beside it, "" when
	// none could be made (not a regular file, or the copy failed).
	KeptAt string
}

func (e *DamagedError) Error() string {
	if e.Newer > 0 {
		return fmt.Sprintf("state %s was written by a newer herdrtabrenamer (format %d, this one reads %d): it is read, never written, so nothing is renamed; upgrade herdrtabrenamer, or remove the file to start with an empty memory", e.Path, e.Newer, Version)
	}
	kept := "no copy could be kept"
	if e.KeptAt != "" {
		kept = "a copy is kept at " + e.KeptAt
	}
	return fmt.Sprintf("state %s cannot be read (%v); %s. Nothing is renamed until it can: fix it, or remove it to start with an empty memory (the locks and names people chose in it are then forgotten)", e.Path, e.Err, kept)
}

func (e *DamagedError) Unwrap() error { return e.Err }

// IsDamaged reports whether err says the state file is damaged.
func IsDamaged(err error) bool {
	var d *DamagedError
	return errors.As(err, &d)
}

// keepCopies bounds the copies of damaged files kept beside the state.
const keepCopies = 3

// damagedSuffix starts the name of a copy of a damaged state file.
const damagedSuffix = ".damaged-"

// keepAside copies the damaged file at path beside it, named after its
// modification time, so that a person who removes the file still has
// what it held; the oldest copies beyond keepCopies go. It returns the
// copy's path, "" when none was made.
func keepAside(path string) string {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	at := path + damagedSuffix + fi.ModTime().UTC().Format("20060102T150405.000000000Z")
	if _, err := os.Lstat(at); err == nil {
		return at // this very file is kept already
	}
	b, err := safefile.ReadFile(path, fi.Size()+1)
	if err != nil {
		return ""
	}
	if err := atomicfile.WriteFile(at, b, 0o600); err != nil {
		return ""
	}
	pruneCopies(path)
	return at
}

// pruneCopies removes the oldest copies of damaged files beyond
// keepCopies (their names sort by time).
func pruneCopies(path string) {
	copies, _ := filepath.Glob(path + damagedSuffix + "*")
	copies = slices.DeleteFunc(copies, func(c string) bool { return strings.HasPrefix(filepath.Base(c), ".") })
	slices.Sort(copies)
	for len(copies) > keepCopies {
		_ = os.Remove(copies[0])
		copies = copies[1:]
	}
}

// damage marks the state read-only for err, keeping a copy of the file
// aside when it is one that does not parse.
func (s *State) damage(err error, newer int) *DamagedError {
	d := &DamagedError{Path: s.path, Err: err, Newer: newer}
	if newer == 0 {
		d.KeptAt = keepAside(s.path)
	}
	s.damaged = d
	return d
}

// Damaged is why the state is read-only, nil when it is not.
func (s *State) Damaged() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.damaged == nil {
		return nil
	}
	return s.damaged
}
