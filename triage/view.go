package triage

import (
	"slices"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// View is what the daemon has seen of the session: the newest snapshot a
// pass read, kept current with our own renames (Shows) and the pane
// updates triage takes in (what it shows is old news), and history beyond
// it: the highest ids (herdr never reuses a tab, pane or workspace
// number, so an id at or below the highest seen is no new arrival) and
// recent labels of each tab and workspace (a replayed tab.renamed carries
// an old one). It indexes tabs and panes by id: events and renames look
// them up thousands of times in a big session. One goroutine owns it.
type View struct {
	snap      *herdr.Snapshot
	tab, pane map[string]int
	marks     map[string]int // the highest number seen, by idSeries
	labels    map[string][]string
}

// Set keeps the snapshot as the last one, and in the history.
func (v *View) Set(snap *herdr.Snapshot) {
	v.snap = snap
	v.tab = make(map[string]int, len(snap.Tabs))
	for i, t := range snap.Tabs {
		v.tab[t.ID] = i
		v.raise(idSeries(herdr.TabObject, t.ID))
		v.label(t.ID, t.Label)
	}
	v.pane = make(map[string]int, len(snap.Panes))
	for i, p := range snap.Panes {
		v.pane[p.ID] = i
		v.raise(idSeries(herdr.PaneObject, p.ID))
	}
	for _, w := range snap.Workspaces {
		v.raise(idSeries(herdr.WorkspaceObject, w.ID))
		v.label(w.ID, w.Label)
	}
}

// NewServer forgets the history of a server that is gone: the new one
// numbers its tabs and panes from 1 again, and its ids are no old news.
func (v *View) NewServer() { v.marks, v.labels = nil, nil }

// None: no pass has read a snapshot yet.
func (v *View) None() bool { return v.snap == nil }

// Tab, Pane and Workspace are what the last snapshot has of a target,
// with what events told since.
func (v *View) Tab(id string) (herdr.Tab, bool) {
	if i, ok := v.tab[id]; ok {
		return v.snap.Tabs[i], true
	}
	return herdr.Tab{}, false
}

func (v *View) Pane(id string) (herdr.Pane, bool) {
	if i, ok := v.pane[id]; ok {
		return v.snap.Panes[i], true
	}
	return herdr.Pane{}, false
}

func (v *View) Workspace(id string) (herdr.Workspace, bool) {
	if v.snap == nil {
		return herdr.Workspace{}, false
	}
	for _, w := range v.snap.Workspaces {
		if w.ID == id {
			return w, true
		}
	}
	return herdr.Workspace{}, false
}

// Panes are the last snapshot's panes, with what events told since.
func (v *View) Panes() []herdr.Pane {
	if v.snap == nil {
		return nil
	}
	return v.snap.Panes
}

// panesOf lists a tab's panes in layout order.
func (v *View) panesOf(tabID string) []herdr.Pane {
	if v.snap == nil {
		return nil
	}
	var out []herdr.Pane
	for _, p := range v.snap.Panes {
		if p.TabID == tabID {
			out = append(out, p)
		}
	}
	return out
}

// Agents lists the panes that run an agent.
func (v *View) Agents() []herdr.Pane {
	if v.snap == nil {
		return nil
	}
	var out []herdr.Pane
	for _, p := range v.snap.Panes {
		if p.Agent != "" {
			out = append(out, p)
		}
	}
	return out
}

// HasAgent says whether the last snapshot has an agent in pane id.
func (v *View) HasAgent(id string) bool {
	p, _ := v.Pane(id)
	return p.Agent != ""
}

// DoneInFocus says whether an agent is done in the focused tab of the
// focused workspace: the one pane herdr may turn idle with no event
// (docs/herdr.md §14).
func (v *View) DoneInFocus() bool {
	if v.snap == nil || v.snap.FocusedTabID == "" {
		return false
	}
	for _, p := range v.snap.Panes {
		if p.TabID == v.snap.FocusedTabID && p.Agent != "" && p.AgentStatus == herdr.StatusDone {
			return true
		}
	}
	return false
}

// Shows records a label a tab, workspace or pane shows now, after our
// own rename: its echo is old news.
func (v *View) Shows(t state.Target, label string) {
	if v.snap == nil {
		return
	}
	switch t.Kind {
	case state.Tab:
		if i, ok := v.tab[t.ID]; ok {
			v.snap.Tabs[i].Label = label
			v.label(t.ID, label)
		}
	case state.Workspace:
		for i := range v.snap.Workspaces {
			if v.snap.Workspaces[i].ID == t.ID {
				v.snap.Workspaces[i].Label = label
				v.label(t.ID, label)
			}
		}
	case state.Pane:
		// No event tells of a pane's label: what we set is known only
		// from herdr's answer.
		if i, ok := v.pane[t.ID]; ok {
			v.snap.Panes[i].Label = label
		}
	}
}

// setPane replaces a pane with a newer state of it.
func (v *View) setPane(p herdr.Pane) {
	if i, ok := v.pane[p.ID]; ok {
		v.snap.Panes[i] = p
	}
}

// label records a label the target shows, last; the newest few are kept.
func (v *View) label(id, label string) {
	if v.labels == nil {
		v.labels = map[string][]string{}
	}
	l := v.labels[id]
	if len(l) > 0 && l[len(l)-1] == label {
		return
	}
	l = append(slices.DeleteFunc(l, func(s string) bool { return s == label }), label)
	if len(l) > state.MaxPending {
		l = l[len(l)-state.MaxPending:]
	}
	v.labels[id] = l
}

// had reports whether the target showed label at some time seen.
func (v *View) had(id, label string) bool { return slices.Contains(v.labels[id], label) }

// raise records an id of a series (ok: it parsed).
func (v *View) raise(series string, n int, ok bool) {
	if !ok {
		return
	}
	if v.marks == nil {
		v.marks = map[string]int{}
	}
	v.marks[series] = max(v.marks[series], n)
}

// above reports whether n is above every id seen in series.
func (v *View) above(series string, n int) bool { return n > v.marks[series] }

// idSeries names the series an id is numbered in (tabs and panes count
// per workspace) and its number there; ok is false when it does not parse.
func idSeries(obj herdr.Object, id string) (series string, n int, ok bool) {
	var ws, kind string
	var err error
	switch obj {
	case herdr.TabObject:
		kind = "tab"
		ws, n, err = herdr.ParseTabID(id)
	case herdr.PaneObject:
		kind = "pane"
		ws, n, err = herdr.ParsePaneID(id)
	default:
		kind = "workspace"
		n, err = herdr.ParseWorkspaceID(id)
	}
	return kind + " " + ws, n, err == nil
}
