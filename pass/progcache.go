package pass

import (
	"iter"
	"maps"
	"time"
)

// progCache is what the daemon knows of each pane's program: herdr's
// last process_info answer with the local checks on it, and when a
// program was first seen (--settle). Only its methods change it.
type progCache struct {
	panes map[string]*paneProc
	fresh map[string]newProg
}

// newProg is when a pane's program was first seen (--settle).
type newProg struct {
	name  string
	since time.Time
}

func newProgCache() progCache {
	return progCache{panes: map[string]*paneProc{}, fresh: map[string]newProg{}}
}

// of is the pane's cached program, nil when none.
func (c *progCache) of(paneID string) *paneProc { return c.panes[paneID] }

// all yields every pane's cached program.
func (c *progCache) all() iter.Seq2[string, *paneProc] { return maps.All(c.panes) }

func (c *progCache) put(paneID string, p *paneProc) { c.panes[paneID] = p }

// forget drops the pane's cached answer: it is no fact any more.
func (c *progCache) forget(paneID string) { delete(c.panes, paneID) }

// reset drops every cached answer (they were named with an old
// configuration); when programs were first seen stays.
func (c *progCache) reset() { clear(c.panes) }

// prune forgets panes that are not live.
func (c *progCache) prune(live map[string]bool) {
	for id := range c.panes {
		if !live[id] {
			delete(c.panes, id)
		}
	}
	for id := range c.fresh {
		if !live[id] {
			delete(c.fresh, id)
		}
	}
}

// sight records when a lead pane's program was first seen (--settle).
// The shell coming back (a name from the directory, prog "") forgets it,
// and the programs running at the first pass count as seen long ago.
func (c *progCache) sight(paneID, prog string, now time.Time, first bool) {
	if prog == "" {
		delete(c.fresh, paneID)
		return
	}
	if e, ok := c.fresh[paneID]; ok && e.name == prog {
		return
	}
	e := newProg{name: prog, since: now}
	if first {
		e.since = time.Time{}
	}
	c.fresh[paneID] = e
}

// unsettled reports how long the pane's program must still run before it
// may name its tab (--settle): people who prefer calm over speed wait
// that long before a new program shows. Only a new program waits.
func (c *progCache) unsettled(paneID string, settle time.Duration, now time.Time) time.Duration {
	e, ok := c.fresh[paneID]
	if settle <= 0 || !ok {
		return 0
	}
	return max(0, e.since.Add(settle).Sub(now))
}

// settleDue is when the next program matures (zero when none waits): the
// loop runs a pass then.
func (c *progCache) settleDue(settle time.Duration, now time.Time) time.Time {
	var due time.Time
	for _, e := range c.fresh {
		at := e.since.Add(settle)
		if at.After(now) && (due.IsZero() || at.Before(due)) {
			due = at
		}
	}
	return due
}
