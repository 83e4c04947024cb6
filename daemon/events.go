package daemon

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// Event triage: events only say when to look (a pass reads the truth
// again), so the one question here is whether an event may change a name
// the last snapshot would give. Old news costs nothing: 0.7/0.8 replay up
// to 512 old events on every subscribe (docs/herdr.md §7), our own renames
// come back as tab.renamed, and plugins' metadata tokens move a pane's
// revision several times a second.

// seen is what the daemon has observed beyond the last snapshot: the
// highest ids (herdr never reuses a tab, pane or workspace number, so an
// id at or below the highest seen is no new arrival) and recent labels of
// each tab and workspace (a replayed tab.renamed carries an old one).
type seen struct {
	maxWorkspace int
	maxTab       map[string]int // by workspace id
	maxPane      map[string]int // by workspace id
	labels       map[string]state.LabelSet
}

// observe records a snapshot in the history.
func (s *seen) observe(snap *herdr.Snapshot) {
	if s.maxTab == nil {
		s.maxTab, s.maxPane, s.labels = map[string]int{}, map[string]int{}, map[string]state.LabelSet{}
	}
	for _, w := range snap.Workspaces {
		if n, err := herdr.ParseWorkspaceID(w.ID); err == nil {
			s.maxWorkspace = max(s.maxWorkspace, n)
		}
		s.label(w.ID, w.Label)
	}
	for _, t := range snap.Tabs {
		if ws, n, err := herdr.ParseTabID(t.ID); err == nil {
			s.maxTab[ws] = max(s.maxTab[ws], n)
		}
		s.label(t.ID, t.Label)
	}
	for _, p := range snap.Panes {
		if ws, n, err := herdr.ParsePaneID(p.ID); err == nil {
			s.maxPane[ws] = max(s.maxPane[ws], n)
		}
	}
}

func (s *seen) label(id, label string) {
	if l := s.labels[id]; len(l) == 0 || l[len(l)-1] != label {
		s.labels[id] = l.Add(label)
	}
}

// arrival reports whether a created event's id is above every id seen in
// its series, and raises the mark: a replay of the same event is then old.
func (s *seen) arrival(m map[string]int, ws string, n int) bool {
	if n <= m[ws] {
		return false
	}
	m[ws] = n
	return true
}

// newsworthy says whether an event may change a name the last snapshot
// would give. live: the event is not part of a replay.
func (d *Daemon) newsworthy(ev herdr.Event, live bool) bool {
	if d.last == nil {
		return true
	}
	switch {
	case strings.HasPrefix(ev.Kind, "tab."):
		return d.tabNews(ev, live)
	case strings.HasPrefix(ev.Kind, "pane."):
		return d.paneNews(ev)
	case strings.HasPrefix(ev.Kind, "workspace."):
		return d.workspaceNews(ev, live)
	}
	return true
}

// lastTabOf is the tab in the last snapshot.
func (d *Daemon) lastTabOf(id string) (herdr.Tab, bool) {
	if i, ok := d.lastTab[id]; ok {
		return d.last.Tabs[i], true
	}
	return herdr.Tab{}, false
}

// lastPaneOf is the pane in the last snapshot.
func (d *Daemon) lastPaneOf(id string) (herdr.Pane, bool) {
	if i, ok := d.lastPane[id]; ok {
		return d.last.Panes[i], true
	}
	return herdr.Pane{}, false
}

// lastWorkspaceOf is the workspace in the last snapshot.
func (d *Daemon) lastWorkspaceOf(id string) (herdr.Workspace, bool) {
	for _, w := range d.last.Workspaces {
		if w.ID == id {
			return w, true
		}
	}
	return herdr.Workspace{}, false
}

// kindOf is the rename entry whose replay an event belongs to.
func kindOf(ev herdr.Event) targetKind {
	if strings.HasPrefix(ev.Kind, "workspace.") {
		return workspaceTarget
	}
	return tabTarget
}

// replayedLabel says whether a rename event may be a replay of one the
// target had before: only while its entry may still replay. A live one
// is a rename, even back to an old label (a tab handed back by its
// number).
func (d *Daemon) replayedLabel(id, label string, live bool) bool {
	return !live && d.seen.labels[id].Has(label)
}

func (d *Daemon) tabNews(ev herdr.Event, live bool) bool {
	t, known := d.lastTabOf(ev.TabID)
	switch ev.Kind {
	case "tab.created":
		if known {
			return false
		}
		ws, n, err := herdr.ParseTabID(ev.TabID)
		return err != nil || d.seen.arrival(d.seen.maxTab, ws, n) && d.exists("tab.get", "tab_id", ev.TabID)
	case "tab.closed":
		return known
	case "tab.renamed":
		// Only a label someone else set that we may replace needs a
		// pass: herdr's own (a rename to "" or a position), a released
		// tab's, a person's under --force. A person's label is kept
		// anyway, ours is our echo, and a replay carries a label the tab
		// had before.
		if !known || t.Label == ev.Label || d.replayedLabel(ev.TabID, ev.Label, live) {
			return false
		}
		d.seen.label(ev.TabID, ev.Label)
		f := namer.FateOf(namer.Case{Label: ev.Label, Memory: memoryOf(d.state.Tabs[ev.TabID], d.now()), Force: d.opt.Force})
		return f.Verdict == namer.Herdrs || f.Verdict == namer.Released || f.Verdict == namer.Forced
	case "tab.focused":
		return known && !t.Focused
	}
	return true
}

