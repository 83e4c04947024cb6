package pass

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/facts/gitinfo"
	"github.com/herdrtabrenamer/herdrtabrenamer/facts/glyphs"
	"github.com/herdrtabrenamer/herdrtabrenamer/facts/sshhosts"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
	"github.com/herdrtabrenamer/herdrtabrenamer/renamer"
	"github.com/herdrtabrenamer/herdrtabrenamer/sidebar"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// Config is what naming depends on: the daemon's options that say how
// tabs and workspaces are named. Namer and Procs are required.
type Config struct {
	Namer *namer.Namer
	// WorkspaceNamer names workspaces too (--workspace-format); nil: off.
	WorkspaceNamer *namer.Namer
	// PaneNamer names every pane of the tabs in scope too
	// (--pane-format, a namer built with namer.Config.Panes); nil: off.
	PaneNamer *namer.Namer
	// Sidebar, with SidebarTokens, gives every agent's pane the values
	// of those tokens for herdr's sidebar (package sidebar): a namer
	// built with namer.Config.Panes and sidebar.Format; nil: off.
	Sidebar       *namer.Namer
	SidebarTokens []string
	Procs         *procinfo.Resolver
	// Inspector reads this machine's processes: a local shell's
	// terminal is looked at through it (procinfo.Prober) instead of
	// asking herdr. nil: always ask herdr.
	Inspector    procinfo.Inspector
	Git          *gitinfo.Cache
	SSH          *sshhosts.Aliases
	Glyphs       *glyphs.Table // nil: the built-in table
	Apply, Force bool
	Unique       bool
	// IndexPrefixAll puts the tab position in front of people's labels
	// too.
	IndexPrefixAll bool
	Workspace      string // only this workspace; "": all
	// Settle is how long a new program must run before it names its tab
	// (--settle; 0: at once).
	Settle time.Duration
	// LocalWatch follows the shells of lead panes on this machine through
	// the kernel (package procwatch): a program's start and exit and a cd
	// name their tabs at once, without hooks. Agents' lead panes are then
	// asked about even when no name needs their program, to learn
	// whether their shells are local.
	LocalWatch bool
}

// Asker is what a pass asks herdr besides the snapshot it is given:
// *herdr.Client.
type Asker interface {
	ProcessInfo(ctx context.Context, paneID string) (herdr.ProcessInfo, error)
}

// Titles gives lead panes their agent session's title ({session}), and
// says where it was read, or why there is none: *session.Sessions.
type Titles interface {
	Titles(panes []herdr.Pane) map[string]string
	Why(paneID string) string
	Prune(live map[string]bool)
}

// Planner plans passes, and keeps what outlives one: what is known of
// each pane's program. One goroutine at a time may call it (the daemon's
// loop, or a command).
type Planner struct {
	cfg    Config
	herdr  Asker
	titles Titles
	local  Local
	progs  progCache
	now    func() time.Time
	log    *slog.Logger
	// GatherBudget bounds the time a pass spends asking for programs (0:
	// defaultGatherBudget); tests shorten it.
	GatherBudget time.Duration
}

// New makes a Planner. local may be nil (no shell is proven local, no
// watch looks), and so may log and now.
func New(cfg Config, ask Asker, titles Titles, local Local, now func() time.Time, log *slog.Logger) *Planner {
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Planner{cfg: cfg, herdr: ask, titles: titles, local: local, progs: newProgCache(), now: now, log: log}
}

// Reconfigure takes a reloaded configuration. Cached programs were named
// with the old aliases and rewrites, so they go.
func (p *Planner) Reconfigure(cfg Config) {
	p.cfg = cfg
	p.progs.reset()
}

// Config is the configuration the Planner names with.
func (p *Planner) Config() Config { return p.cfg }

// ShowsStatus says whether an agent's status can change a tab's or a
// workspace's name.
func (c Config) ShowsStatus() bool {
	return c.Namer.UsesStatus() || c.WorkspaceNamer != nil && c.WorkspaceNamer.UsesStatus()
}

