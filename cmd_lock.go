package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
	"github.com/herdrtabrenamer/herdrtabrenamer/renamer"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// LockCmd freezes a tab's name, or a pane's (--pane).
type LockCmd struct {
	TabID string `arg:"" optional:"" name:"TAB_ID" help:"Tab to lock, e.g. w1:t2 (default: $HERDR_TAB_ID, the tab you are in)."`
	Pane  string `help:"A pane instead of a tab, e.g. w1:p3 (herdr pane list shows them)." placeholder:"ID" env:"-"`
	State string `help:"State file; \"auto\" is one per herdr server." default:"auto"`
}

// ReleaseCmd hands a tab, or a pane (--pane), back to automatic naming.
type ReleaseCmd struct {
	TabID string `arg:"" optional:"" name:"TAB_ID" help:"Tab to release, e.g. w1:t2 (default: $HERDR_TAB_ID, the tab you are in)."`
	Pane  string `help:"A pane instead of a tab, e.g. w1:p3 (herdr pane list shows them)." placeholder:"ID" env:"-"`
	State string `help:"State file; \"auto\" is one per herdr server." default:"auto"`
}

// Run locks the tab or pane.
func (c *LockCmd) Run(g *Globals, env *runEnv) error {
	t, err := markTarget(env, c.TabID, c.Pane)
	if err != nil {
		return err
	}
	return setFlags(g, env, t, c.State, func(tx *state.Tx, t state.Target, label string) {
		tx.Lock(t, label)
	}, "locked")
}

// Run releases the tab or pane and nudges the daemon so it renames at
// once.
func (c *ReleaseCmd) Run(g *Globals, env *runEnv) error {
	t, err := markTarget(env, c.TabID, c.Pane)
	if err != nil {
		return err
	}
	return setFlags(g, env, t, c.State, func(tx *state.Tx, t state.Target, _ string) {
		tx.Release(t)
	}, "released")
}

// markTarget is what lock or release marks: the pane of --pane, else the
// tab TAB_ID, else the tab the command runs in ($HERDR_TAB_ID).
func markTarget(env *runEnv, tabID, paneID string) (state.Target, error) {
	switch {
	case paneID != "" && tabID != "":
		return state.Target{}, withExit(2, fmt.Errorf("TAB_ID %s and --pane %s name two things: give one", tabID, paneID))
	case paneID != "":
		if _, _, err := herdr.ParsePaneID(paneID); err != nil {
			return state.Target{}, withExit(2, fmt.Errorf("--pane: %w", err))
		}
		return state.PaneTarget(paneID), nil
	case tabID == "":
		if tabID = env.getenv("HERDR_TAB_ID"); tabID == "" {
			return state.Target{}, withExit(2, errors.New("no TAB_ID given and $HERDR_TAB_ID is not set (run it inside a herdr pane, or name the tab: w1:t2)"))
		}
	}
	if _, _, err := herdr.ParseTabID(tabID); err != nil {
		return state.Target{}, withExit(2, err)
	}
	return state.TabTarget(tabID), nil
}

// named is how a mark's line names its target: a tab by its id, a pane
// as "pane w1:p3".
func named(t state.Target) string {
	if t.Kind == state.Pane {
		return "pane " + t.ID
	}
	return t.ID
}

// setFlags marks the tab or pane in the state file; set gets the label it
// shows now.
func setFlags(g *Globals, env *runEnv, t state.Target, stateFlag string, set func(tx *state.Tx, t state.Target, label string), what string) error {
	sock, err := herdr.ResolveSocketPath(g.Socket, env.lookup)
	if err != nil {
		return withExit(2, err)
	}
	path, err := statePath(stateFlag, sock)
	if err != nil {
		return withExit(2, err)
	}
	if path == "" {
		return withExit(2, fmt.Errorf("%s needs a state file, but --state is empty", what))
	}
	// The mark belongs to a tab or pane of a running herdr: without one
	// it would land on whatever server next uses this socket.
	label, err := targetLabel(sock, t)
	if err != nil {
		return withExit(1, fmt.Errorf("%s not %s: %w", named(t), what, err))
	}
	st, warn := state.Load(path, sock)
	if other := (*state.OtherServerError)(nil); errors.As(warn, &other) {
		return withExit(1, fmt.Errorf("%s not %s: %w", named(t), what, other))
	}
	if state.IsDamaged(warn) {
		// Writing would lose what the file holds: a person acts first.
		return withExit(1, fmt.Errorf("%s not %s: %w", named(t), what, warn))
	}
	if warn != nil {
		fmt.Fprintf(env.stderr, "herdrtabrenamer: warning: %v\n", warn)
	}
	at := time.Now()
	if err := st.Edit(func(tx *state.Tx) { set(tx, t, label) }); err != nil {
		return withExit(1, fmt.Errorf("%s not %s: %w", named(t), what, err))
	}
	if what == "locked" {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		rn := renamer.New(renamer.Options{Herdr: herdr.New(sock), Memory: st})
		err := rn.PutBackLock(ctx, t, label, at)
		cancel()
		if err != nil {
			fmt.Fprintf(env.stderr, "herdrtabrenamer: warning: %s: %v\n", named(t), err)
		}
	}
	fmt.Fprintf(env.stdout, "%s %s\n", what, named(t))
	// Tell a running daemon to look now; no daemon is fine.
	if pane := env.getenv("HERDR_PANE_ID"); pane != "" {
		_ = nudge.Send(nudge.SocketPath(sock), pane, nudge.WhenNow)
	}
	return nil
}

// targetLabel asks herdr for the label of t, which must be one of its
// tabs or panes.
func targetLabel(sock string, t state.Target) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	snap, err := herdr.New(sock).Snapshot(ctx)
	if err != nil {
		if errors.Is(err, herdr.ErrNotRunning) {
			return "", fmt.Errorf("%w: start herdr first (or pass --socket PATH for the herdr that has the %s)", err, t.Kind)
		}
		return "", err
	}
	if t.Kind == state.Pane {
		for _, p := range snap.Panes {
			if p.ID == t.ID {
				return p.Label, nil
			}
		}
		return "", fmt.Errorf("herdr at %s has no pane %s (herdr pane list shows the panes)", sock, t.ID)
	}
	for _, tab := range snap.Tabs {
		if tab.ID == t.ID {
			return tab.Label, nil
		}
	}
	return "", fmt.Errorf("herdr at %s has no tab %s (herdrtabrenamer explain lists the tabs)", sock, t.ID)
}
