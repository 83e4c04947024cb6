package daemon

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/owner"
	"github.com/herdrtabrenamer/herdrtabrenamer/pass"
	"github.com/herdrtabrenamer/herdrtabrenamer/sidebar"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// Event triage: events only say when to look (a pass reads the truth
// again), so the one question here is whether an event may change a name
// the last snapshot would give. Old news costs nothing: 0.7/0.8 replay up
// to 512 old events on every subscribe (docs/herdr.md §7), our own renames
// come back as tab.renamed, and plugins' metadata tokens move a pane's
// revision several times a second.

// news is what triage makes of an event.
type news uint8

const (
	oldNews news = iota
	isNews
	// lookFirst: a tab or pane created above every id seen is news if it
	// is there now. At the start of a 0.7/0.8 subscription the replay
	// brings tabs and panes that closed before we ever saw them.
	lookFirst
	// ownReport: herdr's pane.updated for our own sidebar tokens, no
	// news and no hint of a program either.
	ownReport
)

// triage asks, and changes nothing: learn takes the event in afterwards.
// It belongs to the loop goroutine.
type triage struct {
	view    *view
	mem     *state.State
	planner *pass.Planner
	now     func() time.Time
	sidebar *sidebar.Reporter
}

// judge says whether an event may change a name the last snapshot would
// give. live: the event is not part of a replay.
func (tr triage) judge(ev herdr.Event, live bool) news {
	if tr.view.none() {
		return isNews
	}
	if old, ok := tr.view.paneOf(ev.PaneID); ok && ev.Kind == herdr.PaneUpdated && ev.Pane != nil && tr.sidebar.Echo(old, *ev.Pane) {
		return ownReport
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
		return isNews
	}
	return oldNews
}

// created triages a tab.created or pane.created.
func (tr triage) created(ev herdr.Event) news {
	var known bool
	id := ev.PaneID
	if ev.Kind == herdr.TabCreated {
		_, known = tr.view.tabOf(ev.TabID)
		id = ev.TabID
	} else {
		_, known = tr.view.paneOf(ev.PaneID)
	}
	series, n, ok := idSeries(ev.Kind.Object(), id)
	switch {
	case !ok:
		return isNews // an id that does not parse: look, to be safe
	case known || !tr.view.above(series, n):
		return oldNews
	}
	return lookFirst
}

// learn takes an event into what the daemon has seen: the labels of
// targets in the last snapshot, the marks of created ids, and a pane's
// newer state (the next update is measured against it).
func (tr triage) learn(ev herdr.Event) {
	v := tr.view
	switch ev.Kind {
	case herdr.TabCreated:
		v.raise(idSeries(herdr.TabObject, ev.TabID))
	case herdr.PaneCreated:
		v.raise(idSeries(herdr.PaneObject, ev.PaneID))
	case herdr.WorkspaceCreated:
		v.raise(idSeries(herdr.WorkspaceObject, ev.WorkspaceID))
	case herdr.TabRenamed:
		if _, ok := v.tabOf(ev.TabID); ok {
			v.label(ev.TabID, ev.Label)
		}
	case herdr.WorkspaceRenamed:
		if _, ok := v.workspaceOf(ev.WorkspaceID); ok {
			v.label(ev.WorkspaceID, ev.Label)
		}
	case herdr.PaneUpdated:
		if old, ok := v.paneOf(ev.PaneID); ok && ev.Pane != nil && ev.Pane.ID == old.ID && ev.Pane.Revision > old.Revision {
			v.setPane(*ev.Pane)
		}
	}
}

// replayedLabel says whether a rename event may be a replay of one the
// target had before: only while its entry may still replay. A live one
// is a rename, even back to an old label (a tab handed back by its
// number).
func (tr triage) replayedLabel(id, label string, live bool) bool {
	return !live && tr.view.had(id, label)
}