// Forced says whether a person's label is ours to replace (--force).
func (p *Planner) Forced() bool { return p.cfg.Force }

// Input is what a pass starts from.
type Input struct {
	Snap   *herdr.Snapshot
	SnapAt time.Time // when Snap was asked for
	First  bool      // the first snapshot of the daemon's life
	// Forced panes were nudged: their program is asked for whatever the
	// cache says.
	Forced map[string]bool
	// OnlyTab, when set, limits the pass to one tab (explain TAB_ID);
	// OnlyPane to one pane and its tab (explain --pane).
	OnlyTab, OnlyPane string
	// ReadOnly: decide but never rename or save (explain).
	ReadOnly bool
	// Urgent: someone waits for this pass (a nudge, event news), so no
	// pane is asked about without a sign of change.
	Urgent bool
	// AgentPoll: the status poll, for agents' statuses alone; it asks
	// herdr about no program.
	AgentPoll bool
}

// Plan is what a pass decided: a row per tab in scope, the renames to
// send and what the memory learns, in the order the renamer takes them.
type Plan struct {
	Rows []*Row
	// Panes are the pane rows, when panes are named; their renames are
	// in Renames after the tabs'.
	Panes   []*PaneRow
	Renames []*renamer.Rename
	Edits   state.Edits
	// Workspaces are the workspace names a dry run would give.
	Workspaces []WorkspaceDecision
	// Sidebar is what each pane's sidebar should show: with sidebar
	// tokens on, every pane of the tabs in scope whose facts are known;
	// with them off, the panes that still show tokens of ours, to clear.
	Sidebar []sidebar.Pane
	// Shells are the panes whose shells are proven to run here after
	// this pass, by pane id: what the local watch watches.
	Shells    map[string]procinfo.Shell
	Stats     Stats
	positions map[string]int
}

// Row is one tab's way through a pass.
type Row struct {
	Tab      herdr.Tab
	plan     namer.Plan
	forced   bool // a pane of it was nudged
	decision namer.Decision
	Report   Report
	Rename   *renamer.Rename // what the renamer sends for it; nil: nothing
}

// view is the snapshot indexed for the phases.
type view struct {
	Input
	workspace map[string]herdr.Workspace
	panes     map[string][]herdr.Pane // by tab id, in layout order
	positions map[string]int          // by tab id, 1-based
	present   map[string]bool         // every tab id in the session
	// movedFrom are the panes herdr gave a new id, by it: the id the
	// memory holds them under (followPanes).
	movedFrom map[string]string
}

// Plan runs a pass's phases over in.Snap:
//
//	plan    a row per tab: its lead pane, and which facts its name needs
//	gather  the programs and agent session titles the plans need
//	decide  each row's wanted name and its report (what explain shows)
//	judge   whose each label is, and so what to do: keep, rename, prefix
//
// Each phase reads what the ones before wrote into the rows. mem is read,
// never changed: what it learns is in Plan.Edits.
func (p *Planner) Plan(ctx context.Context, in Input, mem *state.State) *Plan {
	v := p.index(in)
	pl := &Plan{positions: v.positions}
	pl.Rows = p.planRows(v)
	pl.Panes = p.planPanes(v, pl.Rows)
	side := p.planSidebar(v, pl.Rows)
	leads := paneLeads(paneLeads(p.leadsOf(v, pl.Rows), pl.Panes), side)
	answers := p.gather(ctx, leads, gatherScope{refresh: !in.Urgent && !in.AgentPoll, nudged: len(in.Forced) > 0}, &pl.Stats)
	titles := map[string]string{}
	if p.titles != nil {
		titles = p.titles.Titles(sessionLeads(pl.Rows, append(side, pl.Panes...)))
	}
	p.decide(v, pl.Rows, answers, titles)
	p.decidePanes(v, pl.Panes, answers, titles)
	pl.Sidebar = append(p.decideSidebar(v, side, answers, titles), p.offSidebar(v, pl.Rows)...)
	p.judge(v, pl, mem)
	p.followPanes(v, pl, mem)
	p.judgePanes(v, pl, mem)
	p.workspaces(v, pl, answers, mem)
	p.prune(v, pl, mem)
	p.prunePanes(v, pl, mem)
	pl.Shells = p.localShells()
	return pl
}

