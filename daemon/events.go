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
	marks  map[string]int // the highest number seen, by idSeries
	labels map[string]state.LabelSet
}

// observe records a snapshot in the history.
func (s *seen) observe(snap *herdr.Snapshot) {
	for _, w := range snap.Workspaces {
		s.raise(idSeries("workspace", w.ID))
		s.label(w.ID, w.Label)
	}
	for _, t := range snap.Tabs {
		s.raise(idSeries("tab", t.ID))
		s.label(t.ID, t.Label)
	}
	for _, p := range snap.Panes {
		s.raise(idSeries("pane", p.ID))
	}
}

func (s *seen) label(id, label string) {
	if s.labels == nil {
		s.labels = map[string]state.LabelSet{}
	}
	if l := s.labels[id]; len(l) == 0 || l[len(l)-1] != label {
		s.labels[id] = l.Add(label)
	}
}

// had reports whether the target showed label at some time seen.
func (s *seen) had(id, label string) bool { return s.labels[id].Has(label) }

// raise records an id of a series (ok: it parsed).
func (s *seen) raise(series string, n int, ok bool) {
	if !ok {
		return
	}
	if s.marks == nil {
		s.marks = map[string]int{}
	}
	s.marks[series] = max(s.marks[series], n)
}

// above reports whether n is above every id seen in series.
func (s *seen) above(series string, n int) bool { return n > s.marks[series] }

// idSeries names the series an id is numbered in (tabs and panes count
// per workspace) and its number there; ok is false when it does not parse.
func idSeries(kind, id string) (series string, n int, ok bool) {
	var ws string
	var err error
	switch kind {
	case "tab":
		ws, n, err = herdr.ParseTabID(id)
	case "pane":
		ws, n, err = herdr.ParsePaneID(id)
	default:
		n, err = herdr.ParseWorkspaceID(id)
	}
	return kind + " " + ws, n, err == nil
}

// createdID is the series and number of the id a created event names.
func createdID(ev herdr.Event) (series string, n int, ok bool) {
	switch ev.Kind {
	case "tab.created":
		return idSeries("tab", ev.TabID)
	case "pane.created":
		return idSeries("pane", ev.PaneID)
	case "workspace.created":
		return idSeries("workspace", ev.WorkspaceID)
	}
	return "", 0, false
}

// news is what triage makes of an event.
type news uint8

const (
	oldNews news = iota
	isNews
	// lookFirst: a tab or pane created above every id seen is news if it
	// is there now. At the start of a 0.7/0.8 subscription the replay
	// brings tabs and panes that closed before we ever saw them.
	lookFirst
)

// triage says whether an event may change a name the last snapshot would
// give. live: the event is not part of a replay; upd: the pane a
// pane.updated carries (updatedPane). It changes nothing: learnEvent
// takes the event in afterwards.
func (d *Daemon) triage(ev herdr.Event, upd *herdr.Pane, live bool) news {
	if d.last.none() {
		return isNews
	}
	var n bool
	switch {
	case ev.Kind == "tab.created" || ev.Kind == "pane.created":
		return d.created(ev)
	case strings.HasPrefix(ev.Kind, "tab."):
		n = d.tabNews(ev, live)
	case strings.HasPrefix(ev.Kind, "pane."):
		n = d.paneNews(ev, upd)
	case strings.HasPrefix(ev.Kind, "workspace."):
		n = d.workspaceNews(ev, live)
	default:
		n = true
	}
	if n {
		return isNews
	}
	return oldNews
}

// created triages a tab.created or pane.created.
func (d *Daemon) created(ev herdr.Event) news {
	var known bool
	if ev.Kind == "tab.created" {
		_, known = d.last.tabOf(ev.TabID)
	} else {
		_, known = d.last.paneOf(ev.PaneID)
	}
	series, n, ok := createdID(ev)
	switch {
	case !ok:
		return isNews // an id that does not parse: look, to be safe
	case known || !d.seen.above(series, n):
		return oldNews
	}
	return lookFirst
}

// learnEvent takes an event into what the daemon has seen: the labels of
// targets in the last snapshot, the marks of created ids, and a pane's
// newer state (the next update is measured against it).
func (d *Daemon) learnEvent(ev herdr.Event, upd *herdr.Pane) {
	switch ev.Kind {
	case "tab.created", "pane.created", "workspace.created":
		d.seen.raise(createdID(ev))
	case "tab.renamed":
		if _, ok := d.last.tabOf(ev.TabID); ok {
			d.seen.label(ev.TabID, ev.Label)
		}
	case "workspace.renamed":
		if _, ok := d.last.workspaceOf(ev.WorkspaceID); ok {
			d.seen.label(ev.WorkspaceID, ev.Label)
		}
	case "pane.updated":
		if old, ok := d.last.paneOf(ev.PaneID); ok && upd != nil && upd.ID == old.ID && upd.Revision > old.Revision {
			d.last.setPane(*upd)
		}
	}
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
	return !live && d.seen.had(id, label)
}

