package triage

import (
	"maps"
	"slices"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/owner"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// Event triage: events only say when to look (a pass reads the truth
// again), so the one question here is whether an event may change a name
// the last snapshot would give. Old news costs nothing: 0.7/0.8 replay up
// to 512 old events on every subscribe (docs/herdr.md §7), our own renames
// come back as tab.renamed, and plugins' metadata tokens move a pane's
// revision several times a second.

// News is what triage makes of an event.
type News uint8

const (
	// Old news: nothing a name is made of changed.
	Old News = iota
	// Is news: a pass looks.
	Is
	// LookFirst: a tab or pane created above every id seen is news if it
	// is there now. At the start of a 0.7/0.8 subscription the replay
	// brings tabs and panes that closed before we ever saw them.
	LookFirst
	// OwnReport: herdr's pane.updated for our own sidebar tokens, no
	// news and no hint of a program either.
	OwnReport
)

// Names are the names a pass would give, with the facts already known,
// asking no one: what triage weighs a change by (*pass.Planner).
type Names interface {
	Want(tab herdr.Tab, ws herdr.Workspace, panes []herdr.Pane) string
	PaneNames(tab herdr.Tab, ws herdr.Workspace, panes []herdr.Pane) []string
	SidebarValues(tab herdr.Tab, ws herdr.Workspace, pane herdr.Pane) map[string]string
	// Forced: --force, a person's label is ours to replace.
	Forced() bool
}

// Triage asks, and changes nothing: Learn takes the event in afterwards.
// It belongs to the goroutine that owns its View.
type Triage struct {
	View  *View
	Mem   interface{ Tab(id string) state.Entry }
	Names Names
	Now   func() time.Time
	// Sidebar tells herdr's answer to our own report of sidebar tokens,
	// and a pane whose tokens changed since herdr refused ours for want
	// of room (*sidebar.Reporter).
	Sidebar interface {
		Echo(old, upd herdr.Pane) bool
		Retry(upd herdr.Pane) bool
	}
}

// Judge says whether an event may change a name the last snapshot would
// give. live: the event is not part of a replay.
func (tr Triage) Judge(ev herdr.Event, live bool) News {
	if tr.View.None() {
		return Is
	}
	if old, ok := tr.View.Pane(ev.PaneID); ok && ev.Kind == herdr.PaneUpdated && ev.Pane != nil && tr.Sidebar.Echo(old, *ev.Pane) {
		return OwnReport
	}
	var n bool
	switch ev.Kind.Object() {
	case herdr.TabObject, herdr.PaneObject:
		if ev.Kind == herdr.TabCreated || ev.Kind == herdr.PaneCreated {
			return tr.created(ev)
		}
		if ev.Kind.Object() == herdr.TabObject {
			n = tr.tabNews(ev, live)
		} else {
			n = tr.paneNews(ev)
		}
	case herdr.WorkspaceObject:
		n = tr.workspaceNews(ev, live)
	default:
		n = true
	}
	if n {
		return Is
	}
	return Old
}

// created triages a tab.created or pane.created.
func (tr Triage) created(ev herdr.Event) News {
	var known bool
	id := ev.PaneID
	if ev.Kind == herdr.TabCreated {
		_, known = tr.View.Tab(ev.TabID)
		id = ev.TabID
	} else {
		_, known = tr.View.Pane(ev.PaneID)
	}
	series, n, ok := idSeries(ev.Kind.Object(), id)
	switch {
	case !ok:
		return Is // an id that does not parse: look, to be safe
	case known || !tr.View.above(series, n):
		return Old
	}
	return LookFirst
}

// Learn takes an event into what the daemon has seen: the labels of
// targets in the last snapshot, the marks of created ids, and a pane's
// newer state (the next update is measured against it).
func (tr Triage) Learn(ev herdr.Event) {
	v := tr.View
	switch ev.Kind {
	case herdr.TabCreated:
		v.raise(idSeries(herdr.TabObject, ev.TabID))
	case herdr.PaneCreated:
		v.raise(idSeries(herdr.PaneObject, ev.PaneID))
	case herdr.WorkspaceCreated:
		v.raise(idSeries(herdr.WorkspaceObject, ev.WorkspaceID))
	case herdr.TabRenamed:
		if _, ok := v.Tab(ev.TabID); ok {
			v.label(ev.TabID, ev.Label)
		}
	case herdr.WorkspaceRenamed:
		if _, ok := v.Workspace(ev.WorkspaceID); ok {
			v.label(ev.WorkspaceID, ev.Label)
		}
	case herdr.PaneUpdated:
		if old, ok := v.Pane(ev.PaneID); ok && ev.Pane != nil && ev.Pane.ID == old.ID && ev.Pane.Revision > old.Revision {
			v.setPane(*ev.Pane)
		}
	}
}

// replayedLabel says whether a rename event may be a replay of one the
// target had before: only while its entry may still replay. A live one
// is a rename, even back to an old label (a tab handed back by its
// number).
func (tr Triage) replayedLabel(id, label string, live bool) bool {
	return !live && tr.View.had(id, label)
}

func (tr Triage) tabNews(ev herdr.Event, live bool) bool {
	t, known := tr.View.Tab(ev.TabID)
	switch ev.Kind {
	case herdr.TabClosed:
		return known
	case herdr.TabRenamed:
		// Only a label someone else set that we may replace needs a
		// pass: herdr's own (a rename to "" or a position), a released
		// tab's, a person's under --force. A person's label is kept
		// anyway, ours is our echo, and a replay carries a label the tab
		// had before.
		if !known || t.Label == ev.Label || tr.replayedLabel(ev.TabID, ev.Label, live) {
			return false
		}
		f := owner.Tab(owner.Case{Label: ev.Label, Memory: owner.Of(tr.Mem.Tab(ev.TabID), tr.Now()), Force: tr.Names.Forced()})
		return f.Verdict == owner.Herdrs || f.Verdict == owner.Released || f.Verdict == owner.Forced
	case herdr.TabFocused:
		return known && !t.Focused
	}
	return true
}

func (tr Triage) paneNews(ev herdr.Event) bool {
	p, known := tr.View.Pane(ev.PaneID)
	switch ev.Kind {
	case herdr.PaneClosed, herdr.PaneExited:
		return known
	case herdr.PaneFocused:
		return known && !p.Focused && tr.nameDiffers(p.TabID, func(ps []herdr.Pane) {
			for i := range ps {
				ps[i].Focused = ps[i].ID == p.ID
			}
		})
	case herdr.PaneAgentDetected:
		// herdr names the agent that left in its release: its leaving
		// is news while the pane still shows it (a replayed release of
		// an agent another has replaced since is not).
		if ev.Released {
			return known && p.Agent != "" && (ev.Agent == "" || ev.Agent == p.Agent)
		}
		return known && p.Agent != ev.Agent
	case herdr.PaneUpdated:
		return tr.paneUpdated(ev)
	}
	return true
}

func (tr Triage) workspaceNews(ev herdr.Event, live bool) bool {
	w, known := tr.View.Workspace(ev.WorkspaceID)
	switch ev.Kind {
	case herdr.WorkspaceRenamed:
		return known && w.Label != ev.Label && !tr.replayedLabel(w.ID, ev.Label, live)
	case herdr.WorkspaceCreated:
		series, n, ok := idSeries(herdr.WorkspaceObject, ev.WorkspaceID)
		return !known && (!ok || tr.View.above(series, n))
	case herdr.WorkspaceClosed:
		return known
	}
	return true
}

// paneUpdated triages a pane.updated: an older revision than the snapshot
// holds is a replay; a newer one is news only if the tab's name, a pane's
// own or what a pane's sidebar shows of ours would change with it.
func (tr Triage) paneUpdated(ev herdr.Event) bool {
	old, ok := tr.View.Pane(ev.PaneID)
	upd := ev.Pane
	switch {
	case !ok:
		return false // not in the snapshot: a replay about a closed pane, or news a created event brings
	case upd == nil || upd.ID != old.ID:
		return old.Revision != ev.Revision()
	case upd.Revision <= old.Revision:
		return false
	}
	return tr.nameDiffers(old.TabID, func(ps []herdr.Pane) {
		for j := range ps {
			if ps[j].ID == upd.ID {
				ps[j] = *upd
			}
		}
	}) || tr.sidebarDiffers(old, *upd) || tr.Sidebar.Retry(*upd)
}

// sidebarDiffers reports whether what a pane's sidebar shows of ours
// changes from old to upd (a new task in its title, say), with the facts
// already known.
func (tr Triage) sidebarDiffers(old, upd herdr.Pane) bool {
	tab, ok := tr.View.Tab(old.TabID)
	if !ok {
		return false
	}
	ws, _ := tr.View.Workspace(tab.WorkspaceID)
	return !maps.Equal(tr.Names.SidebarValues(tab, ws, old), tr.Names.SidebarValues(tab, ws, upd))
}

// nameDiffers reports whether a name decided from the tab's panes in the
// last snapshot with the facts already known, the tab's or a pane's own
// (--pane-format), changes when change is applied to its panes. It asks
// herdr nothing.
func (tr Triage) nameDiffers(tabID string, change func([]herdr.Pane)) bool {
	tab, ok := tr.View.Tab(tabID)
	if !ok {
		return true
	}
	ws, _ := tr.View.Workspace(tab.WorkspaceID)
	before := tr.View.panesOf(tabID)
	if len(before) == 0 {
		return true
	}
	after := append([]herdr.Pane(nil), before...)
	change(after)
	return tr.Names.Want(tab, ws, before) != tr.Names.Want(tab, ws, after) ||
		!slices.Equal(tr.Names.PaneNames(tab, ws, before), tr.Names.PaneNames(tab, ws, after))
}
