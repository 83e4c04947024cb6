package daemon

import "github.com/herdrtabrenamer/herdrtabrenamer/herdr"

// lastSnap is the newest snapshot a pass read, kept current with our own
// renames and with the pane updates triage takes in: what it shows is old
// news to the event triage. It indexes tabs and panes by id: events and
// renames look them up thousands of times in a big session.
type lastSnap struct {
	snap      *herdr.Snapshot
	tab, pane map[string]int
}

// set replaces the snapshot.
func (l *lastSnap) set(snap *herdr.Snapshot) {
	l.snap = snap
	l.tab = make(map[string]int, len(snap.Tabs))
	for i, t := range snap.Tabs {
		l.tab[t.ID] = i
	}
	l.pane = make(map[string]int, len(snap.Panes))
	for i, p := range snap.Panes {
		l.pane[p.ID] = i
	}
}

// none: no pass has read a snapshot yet.
func (l *lastSnap) none() bool { return l.snap == nil }

func (l *lastSnap) tabOf(id string) (herdr.Tab, bool) {
	if i, ok := l.tab[id]; ok {
		return l.snap.Tabs[i], true
	}
	return herdr.Tab{}, false
}

func (l *lastSnap) paneOf(id string) (herdr.Pane, bool) {
	if i, ok := l.pane[id]; ok {
		return l.snap.Panes[i], true
	}
	return herdr.Pane{}, false
}

func (l *lastSnap) workspaceOf(id string) (herdr.Workspace, bool) {
	if l.snap == nil {
		return herdr.Workspace{}, false
	}
	for _, w := range l.snap.Workspaces {
		if w.ID == id {
			return w, true
		}
	}
	return herdr.Workspace{}, false
}

// panesOf lists a tab's panes in layout order.
func (l *lastSnap) panesOf(tabID string) []herdr.Pane {
	if l.snap == nil {
		return nil
	}
	var out []herdr.Pane
	for _, p := range l.snap.Panes {
		if p.TabID == tabID {
			out = append(out, p)
		}
	}
	return out
}

// agents lists the panes that run an agent.
func (l *lastSnap) agents() []herdr.Pane {
	if l.snap == nil {
		return nil
	}
	var out []herdr.Pane
	for _, p := range l.snap.Panes {
		if p.Agent != "" {
			out = append(out, p)
		}
	}
	return out
}

// setTabLabel records a label a tab shows now; false: no such tab.
func (l *lastSnap) setTabLabel(id, label string) bool {
	i, ok := l.tab[id]
	if ok {
		l.snap.Tabs[i].Label = label
	}
	return ok
}

// setWorkspaceLabel records a label a workspace shows now; false: no
// such workspace.
func (l *lastSnap) setWorkspaceLabel(id, label string) bool {
	if l.snap == nil {
		return false
	}
	for i := range l.snap.Workspaces {
		if l.snap.Workspaces[i].ID == id {
			l.snap.Workspaces[i].Label = label
			return true
		}
	}
	return false
}

// setPane replaces a pane with a newer state of it.
func (l *lastSnap) setPane(p herdr.Pane) {
	if i, ok := l.pane[p.ID]; ok {
		l.snap.Panes[i] = p
	}
}
