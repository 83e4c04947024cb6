package main

import (
	"fmt"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/mark"
	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
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
	return markCmd(g, env, c.TabID, c.Pane, c.State, "locked", mark.Lock)
}

// Run releases the tab or pane and nudges the daemon so it renames at
// once.
func (c *ReleaseCmd) Run(g *Globals, env *runEnv) error {
	return markCmd(g, env, c.TabID, c.Pane, c.State, "released", mark.Release)
}

// markCmd marks the tab or pane in the state file (package mark), says
// so, and tells a running daemon to look now (no daemon is fine).
func markCmd(g *Globals, env *runEnv, tabID, paneID, stateFlag, what string, do mark.Verb) error {
	t, err := mark.Target(tabID, paneID, env.getenv)
	if err != nil {
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
	warnings, err := do(sock, path, t)
	for _, w := range warnings {
		fmt.Fprintf(env.stderr, "herdrtabrenamer: warning: %v\n", w)
	}
	if err != nil {
		return withExit(1, err)
	}
	fmt.Fprintf(env.stdout, "%s %s\n", what, mark.Named(t))
	if pane := env.getenv("HERDR_PANE_ID"); pane != "" {
		_ = nudge.Send(nudge.SocketPath(sock), pane, nudge.WhenNow)
	}
	return nil
}
