package pass

import (
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/owner"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
	"github.com/herdrtabrenamer/herdrtabrenamer/renamer"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// PaneRow is one pane's way through a pass (Config.PaneNamer): named from
// its own facts, judged and renamed as a tab is, its report a tab's with
// PaneID set.
type PaneRow struct {
	Pane     herdr.Pane
	plan     namer.Plan
	forced   bool
	decision namer.Decision
	Report   Report
	Rename   *renamer.Rename
}

// planPanes makes a row for every pane of the rows' tabs (explain's one
// pane alone), when panes are named.
func (p *Planner) planPanes(v *view, rows []*Row) []*PaneRow {
	if p.cfg.PaneNamer == nil {
		return nil
	}
	var out []*PaneRow
	for _, r := range rows {
		for _, pn := range v.panes[r.Tab.ID] {
			if v.OnlyPane != "" && pn.ID != v.OnlyPane {
				continue
			}
			plan := p.cfg.PaneNamer.PlanPane(r.Tab, v.workspace[r.Tab.WorkspaceID], pn)
			out = append(out, &PaneRow{Pane: pn, plan: plan, forced: v.Forced[pn.ID]})
		}
	}
	return out
}

// paneLeads adds to leads the panes whose program their names need, each
// pane once: herdr is asked about a pane once a pass, whoever needs it.
func paneLeads(leads []leadPane, panes []*PaneRow) []leadPane {
	asked := make(map[string]bool, len(leads))
	for _, l := range leads {
		asked[l.pane.ID] = true
	}
	for _, pr := range panes {
		if (pr.plan.NeedsProc || pr.plan.NeedsHost) && !asked[pr.Pane.ID] {
			asked[pr.Pane.ID] = true
			leads = append(leads, leadPane{pane: pr.Pane, forced: pr.forced})
		}
	}
	return leads
}

// paneSessionLeads lists the panes whose agent session title a pane name
// needs ({session}).
func paneSessionLeads(panes []*PaneRow) []herdr.Pane {
	var out []herdr.Pane
	for _, pr := range panes {
		if pr.plan.NeedsSession {
			out = append(out, pr.Pane)
		}
	}
	return out
}

// decidePanes renders each pane's name and report, as decide does a
// tab's, and tells apart the panes of one tab that would get the same
// name.
func (p *Planner) decidePanes(v *view, panes []*PaneRow, answers map[string]procinfo.Program, titles map[string]string) {
	now := p.now()
	for _, pr := range panes {
		facts, prog, known := p.facts(pr.plan, answers)
		facts.Session = titles[pr.Pane.ID]
		facts.Index = v.positions[pr.Pane.TabID]
		var wait time.Duration
		if known && (pr.plan.NeedsProc || pr.plan.NeedsHost) && p.cfg.Settle > 0 {
			p.progs.sight(pr.Pane.ID, prog.Name, now, v.First)
			wait = p.progs.unsettled(pr.Pane.ID, p.cfg.Settle, now)
		}
		pr.decision = p.cfg.PaneNamer.Decide(pr.plan, facts)
		pr.Report = Report{TabID: pr.Pane.TabID, PaneID: pr.Pane.ID, Workspace: pr.Pane.WorkspaceID,
			Label: pr.Pane.Label, Want: pr.decision.Want, Lead: pr.Pane.ID, LeadWhy: pr.plan.LeadWhy,
			Program: prog.Name, ProgramWhy: prog.Why, Tokens: pr.decision.Values}
		if pr.decision.Rule != nil {
			pr.Report.Rule = pr.decision.Rule.String()
		}
		if !known || wait > 0 {
			// As for tabs: an unknown or unsettled program is no name yet.
			pr.Report.ProgramWhy = unknownWhy(known, wait, pr.Report.ProgramWhy)
			pr.decision.Want, pr.Report.Want = "", ""
		}
	}
	items := make([]namer.UniqueItem, len(panes))
	for i, pr := range panes {
		items[i] = namer.UniqueItem{TabID: pr.Pane.ID, Workspace: pr.Pane.TabID, Name: pr.decision.Want, Dir: pr.plan.Dir}
	}
	for i, name := range p.cfg.PaneNamer.Unique(items) {
		panes[i].decision.Want, panes[i].Report.Want = name, name
	}
}

// PaneNames is the names --pane-format would give a tab's panes, in
// their order and told apart as decidePanes tells them, with the facts
// already known, asking no one: what event triage weighs a pane.updated
// by. nil with pane names off.
func (p *Planner) PaneNames(tab herdr.Tab, ws herdr.Workspace, panes []herdr.Pane) []string {
	if p.cfg.PaneNamer == nil {
		return nil
	}
	items := make([]namer.UniqueItem, len(panes))
	for i, pn := range panes {
		plan := p.cfg.PaneNamer.PlanPane(tab, ws, pn)
		facts, _, _ := p.facts(plan, nil)
		items[i] = namer.UniqueItem{TabID: pn.ID, Workspace: tab.ID, Name: p.cfg.PaneNamer.Decide(plan, facts).Want, Dir: plan.Dir}
	}
	return p.cfg.PaneNamer.Unique(items)
}

// judgePanes decides whose each pane's label is and what to do with it,
// by the pane's own rule (owner.Pane); a pane's only label of herdr's is
// none at all, so a person clearing theirs hands the pane back.
func (p *Planner) judgePanes(v *view, pl *Plan, mem *state.State) {
	apply := p.cfg.Apply && !v.ReadOnly
	now := p.now()
	for _, pr := range pl.Panes {
		t := state.PaneTarget(pr.Pane.ID)
		e := v.paneEntry(mem, pr.Pane.ID)
		label, want := pr.Pane.Label, pr.decision.Want
		f := owner.Pane(p.caseOf(pr.decision, label, want, e, now))
		pr.Report.judge(f.Verdict)
		pr.Report.Action = ActionKeep
		if !v.ReadOnly {
			pl.Edits.Add(paneLearnt(t, e, label, want, f.Verdict, now)...)
		}
		x := p.paneRename(pr, f)
		if x == nil {
			continue
		}
		pr.Report.Want, pr.Report.Action = x.Want, ActionWouldRename
		x.Why = pr.Report.Why()
		if apply {
			pr.Rename = x
			pl.Renames = append(pl.Renames, x)
			if term := pr.Pane.TerminalID; term != "" && e.Terminal == "" {
				// The pane's memory begins with this rename: it follows
				// the pane from the start (followPanes).
				pl.Edits.Add(func(tx *state.Tx) { tx.Seat(t, term) })
			}
		}
	}
}

// paneLearnt is what the memory learns of a pane from its label alone:
// what a tab's teaches (learnt), and that a release ended when a person
// named the pane since.
func paneLearnt(t state.Target, e state.Entry, label, want string, v owner.Verdict, now time.Time) []func(*state.Tx) {
	out := learnt(t, e, label, want, v, now)
	if owner.PaneRenamedSince(label, owner.Of(e, now)) {
		out = append(out, func(tx *state.Tx) { tx.EndRelease(t) })
	}
	return out
}

// paneRename is the rename a pane's fate asks for, nil for none.
func (p *Planner) paneRename(pr *PaneRow, f owner.Fate) *renamer.Rename {
	x := &renamer.Rename{Target: state.PaneTarget(pr.Pane.ID), Seen: pr.Pane.Label}
	switch f.Do {
	case owner.PutBack:
		x.Kind, x.Want = renamer.GiveBack, f.To
		x.Why = "a rename of ours landed after the pane was locked"
	case owner.Rename:
		x.Kind, x.Want, x.Case = renamer.OurName, f.To, p.ruling(pr.decision, f.To)
	default:
		return nil
	}
	return x
}

// prunePanes forgets, on a full pass, the panes missing from the session
// for state.PruneAfter, as prune does tabs.
func (p *Planner) prunePanes(v *view, pl *Plan, mem *state.State) {
	if v.ReadOnly || v.OnlyTab != "" || p.cfg.Workspace != "" {
		return
	}
	now := p.now()
	live := make(map[string]bool, len(v.Snap.Panes))
	for _, pn := range v.Snap.Panes {
		live[pn.ID] = true
	}
	if mem.NeedsPrune(state.Pane, live, now) {
		pl.Edits.Add(func(tx *state.Tx) { tx.Prune(state.Pane, live, now) })
	}
}