func (tr triage) tabNews(ev herdr.Event, live bool) bool {
	t, known := tr.view.tabOf(ev.TabID)
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
		f := owner.Tab(owner.Case{Label: ev.Label, Memory: owner.Of(tr.mem.Tab(ev.TabID), tr.now()), Force: tr.planner.Config().Force})
		return f.Verdict == owner.Herdrs || f.Verdict == owner.Released || f.Verdict == owner.Forced
	case herdr.TabFocused:
		return known && !t.Focused
	}
	return true
}

func (tr triage) paneNews(ev herdr.Event) bool {
	p, known := tr.view.paneOf(ev.PaneID)
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
		return known && p.Agent != ev.Agent
	case herdr.PaneUpdated:
		return tr.paneUpdated(ev)
	}
	return true
}

func (tr triage) workspaceNews(ev herdr.Event, live bool) bool {
	w, known := tr.view.workspaceOf(ev.WorkspaceID)
	switch ev.Kind {
	case herdr.WorkspaceRenamed:
		return known && w.Label != ev.Label && !tr.replayedLabel(w.ID, ev.Label, live)
	case herdr.WorkspaceCreated:
		series, n, ok := idSeries(herdr.WorkspaceObject, ev.WorkspaceID)
		return !known && (!ok || tr.view.above(series, n))
	case herdr.WorkspaceClosed:
		return known
	}
	return true
}

// paneUpdated triages a pane.updated: an older revision than the snapshot
// holds is a replay; a newer one is news only if the tab's name, a pane's
// own or what a pane's sidebar shows of ours would change with it.
func (tr triage) paneUpdated(ev herdr.Event) bool {
	old, ok := tr.view.paneOf(ev.PaneID)
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
	}) || tr.sidebarDiffers(old, *upd)
}

// sidebarDiffers reports whether what a pane's sidebar shows of ours
// changes from old to upd (a new task in its title, say), with the facts
// already known.
func (tr triage) sidebarDiffers(old, upd herdr.Pane) bool {
	tab, ok := tr.view.tabOf(old.TabID)
	if !ok {
		return false
	}
	ws, _ := tr.view.workspaceOf(tab.WorkspaceID)
	return !maps.Equal(tr.planner.SidebarValues(tab, ws, old), tr.planner.SidebarValues(tab, ws, upd))
}

// nameDiffers reports whether a name decided from the tab's panes in the
// last snapshot with the facts already known, the tab's or a pane's own
// (--pane-format), changes when change is applied to its panes. It asks
// herdr nothing.
func (tr triage) nameDiffers(tabID string, change func([]herdr.Pane)) bool {
	tab, ok := tr.view.tabOf(tabID)
	if !ok {
		return true
	}
	ws, _ := tr.view.workspaceOf(tab.WorkspaceID)
	before := tr.view.panesOf(tabID)
	if len(before) == 0 {
		return true
	}
	after := append([]herdr.Pane(nil), before...)
	change(after)
	return tr.planner.Want(tab, ws, before) != tr.planner.Want(tab, ws, after) ||
		!slices.Equal(tr.planner.PaneNames(tab, ws, before), tr.planner.PaneNames(tab, ws, after))
}

// exists asks herdr whether a tab or pane that an event says was created
// is there now: one small request instead of a full pass. An error counts
// as there (look, to be safe). It is safe on any goroutine.
func exists(ctx context.Context, api API, ev herdr.Event) bool {
	var err error
	if ev.Kind == herdr.PaneCreated {
		_, err = api.Pane(ctx, ev.PaneID)
	} else {
		_, err = api.Tab(ctx, ev.TabID)
	}
	return err == nil || !errors.Is(err, herdr.ErrTabNotFound) && !errors.Is(err, herdr.ErrPaneNotFound)
}

// targetKind is the kind of rename entry whose replay an event belongs
// to.
func targetKind(ev herdr.Event) state.Kind {
	if ev.Kind.Object() == herdr.WorkspaceObject {
		return state.Workspace
	}
	return state.Tab
}
