// Package mark keeps a person's word about a tab or a pane in the memory:
// lock (freeze its name) and release (hand it back to automatic naming).
// A mark belongs to a target of a running herdr, whose label it reads
// first. Locking is a protocol with whichever renamer may be renaming the
// target meanwhile: the lock is saved, then the target is looked at once
// more, and a rename of ours that was on its way and landed after the
// lock is put back (renamer.PutBackLock), itself recorded so a running
// daemon follows it.
//
// # Who calls what
//
// Lock and Release belong to the goroutine that calls them, a command;
// they talk to herdr and the state file and leave nothing running.
package mark

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/renamer"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// timeout bounds each look at herdr and the put-back after a lock.
const timeout = 5 * time.Second

// Named is how a mark's line names its target: a tab by its id, a pane
// as "pane w1:p3".
func Named(t state.Target) string {
	if t.Kind == state.Pane {
		return "pane " + t.ID
	}
	return t.ID
}

// Verb is Lock or Release.
type Verb func(sock, path string, t state.Target) (warnings []error, err error)

// Target is what lock or release marks: the pane of --pane (paneID),
// else the tab TAB_ID (tabID), else the tab the command runs in
// ($HERDR_TAB_ID, read with getenv). Its errors are usage errors.
func Target(tabID, paneID string, getenv func(string) string) (state.Target, error) {
	switch {
	case paneID != "" && tabID != "":
		return state.Target{}, fmt.Errorf("TAB_ID %s and --pane %s name two things: give one", tabID, paneID)
	case paneID != "":
		if _, _, err := herdr.ParsePaneID(paneID); err != nil {
			return state.Target{}, fmt.Errorf("--pane: %w", err)
		}
		return state.PaneTarget(paneID), nil
	case tabID == "":
		if tabID = getenv("HERDR_TAB_ID"); tabID == "" {
			return state.Target{}, errors.New("no TAB_ID given and $HERDR_TAB_ID is not set (run it inside a herdr pane, or name the tab: w1:t2)")
		}
	}
	if _, _, err := herdr.ParseTabID(tabID); err != nil {
		return state.Target{}, err
	}
	return state.TabTarget(tabID), nil
}

// Lock freezes t's label, in the state file at path for the herdr at
// sock: the daemon never changes it. It returns what it warns of (a
// state file it could not read, a rename of ours that may have landed as
// it was locked), and an error when t is not locked.
func Lock(sock, path string, t state.Target) (warnings []error, err error) {
	st, seen, warnings, err := open(sock, path, t, "locked")
	if err != nil {
		return warnings, err
	}
	label := seen.label
	at := time.Now()
	if err := st.Edit(func(tx *state.Tx) { tx.Lock(t, label); seen.seat(tx, t) }); err != nil {
		return warnings, fmt.Errorf("%s not locked: %w", Named(t), err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	rn := renamer.New(renamer.Options{Herdr: herdr.New(sock), Memory: st})
	if err := rn.PutBackLock(ctx, t, label, at); err != nil {
		warnings = append(warnings, fmt.Errorf("%s: %w", Named(t), err))
	}
	return warnings, nil
}

// Release hands t back to automatic naming, in the state file at path
// for the herdr at sock: the daemon names it again, even after a person
// renamed it.
func Release(sock, path string, t state.Target) (warnings []error, err error) {
	st, seen, warnings, err := open(sock, path, t, "released")
	if err != nil {
		return warnings, err
	}
	// The release holds while the target shows the label it shows now:
	// a person who names it anything else since ends it.
	if err := st.Edit(func(tx *state.Tx) { tx.Release(t, seen.label); seen.seat(tx, t) }); err != nil {
		return warnings, fmt.Errorf("%s not released: %w", Named(t), err)
	}
	return warnings, nil
}

// seen is what open read of a target: its label, and a pane's terminal.
type seen struct{ label, terminal string }

// seat records a pane's terminal with its mark, so the mark follows the
// pane when herdr gives it a new id before the daemon looks.
func (s seen) seat(tx *state.Tx, t state.Target) {
	if t.Kind == state.Pane && s.terminal != "" {
		tx.Seat(t, s.terminal)
	}
}

// open reads the label t shows and loads the state file at path for
// marking it what. The mark belongs to a tab or pane of a running herdr:
// without one it would land on whatever server next uses this socket. A
// damaged state file is not written: that would lose what it holds, and
// a person acts first.
func open(sock, path string, t state.Target, what string) (st *state.State, s seen, warnings []error, err error) {
	if s, err = targetLabel(sock, t); err != nil {
		return nil, s, nil, fmt.Errorf("%s not %s: %w", Named(t), what, err)
	}
	st, warn := state.Load(path, sock)
	if other := (*state.OtherServerError)(nil); errors.As(warn, &other) {
		return nil, s, nil, fmt.Errorf("%s not %s: %w", Named(t), what, other)
	}
	if state.IsDamaged(warn) {
		return nil, s, nil, fmt.Errorf("%s not %s: %w", Named(t), what, warn)
	}
	if warn != nil {
		warnings = append(warnings, warn)
	}
	return st, s, warnings, nil
}

// targetLabel asks herdr for the label of t, which must be one of its
// tabs or panes (and a pane's terminal).
func targetLabel(sock string, t state.Target) (seen, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	snap, err := herdr.New(sock).Snapshot(ctx)
	if err != nil {
		if errors.Is(err, herdr.ErrNotRunning) {
			return seen{}, fmt.Errorf("%w: start herdr first (or pass --socket PATH for the herdr that has the %s)", err, t.Kind)
		}
		return seen{}, err
	}
	if t.Kind == state.Pane {
		for _, p := range snap.Panes {
			if p.ID == t.ID {
				return seen{p.Label, p.TerminalID}, nil
			}
		}
		return seen{}, fmt.Errorf("herdr at %s has no pane %s (herdr pane list shows the panes)", sock, t.ID)
	}
	for _, tab := range snap.Tabs {
		if tab.ID == t.ID {
			return seen{label: tab.Label}, nil
		}
	}
	return seen{}, fmt.Errorf("herdr at %s has no tab %s (herdrtabrenamer explain lists the tabs)", sock, t.ID)
}
