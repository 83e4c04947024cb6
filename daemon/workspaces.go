package daemon

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// nameWorkspaces brings every workspace to the name Options.WorkspaceNamer
// renders (--workspace-format), after the tab renames of the same pass and
// from the same snapshot. Only herdr's automatic labels and ours are
// replaced. Decisions are not tab reports: a dry run prints them, an
// applied rename is logged, explain leaves workspaces out.
func (d *Daemon) nameWorkspaces(ctx context.Context, snap *herdr.Snapshot, panes map[string][]herdr.Pane, in passInput, answers map[string]procinfo.Program, stats *PassStats) error {
	wn := d.opt.WorkspaceNamer
	if wn == nil || in.onlyTab != "" || in.plan {
		return nil
	}
	tabsOf := make(map[string][]herdr.Tab, len(snap.Workspaces))
	for _, t := range snap.Tabs {
		tabsOf[t.WorkspaceID] = append(tabsOf[t.WorkspaceID], t)
	}
	present := make(map[string]bool, len(snap.Workspaces))
	for _, ws := range snap.Workspaces {
		present[ws.ID] = true
		if d.opt.Workspace != "" && ws.ID != d.opt.Workspace {
			continue
		}
		plan, ok := wn.PlanWorkspace(ws, tabsOf[ws.ID], panes)
		if !ok {
			continue
		}
		// The active tab's lead pane: this pass's tab work asked about it,
		// or its cached answer stands.
		facts, _, known := d.facts(plan, answers)
		if !known {
			continue // decide again next pass, as for tabs
		}
		facts.Index = ws.Number
		dec := wn.Decide(plan, facts)
		if dec.Want == "" || dec.Want == ws.Label {
			delete(d.printed, target{workspaceTarget, ws.ID})
			continue
		}
		f := d.workspaceFate(ws, dec, tabsOf[ws.ID], panes)
		verdict := f.Verdict
		if f.Do != namer.Rename {
			delete(d.printed, target{workspaceTarget, ws.ID})
			if verdict == namer.Human && d.state.Workspaces[ws.ID].Label != "" && d.opt.Apply && !in.plan {
				d.forgetWorkspaceLabel(ws.ID)
			}
			continue
		}
		if !d.opt.Apply {
			if d.printed[target{workspaceTarget, ws.ID}] != dec.Want {
				d.printed[target{workspaceTarget, ws.ID}] = dec.Want
				fmt.Fprintf(d.opt.Out, "would rename workspace %s %q -> %q (label was %s)\n", ws.ID, ws.Label, dec.Want, verdict)
			}
			continue
		}
		if err := d.renameWorkspace(ctx, ws, dec.Want, verdict, stats); err != nil {
			return err
		}
	}
	if d.opt.Workspace == "" {
		d.pruneWorkspaces(present)
	}
	return nil
}

// workspaceFate is the fate of a workspace's label. What herdr would call
// it comes from the disk, so it is looked at only when the label is no
// one else's otherwise.
func (d *Daemon) workspaceFate(ws herdr.Workspace, dec namer.Decision, tabs []herdr.Tab, panes map[string][]herdr.Pane) namer.Fate {
	c := namer.Case{Label: ws.Label, Want: dec.Want, Workspace: true,
		Memory: namer.Memory{Labels: d.state.Workspaces[ws.ID].OurLabels(d.now())}}
	f := dec.Fate(c)
	if f.Verdict == namer.Human && mayBeHerdrs(ws.Label, tabs, panes) {
		c.Auto = d.herdrWorkspaceLabels(tabs, panes)
		f = dec.Fate(c)
	}
	return f
}

// forgetWorkspaceLabel: as for tabs, a label we set before is no longer
// ours once a person's label shows.
func (d *Daemon) forgetWorkspaceLabel(id string) {
	d.updateWorkspaces(func(m map[string]state.WorkspaceMemory) {
		e := m[id]
		e.Label = ""
		m[id] = e
	})
}

