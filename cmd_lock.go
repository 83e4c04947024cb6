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

// LockCmd freezes a tab's name.
type LockCmd struct {
	TabID string `arg:"" optional:"" name:"TAB_ID" help:"Tab to lock, e.g. w1:t2 (default: $HERDR_TAB_ID, the tab you are in)."`
	State string `help:"State file; \"auto\" is one per herdr server." default:"auto"`
}

// ReleaseCmd hands a tab back to automatic naming.
type ReleaseCmd struct {
	TabID string `arg:"" optional:"" name:"TAB_ID" help:"Tab to release, e.g. w1:t2 (default: $HERDR_TAB_ID, the tab you are in)."`
	State string `help:"State file; \"auto\" is one per herdr server." default:"auto"`
}

// Run locks the tab.
func (c *LockCmd) Run(g *Globals, env *runEnv) error {
	return setTabFlags(g, env, c.TabID, c.State, func(tx *state.Tx, t state.Target, label string) {
		tx.Lock(t, label)
	}, "locked")
}

// Run releases the tab and nudges the daemon so it renames at once.
func (c *ReleaseCmd) Run(g *Globals, env *runEnv) error {
	return setTabFlags(g, env, c.TabID, c.State, func(tx *state.Tx, t state.Target, _ string) {
		tx.Release(t)
	}, "released")
}

// setTabFlags marks the tab in the state file; set gets the label the tab
// shows now.
func setTabFlags(g *Globals, env *runEnv, tabID, stateFlag string, set func(tx *state.Tx, t state.Target, label string), what string) error {
	if tabID == "" {
		tabID = env.getenv("HERDR_TAB_ID")
		if tabID == "" {
			return withExit(2, errors.New("no TAB_ID given and $HERDR_TAB_ID is not set (run it inside a herdr pane, or name the tab: w1:t2)"))
		}
	}
	if _, _, err := herdr.ParseTabID(tabID); err != nil {
		return withExit(2, err)
	}
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
	// The mark belongs to a tab of a running herdr: without one it would
	// land on whatever server next uses this socket.
	label, err := tabLabel(sock, tabID)
	if err != nil {
		return withExit(1, fmt.Errorf("%s not %s: %w", tabID, what, err))
	}
	st, warn := state.Load(path, sock)
	if other := (*state.OtherServerError)(nil); errors.As(warn, &other) {
		return withExit(1, fmt.Errorf("%s not %s: %w", tabID, what, other))
	}
	if state.IsDamaged(warn) {
		// Writing would lose what the file holds: a person acts first.
		return withExit(1, fmt.Errorf("%s not %s: %w", tabID, what, warn))
	}
	if warn != nil {
		fmt.Fprintf(env.stderr, "herdrtabrenamer: warning: %v\n", warn)
	}
	at := time.Now()
	if err := st.Edit(func(tx *state.Tx) { set(tx, state.TabTarget(tabID), label) }); err != nil {
		return withExit(1, fmt.Errorf("%s not %s: %w", tabID, what, err))
	}
	if what == "locked" {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		rn := renamer.New(renamer.Options{Herdr: herdr.New(sock), Memory: st})
		err := rn.PutBackLock(ctx, tabID, label, at)
		cancel()
		if err != nil {
			fmt.Fprintf(env.stderr, "herdrtabrenamer: warning: %s: %v\n", tabID, err)
		}
	}
	fmt.Fprintf(env.stdout, "%s %s\n", what, tabID)
	// Tell a running daemon to look now; no daemon is fine.
	if pane := env.getenv("HERDR_PANE_ID"); pane != "" {
		_ = nudge.Send(nudge.SocketPath(sock), pane, nudge.WhenNow)
	}
	return nil
}

// tabLabel asks herdr for the label of tabID, which must be one of its
// tabs.
func tabLabel(sock, tabID string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	snap, err := herdr.New(sock).Snapshot(ctx)
	if err != nil {
		if errors.Is(err, herdr.ErrNotRunning) {
			return "", fmt.Errorf("%w: start herdr first (or pass --socket PATH for the herdr that has the tab)", err)
		}
		return "", err
	}
	for _, t := range snap.Tabs {
		if t.ID == tabID {
			return t.Label, nil
		}
	}
	return "", fmt.Errorf("herdr at %s has no tab %s (herdrtabrenamer explain lists the tabs)", sock, tabID)
}