// index indexes the snapshot and drops what is cached of panes gone.
func (p *Planner) index(in Input) *view {
	v := &view{Input: in}
	v.workspace = make(map[string]herdr.Workspace, len(in.Snap.Workspaces))
	for _, w := range in.Snap.Workspaces {
		v.workspace[w.ID] = w
	}
	v.panes = make(map[string][]herdr.Pane, len(in.Snap.Tabs))
	live := make(map[string]bool, len(in.Snap.Panes))
	for _, pn := range in.Snap.Panes {
		v.panes[pn.TabID] = append(v.panes[pn.TabID], pn)
		live[pn.ID] = true
	}
	if in.OnlyPane != "" {
		// One pane alone (explain --pane): its tab is the one row. A pane
		// id is no tab's, so a pane not in the session leaves no row.
		v.OnlyTab = in.OnlyPane
		for _, pn := range in.Snap.Panes {
			if pn.ID == in.OnlyPane {
				v.OnlyTab = pn.TabID
			}
		}
	}
	v.positions = namer.Positions(in.Snap.Tabs)
	v.present = make(map[string]bool, len(in.Snap.Tabs))
	for _, t := range in.Snap.Tabs {
		v.present[t.ID] = true
	}
	p.progs.prune(live)
	if p.titles != nil {
		p.titles.Prune(live)
	}
	return v
}

// planRows makes a row for every tab in scope (--workspace, explain's one
// tab) that has panes.
func (p *Planner) planRows(v *view) []*Row {
	var rows []*Row
	for _, tab := range v.Snap.Tabs {
		if p.cfg.Workspace != "" && tab.WorkspaceID != p.cfg.Workspace {
			continue
		}
		if v.OnlyTab != "" && tab.ID != v.OnlyTab {
			continue
		}
		panes := v.panes[tab.ID]
		if len(panes) == 0 {
			continue
		}
		plan := p.cfg.Namer.Plan(tab, v.workspace[tab.WorkspaceID], panes)
		rows = append(rows, &Row{Tab: tab, plan: plan, forced: anyForced(v.Forced, panes)})
	}
	return rows
}

// leadsOf lists the lead panes whose program the rows' names need, and,
// for the local watch, every lead pane never asked about (a name of
// directories alone follows a cd only where the watch sees the shell),
// and every agent's pane whose shell is not known to run here yet, the
// lead's or not: the watch sees an agent read its prompt, after which
// its status changes, and an agent it does not watch keeps the status
// poll going.
func (p *Planner) leadsOf(v *view, rows []*Row) []leadPane {
	var leads []leadPane
	for _, r := range rows {
		lead := r.plan.Lead
		if r.plan.NeedsProc || r.plan.NeedsHost || p.unasked(lead) {
			leads = append(leads, leadPane{pane: lead, forced: r.forced})
		}
		for _, pn := range v.panes[r.Tab.ID] {
			if pn.ID != lead.ID && pn.Agent != "" && p.unasked(pn) {
				leads = append(leads, leadPane{pane: pn, forced: r.forced})
			}
		}
	}
	return leads
}

// unasked: for the local watch, pn's shell has not been asked about yet.
// Once asked, it is proven local or not; a pane proven elsewhere is not
// asked again at every pass.
func (p *Planner) unasked(pn herdr.Pane) bool {
	return p.cfg.LocalWatch && p.progs.of(pn.ID) == nil
}

