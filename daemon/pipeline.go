package daemon

import (
	"context"
	"fmt"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// A pass is a pipeline of phases over one row per tab in scope:
//
//	read    the state file and one snapshot; caches pruned to live panes
//	plan    a row per tab: its lead pane, and which facts its name needs
//	gather  the programs and agent session titles the plans need
//	decide  each row's wanted name and its report (what explain shows)
//	judge   whose each label is, and so what to do: keep, rename, prefix
//	commit  the renames, then what they did, into the state file
//
// Each phase reads what the ones before wrote into the rows; none keeps
// an index into another's slice.

// view is what the read phase learnt, for the phases after it.
type view struct {
	snap      *herdr.Snapshot
	snapAt    time.Time // when the snapshot was asked for
	first     bool      // the daemon's first snapshot
	workspace map[string]herdr.Workspace
	panes     map[string][]herdr.Pane // by tab id, in layout order
	positions map[string]int          // by tab id, 1-based
	present   map[string]bool         // every tab id in the session
}

// row is one tab's way through a pass.
type row struct {
	tab      herdr.Tab
	plan     namer.Plan
	forced   bool // a pane of it was nudged
	decision namer.Decision
	report   TabReport
	rename   *rename // what commit sends for it; nil: nothing
}

func (d *Daemon) readAndRename(ctx context.Context, in passInput) ([]TabReport, PassStats, error) {
	var stats PassStats
	v, err := d.read(ctx, in)
	if err != nil {
		return nil, stats, err
	}
	rows := d.planRows(v, in)
	answers := d.gather(ctx, d.leadsOf(rows), gatherScope{refresh: !in.urgent && !in.agentPoll, nudged: len(in.forced) > 0}, &stats)
	titles := d.sessions.Titles(sessionLeads(rows))
	d.decide(v, rows, answers, titles)
	var w stateWrites
	d.judge(v, rows, in, &w)
	err = d.commit(ctx, v, rows, in, answers, &w, &stats)
	reports := make([]TabReport, len(rows))
	for i, r := range rows {
		reports[i] = r.report
		reports[i].escapeText()
	}
	return reports, stats, err
}

// read refreshes the state file, takes the pass's snapshot (or the one
// in hands it) and drops cached facts of panes that are gone.
func (d *Daemon) read(ctx context.Context, in passInput) (*view, error) {
	d.expireInflight()
	if err := d.state.Refresh(); err != nil {
		d.log.Warn("state file", "err", err)
	}
	v := &view{snap: in.snap, snapAt: in.snapAt}
	if v.snap == nil {
		v.snapAt = d.now()
		var err error
		if v.snap, err = d.client.Snapshot(ctx); err != nil {
			return nil, err
		}
	}
	d.checkInstance(ctx, v.snap, !in.readOnly)
	v.first = d.last.none()
	d.passes.Add(1)
	d.setLast(v.snap)
	v.workspace = make(map[string]herdr.Workspace, len(v.snap.Workspaces))
	for _, w := range v.snap.Workspaces {
		v.workspace[w.ID] = w
	}
	v.panes = make(map[string][]herdr.Pane, len(v.snap.Tabs))
	live := make(map[string]bool, len(v.snap.Panes))
	for _, p := range v.snap.Panes {
		v.panes[p.TabID] = append(v.panes[p.TabID], p)
		live[p.ID] = true
	}
	v.positions = namer.Positions(v.snap.Tabs)
	v.present = make(map[string]bool, len(v.snap.Tabs))
	for _, t := range v.snap.Tabs {
		v.present[t.ID] = true
	}
	d.procs.prune(live)
	d.sessions.Prune(live)
	return v, nil
}

// planRows makes a row for every tab in scope (--workspace, explain's one
// tab) that has panes.
func (d *Daemon) planRows(v *view, in passInput) []*row {
	var rows []*row
	for _, tab := range v.snap.Tabs {
		if d.opt.Workspace != "" && tab.WorkspaceID != d.opt.Workspace {
			continue
		}
		if in.onlyTab != "" && tab.ID != in.onlyTab {
			continue
		}
		panes := v.panes[tab.ID]
		if len(panes) == 0 {
			continue
		}
		plan := d.opt.Namer.Plan(tab, v.workspace[tab.WorkspaceID], panes)
		rows = append(rows, &row{tab: tab, plan: plan, forced: anyForced(in.forced, panes)})
	}
	return rows
}

// leadsOf lists the lead panes whose program the rows' names need, and,
// for the local watch, agents' lead panes whose shell is not known to run
// here yet: the watch sees an agent read its prompt, after which its
// status changes. (One whose shell is known to run elsewhere is asked
// again only by the poll, as any program herdr alone can name.)
func (d *Daemon) leadsOf(rows []*row) []leadPane {
	var leads []leadPane
	for _, r := range rows {
		lead := r.plan.Lead
		if c := d.procs.of(lead.ID); r.plan.NeedsProc || r.plan.NeedsHost || d.opt.LocalWatch && lead.Agent != "" && (c == nil || !c.localOK) {
			leads = append(leads, leadPane{pane: lead, forced: r.forced})
		}
	}
	return leads
}

// sessionLeads lists the lead panes whose agent session title a name
// needs ({session}).
func sessionLeads(rows []*row) []herdr.Pane {
	var leads []herdr.Pane
	for _, r := range rows {
		if r.plan.NeedsSession {
			leads = append(leads, r.plan.Lead)
		}
	}
	return leads
}

// decide renders each row's wanted name from its facts and fills its
// report. A name whose program is unknown or not settled yet is no name:
// the tab is decided again at a later pass.
func (d *Daemon) decide(v *view, rows []*row, answers map[string]procinfo.Program, titles map[string]string) {
	now := d.now()
	for _, r := range rows {
		facts, prog, known := d.facts(r.plan, answers)
		facts.Session = titles[r.plan.Lead.ID]
		facts.Index = v.positions[r.tab.ID]
		var wait time.Duration
		if known && (r.plan.NeedsProc || r.plan.NeedsHost) && d.opt.Settle > 0 {
			d.procs.sight(r.plan.Lead.ID, prog.Name, now, v.first)
			wait = d.procs.unsettled(r.plan.Lead.ID, d.opt.Settle, now)
		}
		r.decision = d.opt.Namer.Decide(r.plan, facts)
		r.report = TabReport{
			TabID: r.tab.ID, Workspace: r.tab.WorkspaceID, Label: r.tab.Label, Want: r.decision.Want,
			Lead: r.plan.Lead.ID, LeadWhy: r.plan.LeadWhy, Program: prog.Name, ProgramWhy: prog.Why,
			Tokens: r.decision.Values,
		}
		if r.decision.Rule != nil {
			r.report.Rule = r.decision.Rule.String()
		}
		switch {
		case !known:
			// One lost process_info reply must not flip a tab running vim
			// to its directory and back: decide again next pass.
			r.report.ProgramWhy = "unknown: herdr did not answer pane.process_info"
			r.decision.Want, r.report.Want = "", ""
		case wait > 0:
			r.report.ProgramWhy += fmt.Sprintf("; new, named after --settle (in %v)", wait.Round(time.Millisecond))
			r.decision.Want, r.report.Want = "", ""
		}
	}
	if d.opt.Unique {
		d.uniqueNames(rows)
	}
}

// uniqueNames tells same-named tabs of a workspace apart (--unique).
func (d *Daemon) uniqueNames(rows []*row) {
	items := make([]namer.UniqueItem, len(rows))
	for i, r := range rows {
		items[i] = namer.UniqueItem{TabID: r.tab.ID, Workspace: r.tab.WorkspaceID, Name: r.decision.Want, Dir: r.plan.Dir}
	}
	for i, name := range d.opt.Namer.Unique(items) {
		rows[i].decision.Want, rows[i].report.Want = name, name
	}
}

// judge decides whose each label is and what to do with it, and notes
// what the state file learns from the labels alone.
func (d *Daemon) judge(v *view, rows []*row, in passInput, w *stateWrites) {
	apply := d.opt.Apply && !in.readOnly
	for _, r := range rows {
		mem := d.state.Tabs[r.tab.ID]
		id, label, want := r.tab.ID, r.tab.Label, r.decision.Want
		if mem.PendingLanded(label, d.now()) {
			// A rename whose reply was lost (or a killed daemon's late
			// one) did land: the label is ours.
			w.add(setOurs(id, label))
		}
		f := r.decision.Fate(namer.Case{Label: label, Want: want, Memory: memoryOf(mem, d.now()), Force: d.opt.Force})
		verdict := f.Verdict
		r.report.judge(verdict)
		if verdict == namer.Human && mem.Label != "" && label != mem.PrefixedAs && !in.readOnly {
			// A person's label now: what we set before is no longer ours,
			// or the person choosing that text later would lose it.
			w.add(forgetOurLabel(id))
		}
		r.report.Action = ActionKeep
		if verdict == namer.Released && want != "" && want == label && !in.readOnly {
			// A release ends as soon as the tab carries our name, even
			// when no rename was needed: left set, it would hand the
			// next name a person types to us.
			w.add(setOurs(id, want))
		}
		rn := &rename{t: target{tabTarget, id}, seen: label, dec: r.decision, rep: &r.report}
		switch {
		case f.Do == namer.PutBack:
			rn.kind, rn.want = giveBack, f.To
			rn.why = "a rename of ours landed after the tab was locked"
		case f.Do == namer.Rename:
			rn.kind, rn.want = ourTabName, want
		default:
			p, ok := d.personPrefix(r.tab, verdict, v.positions)
			if !ok {
				continue
			}
			rn.kind, rn.want, rn.text = personPrefix, p, d.personText(id, label)
		}
		r.report.Want, r.report.Action = rn.want, ActionWouldRename
		if apply {
			r.rename = rn
		}
	}
}

// commit sends the renames the judge phase chose and the workspace
// names, and saves what they did.
func (d *Daemon) commit(ctx context.Context, v *view, rows []*row, in passInput, answers map[string]procinfo.Program, w *stateWrites, stats *PassStats) error {
	var rs []*rename
	for _, r := range rows {
		if r.rename != nil {
			rs = append(rs, r.rename)
		}
	}
	rs = append(rs, d.workspaceRenames(v, in, answers, w)...)
	// A snapshot this young, with the event stream watching for the
	// echo, needs no re-read before each tab's rename: a person's rename
	// since shows on the stream before our echo, and checkOverwrite puts
	// it back.
	young := d.now().Sub(v.snapAt) < youngSnapshot && d.echoWatched()
	ok, gone := d.sendRenames(ctx, rs, young, w, stats)
	switch {
	case !ok:
		return nil // the records were not saved; nothing was sent
	case gone != nil:
		// The loop logs the outage once; a pass cut short says nothing
		// more.
		d.saveAfterRenames(w, nil)
		return gone
	case !in.readOnly:
		d.saveAfterRenames(w, v.present)
	}
	return nil
}
