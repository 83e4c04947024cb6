package pass

import (
	"path"
	"strings"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/owner"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
	"github.com/herdrtabrenamer/herdrtabrenamer/renamer"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// WorkspaceDecision is a workspace name a dry run would give.
type WorkspaceDecision struct {
	ID, Label, Want string
	Verdict         owner.Verdict
}

// workspaces decides the renames that bring every workspace to the name
// Config.WorkspaceNamer renders (--workspace-format); they go out with the
// pass's tab renames. Only herdr's automatic labels and ours are
// replaced. Decisions are not tab reports: a dry run prints them, an
// applied rename is logged, explain leaves workspaces out.
func (p *Planner) workspaces(v *view, pl *Plan, answers map[string]procinfo.Program, mem *state.State) {
	if p.cfg.WorkspaceNamer == nil || v.OnlyTab != "" || v.ReadOnly {
		return
	}
	tabsOf := make(map[string][]herdr.Tab, len(v.Snap.Workspaces))
	for _, t := range v.Snap.Tabs {
		tabsOf[t.WorkspaceID] = append(tabsOf[t.WorkspaceID], t)
	}
	for _, ws := range v.Snap.Workspaces {
		if p.cfg.Workspace != "" && ws.ID != p.cfg.Workspace {
			continue
		}
		p.workspace(ws, tabsOf[ws.ID], v.panes, answers, mem, pl)
	}
}

// workspace decides one workspace's rename.
func (p *Planner) workspace(ws herdr.Workspace, tabs []herdr.Tab, panes map[string][]herdr.Pane, answers map[string]procinfo.Program, mem *state.State, pl *Plan) {
	wn, t := p.cfg.WorkspaceNamer, state.WorkspaceTarget(ws.ID)
	plan, ok := wn.PlanWorkspace(ws, tabs, panes)
	if !ok {
		return
	}
	// The active tab's lead pane: this pass's tab work asked about it, or
	// its cached answer stands.
	facts, _, known := p.facts(plan, answers)
	if !known {
		return // decide again next pass, as for tabs
	}
	facts.Index = ws.Number
	dec := wn.Decide(plan, facts)
	if dec.Want == "" || dec.Want == ws.Label {
		return
	}
	e := mem.Entry(t)
	f := p.workspaceFate(ws, dec, e, tabs, panes)
	switch {
	case f.Do != owner.Rename:
		if f.Verdict == owner.Human && e.Label != "" && p.cfg.Apply {
			pl.Edits.Add(func(tx *state.Tx) { tx.Disown(t) })
		}
	case !p.cfg.Apply:
		pl.Workspaces = append(pl.Workspaces, WorkspaceDecision{ID: ws.ID, Label: ws.Label, Want: dec.Want, Verdict: f.Verdict})
	default:
		pl.Renames = append(pl.Renames, &renamer.Rename{Kind: renamer.OurName, Target: t, Seen: ws.Label, Want: dec.Want,
			Why: "label was " + f.Verdict.String(), Case: p.ruling(dec, dec.Want)})
	}
}

// workspaceFate is the fate of a workspace's label. What herdr would call
// it comes from the disk, so it is looked at only when the label is no
// one else's otherwise.
func (p *Planner) workspaceFate(ws herdr.Workspace, dec namer.Decision, e state.Entry, tabs []herdr.Tab, panes map[string][]herdr.Pane) owner.Fate {
	c := p.caseOf(dec, ws.Label, dec.Want, e, p.now())
	f := owner.Workspace(c)
	if f.Verdict == owner.Human && mayBeHerdrs(ws.Label, tabs, panes) {
		c.Auto = p.herdrWorkspaceLabels(tabs, panes)
		f = owner.Workspace(c)
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
func (p *Planner) herdrWorkspaceLabels(tabs []herdr.Tab, panes map[string][]herdr.Pane) []string {
	if len(tabs) == 0 {
		return nil
	}
	root, ok := rootPane(panes[tabs[0].ID])
	if !ok {
		return nil
	}
	if root.Cwd == "" {
		return []string{"workspace"} // herdr's label without any cwd
	}
	cwd := path.Clean(root.Cwd)
	if p.cfg.Git != nil {
		if info, ok := p.cfg.Git.Lookup(cwd); ok {
			return []string{info.Repo}
		}
	}
	switch home := p.cfg.WorkspaceNamer.Config().Home; {
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