// renameWorkspace sets one workspace label, remembering it as pending
// first, as tab renames do: a rename that lands without a reply still
// reads as ours afterwards.
func (d *Daemon) renameWorkspace(ctx context.Context, ws herdr.Workspace, want string, verdict namer.Verdict, stats *PassStats) error {
	t := target{workspaceTarget, ws.ID}
	now, err := d.currentLabel(ctx, t)
	if err != nil {
		if herdr.IsServerGone(err) {
			return err
		}
		d.log.Warn("could not read a workspace before renaming it", "workspace", ws.ID, "err", err)
		return nil
	}
	if now != ws.Label {
		// Renamed since the snapshot: the next pass judges the new label.
		d.noteWorkspaceLabel(ws.ID, now)
		return nil
	}
	if err := d.updateWorkspaces(func(m map[string]state.WorkspaceMemory) {
		e := m[ws.ID]
		e.Pending = state.AddPending(e.Pending, &e.PendingUntil, want, d.now())
		e.Flights = appendFlight(e.Flights, state.Flight{Want: want, Seen: ws.Label, Sent: d.now()})
		m[ws.ID] = e
	}); err != nil {
		// No rename without its record saved first.
		return nil
	}
	out, err := d.request(ctx, t, want)
	d.settle(t, want, ws.Label, out)
	if err != nil {
		if out == renameInFlight {
			return err
		}
		d.log.Warn("workspace rename failed", "workspace", ws.ID, "want", want, "err", err)
		d.updateWorkspaces(func(m map[string]state.WorkspaceMemory) {
			e := m[ws.ID]
			e.Pending = e.Pending.Remove(want)
			e.Flights = dropFlight(e.Flights, want)
			m[ws.ID] = e
		})
		return nil
	}
	stats.Renames++
	d.updateWorkspaces(func(m map[string]state.WorkspaceMemory) {
		// Pending keeps the label: a killed daemon's renames may still
		// land after this one.
		e := m[ws.ID]
		e.Label, e.MissingSince = want, nil
		m[ws.ID] = e
	})
	d.log.Info("renamed workspace", "workspace", ws.ID, "old", ws.Label, "new", want, "why", "label was "+verdict.String())
	return nil
}

// herdrWorkspaceLabels lists what herdr would call a workspace nobody
// named (docs/herdr.md §6): the name of the git work tree holding the
// first tab's root pane's cwd, else that folder's own name. The API does
// not name the root pane; it is the pane the tab was created with, the
// lowest-numbered one. herdr refreshes its cached git part only now and
// then, so for a moment after a cd it may show the folder's own name:
// that label is then kept for a pass, never a person's taken for herdr's.
func (d *Daemon) herdrWorkspaceLabels(tabs []herdr.Tab, panes map[string][]herdr.Pane) []string {
	if len(tabs) == 0 {
		return nil
	}
	p, ok := rootPane(panes[tabs[0].ID])
	if !ok {
		return nil
	}
	if p.Cwd == "" {
		return []string{"workspace"} // herdr's label without any cwd
	}
	cwd := path.Clean(p.Cwd)
	if d.opt.Git != nil {
		if info, ok := d.opt.Git.Lookup(cwd); ok {
			return []string{info.Repo}
		}
	}
	switch home := d.opt.WorkspaceNamer.Config().Home; {
	case home != "" && cwd == home:
		return []string{"~"}
	case path.Base(cwd) == "/":
		return []string{cwd}
	}
	return []string{path.Base(cwd)}
}

// rootPane is the tab's pane with the lowest number: the one it was
// created with, while that one is open.
func rootPane(panes []herdr.Pane) (herdr.Pane, bool) {
	best, bestN := herdr.Pane{}, 0
	for _, p := range panes {
		_, n, err := herdr.ParsePaneID(p.ID)
		if err != nil {
			continue
		}
		if bestN == 0 || n < bestN {
			best, bestN = p, n
		}
	}
	return best, bestN != 0
}

// mayBeHerdrs is a check without disk access that lets a person's label
// skip herdrWorkspaceLabels: every label herdr makes is a component of the
// cwd (the git root is an ancestor), "~", "workspace", or "/".
func mayBeHerdrs(label string, tabs []herdr.Tab, panes map[string][]herdr.Pane) bool {
	if label == "~" || label == "workspace" || label == "/" {
		return true
	}
	if len(tabs) == 0 || label == "" || strings.Contains(label, "/") {
		return false
	}
	for _, p := range panes[tabs[0].ID] {
		for _, part := range strings.Split(p.Cwd, "/") {
			if part == label {
				return true
			}
		}
	}
	return false
}

// updateWorkspaces changes the workspace memory and saves it with the
// rest of the state.
func (d *Daemon) updateWorkspaces(fn func(map[string]state.WorkspaceMemory)) error {
	err := d.update(func(map[string]state.TabMemory) {
		if d.state.Workspaces == nil {
			d.state.Workspaces = map[string]state.WorkspaceMemory{}
		}
		fn(d.state.Workspaces)
	})
	if err != nil {
		d.log.Warn("could not save state; keeping it in memory", "err", err)
	}
	return err
}

// pruneWorkspaces forgets workspaces missing from full passes for
// state.PruneAfter, with the tabs' rule: one short snapshot forgets nothing.
// It writes only when something changed.
func (d *Daemon) pruneWorkspaces(present map[string]bool) {
	if !state.NeedsPrune(d.state.Workspaces, present, d.now()) {
		return
	}
	now := d.now()
	d.updateWorkspaces(func(ws map[string]state.WorkspaceMemory) {
		state.Prune(ws, present, now)
	})
}

// noteWorkspaceLabel updates the last snapshot after our own rename, so
// herdr's workspace.renamed echo reads as old news.
func (d *Daemon) noteWorkspaceLabel(id, label string) {
	if d.last == nil {
		return
	}
	for i := range d.last.Workspaces {
		if d.last.Workspaces[i].ID == id {
			d.last.Workspaces[i].Label = label
			d.seen.label(id, label)
		}
	}
}
