package daemon

import (
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// newProg is when a pane's program was first seen (--settle).
type newProg struct {
	name  string
	since time.Time
}

// unsettled reports how long the lead pane's program must still run
// before it may name its tab (--settle): people who prefer calm over speed
// wait that long before a new program shows. Only a new program waits:
// the shell coming back (a name from the directory) never does, and the
// programs running when the daemon starts are not new.
func (d *Daemon) unsettled(paneID string, prog procinfo.Program, now time.Time, first bool) time.Duration {
	if d.opt.Settle <= 0 {
		return 0
	}
	if prog.Name == "" {
		delete(d.newProgs, paneID)
		return 0
	}
	e, ok := d.newProgs[paneID]
	if !ok || e.name != prog.Name {
		e = newProg{name: prog.Name, since: now}
		if first {
			e.since = time.Time{}
		}
		d.newProgs[paneID] = e
	}
	return max(0, e.since.Add(d.opt.Settle).Sub(now))
}

// settleDue is when the next program matures (zero when none waits): the
// loop runs a pass then.
func (d *Daemon) settleDue() time.Time {
	var due time.Time
	now := d.now()
	for _, e := range d.newProgs {
		at := e.since.Add(d.opt.Settle)
		if at.After(now) && (due.IsZero() || at.Before(due)) {
			due = at
		}
	}
	return due
}