func (d *Daemon) paneNews(ev herdr.Event) bool {
	p, known := d.lastPaneOf(ev.PaneID)
	switch ev.Kind {
	case "pane.created":
		if known {
			return false
		}
		ws, n, err := herdr.ParsePaneID(ev.PaneID)
		return err != nil || d.seen.arrival(d.seen.maxPane, ws, n) && d.exists("pane.get", "pane_id", ev.PaneID)
	case "pane.closed", "pane.exited":
		return known
	case "pane.focused":
		return known && !p.Focused && d.nameDiffers(p.TabID, func(ps []herdr.Pane) {
			for i := range ps {
				ps[i].Focused = ps[i].ID == p.ID
			}
		})
	case "pane.agent_detected":
		return known && p.Agent != eventField(ev, "agent")
	case "pane.updated":
		return d.paneUpdated(ev)
	}
	return true
}

func (d *Daemon) workspaceNews(ev herdr.Event, live bool) bool {
	w, known := d.lastWorkspaceOf(ev.WorkspaceID)
	switch ev.Kind {
	case "workspace.renamed":
		if !known || w.Label == ev.Label || d.replayedLabel(w.ID, ev.Label, live) {
			return false
		}
		d.seen.label(w.ID, ev.Label)
		return true
	case "workspace.created":
		if known {
			return false
		}
		n, err := herdr.ParseWorkspaceID(ev.WorkspaceID)
		if err != nil || n > d.seen.maxWorkspace {
			d.seen.maxWorkspace = max(d.seen.maxWorkspace, n)
			return true
		}
		return false
	case "workspace.closed":
		return known
	}
	return true
}

// exists asks herdr whether a tab or pane that an event says was created
// is there now: one small request instead of a full pass. At the start of
// a 0.7/0.8 subscription the replay brings tabs and panes that closed
// before we ever saw them. An error counts as there (look, to be safe).
func (d *Daemon) exists(method, key, id string) bool {
	// Short: this runs on the loop, and an unsure answer only costs a pass.
	ctx, cancel := context.WithTimeout(context.Background(), min(d.opt.Timeout, existsTimeout))
	defer cancel()
	err := d.client.Call(ctx, method, map[string]string{key: id}, nil)
	return err == nil || !herdr.IsCode(err, "tab_not_found") && !herdr.IsCode(err, "pane_not_found")
}

// paneUpdated triages a pane.updated: an older revision than the snapshot
// holds is a replay; a newer one is news only if the tab's name would
// change with it. Otherwise the snapshot takes the new pane, so the next
// update is measured against it.
func (d *Daemon) paneUpdated(ev herdr.Event) bool {
	i, ok := d.lastPane[ev.PaneID]
	if !ok {
		return false // not in the snapshot: a replay about a closed pane, or news a created event brings
	}
	old := d.last.Panes[i]
	var data struct {
		Pane *herdr.Pane `json:"pane"`
	}
	if json.Unmarshal(ev.Data, &data) != nil || data.Pane == nil || data.Pane.ID != old.ID {
		return old.Revision != eventRevision(ev)
	}
	upd := *data.Pane
	if upd.Revision <= old.Revision {
		return false
	}
	if d.nameDiffers(old.TabID, func(ps []herdr.Pane) {
		for j := range ps {
			if ps[j].ID == upd.ID {
				ps[j] = upd
			}
		}
	}) {
		return true
	}
	d.last.Panes[i] = upd
	return false
}

// nameDiffers reports whether the tab's name, decided from the last
// snapshot with the facts already known, changes when change is applied to
// its panes. It asks herdr nothing.
func (d *Daemon) nameDiffers(tabID string, change func([]herdr.Pane)) bool {
	ti, ok := d.lastTab[tabID]
	if !ok {
		return true
	}
	tab := d.last.Tabs[ti]
	var ws herdr.Workspace
	for _, w := range d.last.Workspaces {
		if w.ID == tab.WorkspaceID {
			ws = w
		}
	}
	var before []herdr.Pane
	for _, p := range d.last.Panes {
		if p.TabID == tabID {
			before = append(before, p)
		}
	}
	if len(before) == 0 {
		return true
	}
	after := append([]herdr.Pane(nil), before...)
	change(after)
	return d.wantOf(tab, ws, before) != d.wantOf(tab, ws, after)
}

func (d *Daemon) wantOf(tab herdr.Tab, ws herdr.Workspace, panes []herdr.Pane) string {
	plan := d.opt.Namer.Plan(tab, ws, panes)
	facts, _, _ := d.facts(plan, nil)
	dec := d.opt.Namer.Decide(plan, facts)
	return dec.Want
}

// eventField reads a top-level string field of an event's data.
func eventField(ev herdr.Event, key string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(ev.Data, &m) != nil {
		return ""
	}
	var v string
	_ = json.Unmarshal(m[key], &v)
	return v
}

// eventRevision reads data.pane.revision of a pane.updated event.
func eventRevision(ev herdr.Event) uint64 {
	var m struct {
		Pane struct {
			Revision uint64 `json:"revision"`
		} `json:"pane"`
	}
	_ = json.Unmarshal(ev.Data, &m)
	return m.Pane.Revision
}
