package daemon

import (
	"fmt"
	"path"
	"strings"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// workspaceRenames decides the renames that bring every workspace to the
// name Options.WorkspaceNamer renders (--workspace-format), from the
// pass's snapshot; they go out with the pass's tab renames. Only herdr's
// automatic labels and ours are replaced. Decisions are not tab reports: a
// dry run prints them, an applied rename is logged, explain leaves
// workspaces out.
func (d *Daemon) workspaceRenames(v *view, in passInput, answers map[string]procinfo.Program, w *stateWrites) []*rename {
	wn := d.opt.WorkspaceNamer
	if wn == nil || in.onlyTab != "" || in.readOnly {
		return nil
	}
	tabsOf := make(map[string][]herdr.Tab, len(v.snap.Workspaces))
	for _, t := range v.snap.Tabs {
		tabsOf[t.WorkspaceID] = append(tabsOf[t.WorkspaceID], t)
	}
	if d.opt.Workspace == "" {
		w.presentWorkspaces = make(map[string]bool, len(v.snap.Workspaces))
	}
	var rs []*rename
	for _, ws := range v.snap.Workspaces {
		if w.presentWorkspaces != nil {
			w.presentWorkspaces[ws.ID] = true
		}
		if d.opt.Workspace != "" && ws.ID != d.opt.Workspace {
			continue
		}
		if r := d.workspaceRename(ws, tabsOf[ws.ID], v.panes, answers, w); r != nil {
			rs = append(rs, r)
		}
	}
	return rs
}

// workspaceRename decides one workspace's rename, nil for none.
func (d *Daemon) workspaceRename(ws herdr.Workspace, tabs []herdr.Tab, panes map[string][]herdr.Pane, answers map[string]procinfo.Program, w *stateWrites) *rename {
	wn, t := d.opt.WorkspaceNamer, target{workspaceTarget, ws.ID}
	plan, ok := wn.PlanWorkspace(ws, tabs, panes)
	if !ok {
		return nil
	}
	// The active tab's lead pane: this pass's tab work asked about it, or
	// its cached answer stands.
	facts, _, known := d.facts(plan, answers)
	if !known {
		return nil // decide again next pass, as for tabs
	}
	facts.Index = ws.Number
	dec := wn.Decide(plan, facts)
	if dec.Want == "" || dec.Want == ws.Label {
		delete(d.printed, t)
		return nil
	}
	f := d.workspaceFate(ws, dec, tabs, panes)
	if f.Do != namer.Rename {
		delete(d.printed, t)
		if f.Verdict == namer.Human && d.state.Workspaces[ws.ID].Label != "" && d.opt.Apply {
			w.addWorkspace(forgetOurWorkspaceLabel(ws.ID))
		}
		return nil
	}
	if !d.opt.Apply {
		if d.printed[t] != dec.Want {
			d.printed[t] = dec.Want
			fmt.Fprintf(d.opt.Out, "would rename workspace %s %q -> %q (label was %s)\n", ws.ID, ws.Label, dec.Want, f.Verdict)
		}
		return nil
	}
	return &rename{kind: ourWorkspaceName, t: t, seen: ws.Label, want: dec.Want, rep: &TabReport{},
		why: "label was " + f.Verdict.String()}
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

// noteWorkspaceLabel updates the last snapshot after our own rename, so
// herdr's workspace.renamed echo reads as old news.
func (d *Daemon) noteWorkspaceLabel(id, label string) {
	if d.last.setWorkspaceLabel(id, label) {
		d.seen.label(id, label)
	}
}
