package daemon

import (
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// Title changes in shells without hooks. A shell that sets the
// terminal title does so right before it runs a command and again at the
// prompt; herdr reports both as pane.updated, which event triage rightly
// calls no news when the title is not part of the name. For a lead pane
// whose shell is local, that event is still the cheapest hint a program
// started or ended: one /proc read tells.

type titleHint int

const (
	titleNothing        titleHint = iota
	titleProgramChanged           // the foreground group is not the cached one: pass now
	titleAtPrompt                 // the shell is in front: a program may start in a moment
)

// titleNews looks at a pane.updated that triage found no news.
func (d *Daemon) titleNews(ev herdr.Event) titleHint {
	if ev.Kind != "pane.updated" || ev.PaneID == "" || d.opt.Inspector == nil {
		return titleNothing
	}
	c := d.procs.of(ev.PaneID)
	if c == nil || !c.localOK {
		return titleNothing
	}
	pg, err := d.opt.Inspector.ForegroundPGID(c.shellPID)
	switch {
	case err != nil:
		return titleNothing
	case pg != c.pgid:
		return titleProgramChanged
	case pg == c.shellPID:
		return titleAtPrompt
	}
	return titleNothing
}
