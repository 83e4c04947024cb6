package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
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
	return setTabFlags(g, env, c.TabID, c.State, func(m *state.TabMemory) { m.Locked, m.Released = true, false }, "locked")
}

// Run releases the tab and nudges the daemon so it renames at once.
func (c *ReleaseCmd) Run(g *Globals, env *runEnv) error {
	return setTabFlags(g, env, c.TabID, c.State, func(m *state.TabMemory) { m.Locked, m.Released = false, true }, "released")
}

func setTabFlags(g *Globals, env *runEnv, tabID, stateFlag string, set func(*state.TabMemory), what string) error {
	if tabID == "" {
		tabID = os.Getenv("HERDR_TAB_ID")
		if tabID == "" {
			return withExit(2, errors.New("no TAB_ID given and $HERDR_TAB_ID is not set (run it inside a herdr pane, or name the tab: w1:t2)"))
		}
	}
	if _, _, err := herdr.ParseTabID(tabID); err != nil {
		return withExit(2, err)
	}
	sock, err := herdr.ResolveSocketPath(g.Socket, os.LookupEnv)
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
	if err := tabExists(sock, tabID); err != nil {
		return withExit(1, fmt.Errorf("%s not %s: %w", tabID, what, err))
	}
	st, warn := state.Load(path, sock)
	if warn != nil {
		fmt.Fprintf(env.stderr, "herdrtabrenamer: warning: %v\n", warn)
	}
	if err := st.Edit(func(tabs map[string]state.TabMemory) {
		m := tabs[tabID]
		set(&m)
		tabs[tabID] = m
	}); err != nil {
		return withExit(1, err)
	}
	fmt.Fprintf(env.stdout, "%s %s\n", what, tabID)
	// Tell a running daemon to look now; no daemon is fine.
	if pane := os.Getenv("HERDR_PANE_ID"); pane != "" {
		_ = nudge.Send(nudge.SocketPath(sock), pane, nudge.WhenNow)
	}
	return nil
}

// tabExists asks herdr whether tabID is one of its tabs.
func tabExists(sock, tabID string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	snap, err := herdr.New(sock).Snapshot(ctx)
	if err != nil {
		if errors.Is(err, herdr.ErrNotRunning) {
			return fmt.Errorf("%w: start herdr first (or pass --socket PATH for the herdr that has the tab)", err)
		}
		return err
	}
	for _, t := range snap.Tabs {
		if t.ID == tabID {
			return nil
		}
	}
	return fmt.Errorf("herdr at %s has no tab %s (herdrtabrenamer explain lists the tabs)", sock, tabID)
}