func (d *Daemon) tabNews(ev herdr.Event, live bool) bool {
	t, known := d.last.tabOf(ev.TabID)
	switch ev.Kind {
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
		f := namer.FateOf(namer.Case{Label: ev.Label, Memory: memoryOf(d.state.Tabs[ev.TabID], d.now()), Force: d.opt.Force})
		return f.Verdict == namer.Herdrs || f.Verdict == namer.Released || f.Verdict == namer.Forced
	case "tab.focused":
		return known && !t.Focused
	}
	return true
}

func (d *Daemon) paneNews(ev herdr.Event, upd *herdr.Pane) bool {
	p, known := d.last.paneOf(ev.PaneID)
	switch ev.Kind {
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
		return d.paneUpdated(ev, upd)
	}
	return true
}

func (d *Daemon) workspaceNews(ev herdr.Event, live bool) bool {
	w, known := d.last.workspaceOf(ev.WorkspaceID)
	switch ev.Kind {
	case "workspace.renamed":
		return known && w.Label != ev.Label && !d.replayedLabel(w.ID, ev.Label, live)
	case "workspace.created":
		series, n, ok := createdID(ev)
		return !known && (!ok || d.seen.above(series, n))
	case "workspace.closed":
		return known
	}
	return true
}

// exists asks herdr whether a tab or pane that an event says was created
// is there now: one small request instead of a full pass. An error counts
// as there (look, to be safe). It is safe on any goroutine.
func (d *Daemon) exists(ctx context.Context, ev herdr.Event) bool {
	method, key, id := "tab.get", "tab_id", ev.TabID
	if ev.Kind == "pane.created" {
		method, key, id = "pane.get", "pane_id", ev.PaneID
	}
	err := d.client.Call(ctx, method, map[string]string{key: id}, nil)
	return err == nil || !herdr.IsCode(err, "tab_not_found") && !herdr.IsCode(err, "pane_not_found")
}

// lookFor asks herdr, off the loop, whether a tab or pane an event says
// was created is there now: one small request instead of a full pass.
// The loop hears of one that is there as news.
func (l *loop) lookFor(ev herdr.Event) {
	// Short: an unsure answer only costs a pass.
	timeout := min(l.d.opt.Timeout, existsTimeout)
	if l.d.lookTimeout > 0 {
		timeout = l.d.lookTimeout
	}
	go func() {
		ctx, cancel := context.WithTimeout(l.ctx, timeout)
		defer cancel()
		if !l.d.exists(ctx, ev) {
			return
		}
		select {
		case l.arrivals <- ev:
		case <-l.ctx.Done():
		}
	}()
}

// paneUpdated triages a pane.updated: an older revision than the snapshot
// holds is a replay; a newer one is news only if the tab's name would
// change with it.
func (d *Daemon) paneUpdated(ev herdr.Event, upd *herdr.Pane) bool {
	old, ok := d.last.paneOf(ev.PaneID)
	switch {
	case !ok:
		return false // not in the snapshot: a replay about a closed pane, or news a created event brings
	case upd == nil || upd.ID != old.ID:
		return old.Revision != eventRevision(ev)
	case upd.Revision <= old.Revision:
		return false
	}
	return d.nameDiffers(old.TabID, func(ps []herdr.Pane) {
		for j := range ps {
			if ps[j].ID == upd.ID {
				ps[j] = *upd
			}
		}
	})
}

// updatedPane is the pane a pane.updated carries, decoded once per event;
// nil for other events and for one that carries none.
func updatedPane(ev herdr.Event) *herdr.Pane {
	if ev.Kind != "pane.updated" {
		return nil
	}
	var data struct {
		Pane *herdr.Pane `json:"pane"`
	}
	if json.Unmarshal(ev.Data, &data) != nil {
		return nil
	}
	return data.Pane
}

// nameDiffers reports whether the tab's name, decided from the last
// snapshot with the facts already known, changes when change is applied to
// its panes. It asks herdr nothing.
func (d *Daemon) nameDiffers(tabID string, change func([]herdr.Pane)) bool {
	tab, ok := d.last.tabOf(tabID)
	if !ok {
		return true
	}
	ws, _ := d.last.workspaceOf(tab.WorkspaceID)
	before := d.last.panesOf(tabID)
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
