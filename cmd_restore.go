package main

import (
	"context"
	"fmt"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/restore"
	"github.com/herdrtabrenamer/herdrtabrenamer/setup"
)

// RestoreCmd undoes our names: every tab whose label is ours gets herdr's
// default back, every pane label of ours is cleared, and names people
// chose stay.
type RestoreCmd struct {
	// The naming flags tell our names apart: a label is ours when the state
	// file says so or when it is a render of the same template.
	setup.NamingFlags `embed:""`
	Apply             bool   `help:"Rename the tabs and stop the daemon (without it: dry run, print what would change)."`
	Pane              string `help:"Only this pane, e.g. w1:p3: its label is cleared if it is ours; tabs and other panes stay." placeholder:"ID" env:"-"`
}

// Run undoes our names (package restore). Exit 1 when a rename failed or
// the daemon would not stop.
func (c *RestoreCmd) Run(g *Globals, env *runEnv) error {
	if c.Pane != "" {
		if _, _, err := herdr.ParsePaneID(c.Pane); err != nil {
			return withExit(2, fmt.Errorf("restore --pane: %w", err))
		}
	}
	opt, err := newOptions(&c.NamingFlags, g, env)
	if err != nil {
		return err
	}
	return withExit(1, restore.Run(context.Background(), restore.Options{Daemon: opt, Apply: c.Apply, Pane: c.Pane}, env.stdout, env.stderr))
}
