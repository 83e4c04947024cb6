package daemon

import (
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"time"
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
func (l *loop) titleNews(ev herdr.Event) titleHint {
	if ev.Kind != herdr.PaneUpdated || ev.PaneID == "" {
		return titleNothing
	}
	sh, ok := l.d.planner.Local(ev.PaneID)
	if !ok {
		return titleNothing
	}
	f, err := l.d.planner.Front(ev.PaneID, sh.PID, true, time.Time{})
	switch {
	case err != nil || f.PGID <= 0:
		return titleNothing
	case f.PGID != sh.PGID:
		return titleProgramChanged
	case f.PGID == sh.PID:
		return titleAtPrompt
	}
	return titleNothing
}