// sessionLeads lists the panes whose agent session title a name needs
// ({session}): tabs' lead panes, and panes named themselves, each once.
func sessionLeads(rows []*Row, panes []*PaneRow) []herdr.Pane {
	var leads []herdr.Pane
	listed := map[string]bool{}
	for _, r := range rows {
		if r.plan.NeedsSession {
			leads = append(leads, r.plan.Lead)
			listed[r.plan.Lead.ID] = true
		}
	}
	for _, pn := range paneSessionLeads(panes) {
		if !listed[pn.ID] {
			leads = append(leads, pn)
			listed[pn.ID] = true
		}
	}
	return leads
}

// decide renders each row's wanted name from its facts and fills its
// report. A name whose program is unknown or not settled yet is no name:
// the tab is decided again at a later pass.
func (p *Planner) decide(v *view, rows []*Row, answers map[string]procinfo.Program, titles map[string]string) {
	now := p.now()
	for _, r := range rows {
		facts, prog, known := p.facts(r.plan, answers)
		facts.Session = titles[r.plan.Lead.ID]
		facts.Index = v.positions[r.Tab.ID]
		var wait time.Duration
		if known && (r.plan.NeedsProc || r.plan.NeedsHost) && p.cfg.Settle > 0 {
			p.progs.sight(r.plan.Lead.ID, prog.Name, now, v.First)
			wait = p.progs.unsettled(r.plan.Lead.ID, p.cfg.Settle, now)
		}
		r.decision = p.cfg.Namer.Decide(r.plan, facts)
		r.Report = Report{
			TabID: r.Tab.ID, Workspace: r.Tab.WorkspaceID, Label: r.Tab.Label, Want: r.decision.Want,
			Lead: r.plan.Lead.ID, LeadWhy: r.plan.LeadWhy, Program: prog.Name, ProgramWhy: prog.Why,
			Tokens: r.decision.Values,
		}
		if r.decision.Rule != nil {
			r.Report.Rule = r.decision.Rule.String()
		}
		if r.plan.NeedsSession && p.titles != nil {
			if why := p.titles.Why(r.plan.Lead.ID); facts.Session == "" {
				r.Report.SessionWhy = why
			} else {
				r.Report.SessionFrom = why
			}
		}
		if !known || wait > 0 {
			// One lost process_info reply must not flip a tab running vim
			// to its directory and back: decide again next pass.
			r.Report.ProgramWhy = unknownWhy(known, wait, r.Report.ProgramWhy)
			r.decision.Want, r.Report.Want = "", ""
		}
	}
	if p.cfg.Unique {
		p.uniqueNames(rows)
	}
}

// unknownWhy says why a name whose program is unknown, or not settled
// yet, waits for a later pass.
func unknownWhy(known bool, wait time.Duration, why string) string {
	if !known {
		return "unknown: herdr did not answer pane.process_info"
	}
	return why + fmt.Sprintf("; new, named after --settle (in %v)", wait.Round(time.Millisecond))
}

// uniqueNames tells same-named tabs of a workspace apart (--unique).
func (p *Planner) uniqueNames(rows []*Row) {
	items := make([]namer.UniqueItem, len(rows))
	for i, r := range rows {
		items[i] = namer.UniqueItem{TabID: r.Tab.ID, Workspace: r.Tab.WorkspaceID, Name: r.decision.Want, Dir: r.plan.Dir}
	}
	for i, name := range p.cfg.Namer.Unique(items) {
		rows[i].decision.Want, rows[i].Report.Want = name, name
	}
}

// SettleDue is when the next program waiting for --settle may name its
// tab (zero when none waits): the daemon runs a pass then.
func (p *Planner) SettleDue() time.Time { return p.progs.settleDue(p.cfg.Settle, p.now()) }

// Want is the name a tab would get from panes with the facts already
// known, asking no one: what event triage weighs an event by.
func (p *Planner) Want(tab herdr.Tab, ws herdr.Workspace, panes []herdr.Pane) string {
	plan := p.cfg.Namer.Plan(tab, ws, panes)
	facts, _, _ := p.facts(plan, nil)
	return p.cfg.Namer.Decide(plan, facts).Want
}
