package pass

import (
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
	"github.com/herdrtabrenamer/herdrtabrenamer/sidebar"
)

// planSidebar makes a row for every pane of the rows' tabs when sidebar
// tokens are on (Config.Sidebar): an agent's pane planned as a pane name
// is, with the sidebar's template, so its facts are gathered with the
// names'; any other pane with no plan, as it shows nothing of ours. A
// read-only pass (explain, restore) reports nothing and plans none.
func (p *Planner) planSidebar(v *view, rows []*Row) []*PaneRow {
	if p.cfg.Sidebar == nil || v.ReadOnly {
		return nil
	}
	var out []*PaneRow
	for _, r := range rows {
		for _, pn := range v.panes[r.Tab.ID] {
			pr := &PaneRow{Pane: pn, forced: v.Forced[pn.ID]}
			if pn.Agent != "" {
				pr.plan = p.cfg.Sidebar.PlanPane(r.Tab, v.workspace[r.Tab.WorkspaceID], pn)
			}
			out = append(out, pr)
		}
	}
	return out
}

// decideSidebar gives each sidebar row its chosen tokens' values, as
// decidePanes renders a pane's name. A pane whose facts are not known
// this pass is left out: what its sidebar shows stays.
func (p *Planner) decideSidebar(v *view, rows []*PaneRow, answers map[string]procinfo.Program, titles map[string]string) []sidebar.Pane {
	var out []sidebar.Pane
	for _, pr := range rows {
		sp := sidebar.Pane{ID: pr.Pane.ID, Shows: pr.Pane.Tokens}
		if pr.Pane.Agent != "" {
			facts, _, known := p.facts(pr.plan, answers)
			if !known {
				continue
			}
			facts.Session = titles[pr.Pane.ID]
			facts.Index = v.positions[pr.Pane.TabID]
			sp.Values = chosen(p.cfg.Sidebar.Decide(pr.plan, facts), p.cfg.SidebarTokens)
		}
		out = append(out, sp)
	}
	return out
}

// SidebarValues is what pane's sidebar would show with the facts already
// known, asking no one: what event triage weighs a pane.updated by. nil
// with sidebar tokens off, and for a pane with no agent.
func (p *Planner) SidebarValues(tab herdr.Tab, ws herdr.Workspace, pane herdr.Pane) map[string]string {
	if p.cfg.Sidebar == nil || pane.Agent == "" {
		return nil
	}
	plan := p.cfg.Sidebar.PlanPane(tab, ws, pane)
	facts, _, _ := p.facts(plan, nil)
	return chosen(p.cfg.Sidebar.Decide(plan, facts), p.cfg.SidebarTokens)
}

// chosen is the values of the chosen tokens, by name.
func chosen(d namer.Decision, names []string) map[string]string {
	out := make(map[string]string, len(names))
	for _, n := range names {
		out[n] = d.Values[n]
	}
	return out
}

// offSidebar is what each pane's sidebar should show with sidebar tokens
// off: none of ours. A pane of the rows' tabs that still shows tokens of
// ours (the list was emptied and reloaded, or a daemon before us reported
// them) has them cleared; the htr_ prefix tells ours from other sources'.
// Once none is left, a pass plans nothing here.
func (p *Planner) offSidebar(v *view, rows []*Row) []sidebar.Pane {
	if p.cfg.Sidebar != nil || v.ReadOnly {
		return nil
	}
	var out []sidebar.Pane
	for _, r := range rows {
		for _, pn := range v.panes[r.Tab.ID] {
			if sidebar.ShowsOurs(pn.Tokens) {
				out = append(out, sidebar.Pane{ID: pn.ID, Shows: pn.Tokens})
			}
		}
	}
	return out
}
