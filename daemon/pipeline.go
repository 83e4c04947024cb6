package daemon

import (
	"context"
	"fmt"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
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

// action is what a pass does to a tab.
type action uint8

const (
	actKeep     action = iota
	actRename          // to our name
	actPrefix          // a person's label, its position put in front
	actLockBack        // a locked tab's label, back over a rename of ours that landed after the lock
)

// row is one tab's way through a pass.
type row struct {
	tab      herdr.Tab
	plan     namer.Plan
	forced   bool // a pane of it was nudged
	decision namer.Decision
	report   TabReport
	action   action
	outcome  renameOutcome // of actRename, once commit sent it
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
	d.checkInstance(ctx, v.snap, !in.plan)
	v.first = d.last == nil
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
	for id := range d.procs {
		if !live[id] {
			delete(d.procs, id)
		}
	}
	for id := range d.newProgs {
		if !live[id] {
			delete(d.newProgs, id)
		}
	}
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
		if c := d.procs[lead.ID]; r.plan.NeedsProc || r.plan.NeedsHost || d.opt.LocalWatch && lead.Agent != "" && (c == nil || !c.localOK) {
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
		if known && (r.plan.NeedsProc || r.plan.NeedsHost) {
			wait = d.unsettled(r.plan.Lead.ID, prog, now, v.first)
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
	apply := d.opt.Apply && !in.plan
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
		if verdict == namer.Human && mem.Label != "" && label != mem.PrefixedAs && !in.plan {
			// A person's label now: what we set before is no longer ours,
			// or the person choosing that text later would lose it.
			w.add(forgetOurLabel(id))
		}
		r.report.Action = ActionKeep
		if verdict == namer.Released && want != "" && want == label && !in.plan {
			// A release ends as soon as the tab carries our name, even
			// when no rename was needed: left set, it would hand the
			// next name a person types to us.
			w.add(setOurs(id, want))
		}
		if f.Do == namer.PutBack {
			r.report.Want, r.report.Action = f.To, ActionWouldRename
			if apply {
				r.action = actLockBack
			}
		} else if f.Do == namer.Rename {
			r.report.Action = ActionWouldRename
			if apply {
				r.action = actRename
			}
		} else if p, ok := d.personPrefix(r.tab, verdict, v.positions); ok {
			r.report.Want, r.report.Action = p, ActionWouldRename
			if apply {
				r.action = actPrefix
			}
		}
	}
}

// forgetOurLabel drops the last label we set on a tab that a person has
// named since; pending labels stay until they expire.
func forgetOurLabel(id string) func(map[string]state.TabMemory) {
	return func(tabs map[string]state.TabMemory) {
		if m, ok := tabs[id]; ok {
			m.Label = ""
			tabs[id] = m
		}
	}
}

// setOurs records label as the tab's, ours, and ends a release.
func setOurs(id, label string) func(map[string]state.TabMemory) {
	return func(tabs map[string]state.TabMemory) {
		m := tabs[id]
		m.Label, m.Released = label, false
		tabs[id] = m
	}
}

// commit sends the renames the judge phase chose, the prefixes and the
// workspace names, and saves what they did.
func (d *Daemon) commit(ctx context.Context, v *view, rows []*row, in passInput, answers map[string]procinfo.Program, w *stateWrites, stats *PassStats) error {
	renames := rowsWith(rows, actRename)
	if err := d.saveBeforeRenames(w, renames); err != nil {
		d.log.Warn("not renaming: could not save the labels about to be set", "err", err)
		for _, r := range renames {
			r.report.Action, r.report.Error = ActionFailed, "not renamed: state not saved: "+err.Error()
		}
		return nil
	}
	// A snapshot this young, with the event stream watching for the
	// echo, needs no re-read before each rename: a person's rename since
	// shows on the stream before our echo, and checkOverwrite puts it
	// back.
	young := d.now().Sub(v.snapAt) < youngSnapshot && d.echoWatched()
	gone := d.renameAll(ctx, renames, young)
	d.recordOutcomes(renames, w, stats)
	if gone != nil {
		// The loop logs the outage once; a pass cut short says nothing
		// more.
		d.saveAfterRenames(w, nil)
		return gone
	}
	d.putBackLocks(ctx, rowsWith(rows, actLockBack), stats)
	err := d.prefixPeople(ctx, rowsWith(rows, actPrefix), stats)
	if err == nil {
		err = d.nameWorkspaces(ctx, v.snap, v.panes, in, answers, stats)
	}
	if !in.plan {
		d.saveAfterRenames(w, v.present)
	}
	return err
}

func rowsWith(rows []*row, a action) []*row {
	var out []*row
	for _, r := range rows {
		if r.action == a {
			out = append(out, r)
		}
	}
	return out
}

// recordOutcomes turns what each rename did into state changes: a label
// herdr set is ours; one herdr refused, or that was never sent, is not.
func (d *Daemon) recordOutcomes(renames []*row, w *stateWrites, stats *PassStats) {
	for _, r := range renames {
		rep := &r.report
		switch r.outcome {
		case renameDone:
			stats.Renames++
			d.settle(target{tabTarget, rep.TabID}, rep.Want, rep.Label, r.outcome)
			// Pending keeps the label: other requests (a killed daemon's)
			// may still land after this one.
			w.add(setNamed(rep.TabID, rep.Want))
			d.log.Info("renamed", "tab", rep.TabID, "old", rep.Label, "new", rep.Want,
				"lead", rep.Lead, "why", whyLine(*rep))
		case renameLanded:
			w.add(setNamed(rep.TabID, rep.Want), dropSavedFlight(rep.TabID, rep.Want))
		case renameInFlight:
			// Sent but unanswered: herdr may still apply it, so the
			// pending label stays, and its echo is watched for.
			d.settle(target{tabTarget, rep.TabID}, rep.Want, rep.Label, r.outcome)
		case renameLockedBack:
			// Put back for a lock: the pending label stays, for the echo
			// of the rename, and the lock decides its fate.
			w.add(dropSavedFlight(rep.TabID, rep.Want))
		default:
			// Not sent, or herdr answered no: the label is not ours.
			w.add(dropPending(rep.TabID, rep.Want))
		}
	}
}

// setNamed records a label of ours that herdr set: the tab's, no release,
// no longer missing, and no person's text it was made of.
func setNamed(id, label string) func(map[string]state.TabMemory) {
	return func(tabs map[string]state.TabMemory) {
		m := tabs[id]
		m.Label, m.Released, m.MissingSince = label, false, nil
		m.PersonText, m.PrefixedAs = "", ""
		tabs[id] = m
	}
}

// stateWrites are a pass's changes to the state file. They are written at
// most twice, and the order is a safety rule: the labels about to be set
// go on disk before any rename is sent (saveBeforeRenames), so a rename
// herdr applies but whose reply is lost (herdr stopped, we were killed,
// the reply came late) still reads as ours later, instead of as a
// person's forever; what the renames did follows (saveAfterRenames). A
// pass with no rename writes only the second, and only when something
// changed.
type stateWrites struct {
	muts []func(map[string]state.TabMemory)
}

func (w *stateWrites) add(fns ...func(map[string]state.TabMemory)) {
	w.muts = append(w.muts, fns...)
}

// saveBeforeRenames saves the changes so far with the pending label of
// every rename about to be sent. No rename may go out unless it returned
// nil (TestPendingLabelIsOnDiskBeforeTheRename).
func (d *Daemon) saveBeforeRenames(w *stateWrites, renames []*row) error {
	if len(renames) == 0 {
		return nil
	}
	w.add(func(tabs map[string]state.TabMemory) {
		for _, r := range renames {
			m := tabs[r.report.TabID]
			m.Pending = state.AddPending(m.Pending, &m.PendingUntil, r.report.Want, d.now())
			m.Flights = appendFlight(m.Flights, state.Flight{Want: r.report.Want, Seen: r.report.Label, Sent: d.now()})
			tabs[r.report.TabID] = m
		}
	})
	if err := d.update(applyAll(w.muts)); err != nil {
		return err
	}
	w.muts = nil
	return nil
}

// saveAfterRenames saves what the renames did and prunes tabs that left
// the session (present nil: no pruning).
func (d *Daemon) saveAfterRenames(w *stateWrites, present map[string]bool) {
	d.saveState(w.muts, present)
	w.muts = nil
}
