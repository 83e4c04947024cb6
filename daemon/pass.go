package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// TabReport is everything a pass decided about one tab: what `explain`
// shows and what `once` and the dry run print.
type TabReport struct {
	TabID     string `json:"tab_id"`
	Workspace string `json:"workspace_id"`
	Label     string `json:"label"`
	Want      string `json:"want"`
	Verdict   string `json:"verdict"` // Judged, as shown
	// Judged is whose the label is; zero (namer.Human) when the pass did
	// not judge it.
	Judged     namer.Verdict     `json:"-"`
	Action     string            `json:"action"` // renamed, would rename, keep, failed
	Lead       string            `json:"lead_pane,omitempty"`
	LeadWhy    string            `json:"lead_why,omitempty"`
	Program    string            `json:"program,omitempty"`
	ProgramWhy string            `json:"program_why,omitempty"`
	Rule       string            `json:"rule,omitempty"`
	Tokens     map[string]string `json:"tokens"`
	Error      string            `json:"error,omitempty"`
}

// judge records whose the tab's label is.
func (r *TabReport) judge(v namer.Verdict) { r.Verdict, r.Judged = v.String(), v }

// Actions a pass takes on a tab.
const (
	ActionRenamed     = "renamed"
	ActionWouldRename = "would rename"
	ActionKeep        = "keep"
	ActionFailed      = "failed"
)

// PassStats counts the socket work of one pass, for the figures the
// daemon is judged by (connections per idle pass: 1; process_info: 0).
type PassStats struct {
	ProcessInfoCalls int
	Renames          int
	// Hedges counts reads that went out a second time because the first
	// was late (docs/herdr.md §2); only passes someone waits for hedge.
	Hedges int
	// LocalReads counts programs read from this machine's /proc instead
	// of asking herdr (the pane's shell is ours to look at).
	LocalReads int
}

// paneProc caches what we learnt of a pane's foreground program. It is a
// fact only while the shell's foreground group stays the same: herdr's
// revision does not move on program changes (PROTOCOL.md §7).
type paneProc struct {
	shellPID int
	pgid     int
	prog     procinfo.Program
	// localOK: our own look at the shell's tpgid agreed with herdr's
	// answer, so the local check can stand in for a socket call.
	localOK bool
	// revision is the pane's revision when herdr answered. Where the local
	// check cannot run, a moved revision (the shell retitled the pane) is
	// the sign the program may have changed.
	revision uint64
	// asked is when herdr answered: unverifiable answers are refreshed
	// oldest first.
	asked time.Time
	// fgCwd is the pane's foreground_cwd when the answer was got. herdr
	// reads it from the foreground process, so when it moves, so may the
	// program: an answer from before must not be paired with it.
	fgCwd string
	// pgSince is when the group pgid was first seen in front.
	pgSince time.Time
}

// maybeFork says whether the cached answer may be the shell's fork before
// it execs the program typed: a group of its own that a shell leads, last
// looked at within forkExecWindow of its appearance. Such an answer is no
// fact yet: passes look again until an answer from later confirms it (a
// nested shell) or names the program.
func (c *paneProc) maybeFork() bool {
	return c.pgid != c.shellPID && c.prog.Name == "" && c.asked.Sub(c.pgSince) < forkExecWindow
}

// sinceFor is when group pg was first seen in front, by the cache c (nil
// for none) and now.
func (c *paneProc) sinceFor(pg int, now time.Time) time.Time {
	if c != nil && c.pgid == pg && !c.pgSince.IsZero() {
		return c.pgSince
	}
	return now
}

// passInput narrows what a pass must re-check.
type passInput struct {
	// forced panes were nudged: ask herdr for their program whatever the
	// cache says.
	forced map[string]bool
	// onlyTab, when set, limits the reports (explain TAB_ID); the pass
	// still reads the whole session.
	onlyTab string
	// plan: decide but never rename or save (explain).
	plan bool
	// urgent: someone waits for this pass (a nudge, event news), so a late
	// read may go out twice, and no pane is asked about without a sign of
	// change (its rename would wait on the answer). Poll ticks and
	// resyncs are not urgent: they refresh, and never hedge, so an idle
	// pass stays one connection.
	urgent bool
	// snap, when set, is a snapshot taken for this pass moments ago (while
	// a preexec nudge waited for its program): the pass uses it instead of
	// asking again.
	snap   *herdr.Snapshot
	snapAt time.Time // when snap was asked for
	// agentPoll: the status poll, for agents' statuses alone; it asks
	// herdr about no program.
	agentPoll bool
}

// pass reads the session once and brings every tab in scope to its wanted
// name. It returns reports for the tabs in scope.
func (d *Daemon) pass(ctx context.Context, in passInput) ([]TabReport, PassStats, error) {
	if !in.urgent {
		ctx = herdr.WithoutHedge(ctx)
	}
	before := d.hedged()
	reps, stats, err := d.readAndRename(ctx, in)
	stats.Hedges = int(d.hedged() - before)
	return reps, stats, err
}

// hedged is how many reads the client sent twice so far.
func (d *Daemon) hedged() uint64 {
	return d.client.HedgeStats().Hedged
}

// escapeText makes the free-text fields safe to print: they quote argv,
// folder names and herdr's errors, which programs and people control, and
// `explain` and the dry run print them as they are. Label, Want and Tokens
// stay exact (they are data, printed quoted).
func (r *TabReport) escapeText() {
	for _, s := range []*string{&r.Program, &r.ProgramWhy, &r.Rule, &r.LeadWhy, &r.Error} {
		*s = escapeControls(*s)
	}
}

// escapeControls writes control and invisible format characters as Go
// escapes (\x1b, \u200b) so none reaches a terminal.
func escapeControls(s string) string {
	if !strings.ContainsFunc(s, isUnsafeRune) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !isUnsafeRune(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			fmt.Fprintf(&b, "\\u%04x", r)
		}
	}
	return b.String()
}

func isUnsafeRune(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError
}

// Outcomes of one rename.
type renameOutcome int

const (
	renameNotSent  renameOutcome = iota // kept, deferred or refused before sending
	renameRefused                       // herdr answered no
	renameInFlight                      // sent, no answer: it may still land
	renameDone
	// renameLanded: not sent, because the re-read found the tab already
	// showing the label wanted, ours to set (a killed daemon's rename of
	// it, still pending, landed during the pass).
	renameLanded
	// renameLockedBack: sent and applied, but a lock came while it was on
	// its way, and the label the lock kept was put back.
	renameLockedBack
)

// recheck is what the look at a tab right before renaming it decides.
type recheck int

const (
	recheckRename recheck = iota // rename it as the pass decided
	recheckKeep                  // leave it: a person's name, a lock, gone
	recheckLanded                // it already shows the wanted label, ours
)

// renameWorkers bounds concurrent renames: a first pass over a big session
// renames thousands of tabs, each a re-read and a rename.
const renameWorkers = 8

// renameAll re-checks and renames the rows' tabs, concurrently, and sets
// each row's outcome. When the pass's deadline comes near, tabs not
// started yet are left for the next pass rather than cut off mid-request
// (which would read as herdr being gone). It returns the first error after
// which nothing more can be sent.
func (d *Daemon) renameAll(ctx context.Context, rows []*row, young bool) error {
	if len(rows) == 0 {
		return nil
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu   sync.Mutex // guards d.state, d.last and gone
		gone error
		next int
		wg   sync.WaitGroup
	)
	take := func() (*row, bool) {
		mu.Lock()
		defer mu.Unlock()
		if gone != nil || next == len(rows) {
			return nil, false
		}
		next++
		return rows[next-1], true
	}
	for range min(renameWorkers, len(rows)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				r, ok := take()
				if !ok {
					return
				}
				if dl, ok := rctx.Deadline(); rctx.Err() != nil || ok && time.Until(dl) < renameMargin {
					r.report.Action, r.report.Error = ActionKeep, "deferred to the next pass: this one ran out of time"
					continue
				}
				out, err := d.renameOne(rctx, &mu, &r.report, r.decision, young)
				r.outcome = out
				// The pass's own deadline cutting a request is no outage.
				if err != nil && herdr.IsServerGone(err) && ctx.Err() == nil {
					mu.Lock()
					if gone == nil {
						gone = err
					}
					mu.Unlock()
					cancel()
				}
			}
		}()
	}
	wg.Wait()
	return gone
}

// renameOne re-checks one tab and renames it. mu guards the daemon's
// state while workers run.
func (d *Daemon) renameOne(ctx context.Context, mu *sync.Mutex, rep *TabReport, dec namer.Decision, young bool) (renameOutcome, error) {
	switch rc, err := d.recheck(ctx, mu, rep, dec, young); {
	case err != nil:
		rep.Action, rep.Error = ActionFailed, err.Error()
		return renameNotSent, err
	case rc == recheckKeep:
		return renameNotSent, nil
	case rc == recheckLanded:
		return renameLanded, nil
	}
	_, err := d.client.RenameTab(ctx, rep.TabID, rep.Want)
	d.renamed(err)
	if err != nil {
		rep.Action, rep.Error = ActionFailed, err.Error()
		if herdr.IsServerGone(err) || ctx.Err() != nil {
			// Cut off, not refused: herdr may still apply it.
			return renameInFlight, err
		}
		if herdr.IsCode(err, "tab_not_found") {
			d.log.Debug("tab vanished before rename", "tab", rep.TabID)
		} else {
			d.log.Warn("rename failed", "tab", rep.TabID, "want", rep.Want, "err", err)
		}
		return renameRefused, nil
	}
	rep.Action = ActionRenamed
	if d.putBackLock(ctx, mu, rep) {
		return renameLockedBack, nil
	}
	return renameDone, nil
}

// putBackLock closes the window after the pass's last look at the state
// file: a lock written while the rename was on its way is on disk by the
// time herdr answers, and the label the tab showed when it was locked
// goes back. lock itself puts it back when the rename lands after its
// own look (setTabFlags). It reports whether the label went back.
func (d *Daemon) putBackLock(ctx context.Context, mu *sync.Mutex, rep *TabReport) bool {
	mu.Lock()
	if err := d.state.Refresh(); err != nil {
		d.log.Warn("state file", "err", err)
	}
	mem := d.state.Tabs[rep.TabID]
	mu.Unlock()
	if !mem.Locked || mem.LockedLabel == "" || mem.LockedLabel == rep.Want {
		return false
	}
	if _, err := d.client.RenameTab(ctx, rep.TabID, mem.LockedLabel); err != nil {
		d.log.Warn("could not put back a locked tab's label", "tab", rep.TabID, "label", mem.LockedLabel, "err", err)
		return false
	}
	d.log.Info("the tab was locked while it was renamed; put its label back", "tab", rep.TabID, "label", mem.LockedLabel)
	mu.Lock()
	d.noteLabel(rep.TabID, mem.LockedLabel)
	mu.Unlock()
	rep.Action, rep.Label = ActionKeep, mem.LockedLabel
	return true
}

// recheck looks at the tab again right before renaming it: the label the
// pass decided on came from a snapshot that may be many requests old, and
// a person's rename or a lock in between must win, while a rename of ours
// that landed in between (a killed daemon's) is ours to keep.
//
// What remains is the flight of the tab.rename request itself (one
// round trip, plus herdr's request-read poll, docs/herdr.md §2): herdr has
// no conditional rename. checkOverwrite closes that from the event stream
// where it can.
func (d *Daemon) recheck(ctx context.Context, mu *sync.Mutex, rep *TabReport, dec namer.Decision, young bool) (recheck, error) {
	var got struct {
		Tab *herdr.Tab `json:"tab"`
	}
	if young {
		// The pass's snapshot is the re-read (see renameAll's caller).
		got.Tab = &herdr.Tab{ID: rep.TabID, Label: rep.Label}
	} else if err := d.client.Call(ctx, "tab.get", map[string]string{"tab_id": rep.TabID}, &got); err != nil {
		if herdr.IsCode(err, "tab_not_found") {
			rep.Action = ActionKeep
			d.log.Debug("tab vanished before rename", "tab", rep.TabID)
			return recheckKeep, nil
		}
		return recheckRename, fmt.Errorf("re-read tab %s before renaming: %w", rep.TabID, err)
	}
	if got.Tab == nil {
		return recheckRename, fmt.Errorf("re-read tab %s before renaming: reply has no tab", rep.TabID)
	}
	mu.Lock()
	defer mu.Unlock()
	// A lock taken since the pass began is on disk only.
	if err := d.state.Refresh(); err != nil {
		d.log.Warn("state file", "err", err)
	}
	mem := d.state.Tabs[rep.TabID]
	label := got.Tab.Label
	if label == rep.Label && !mem.Locked {
		return recheckRename, nil
	}
	verdict := dec.Judge(label, memoryOf(mem, d.now()), d.opt.Force)
	if verdict.MayRename() {
		rep.Label = label
		rep.judge(verdict)
		if label != rep.Want {
			return recheckRename, nil
		}
		rep.Action = ActionKeep
		d.noteLabel(rep.TabID, label)
		return recheckLanded, nil
	}
	d.log.Info("label changed during the pass; keeping it", "tab", rep.TabID,
		"was", rep.Label, "now", label, "verdict", verdict.String())
	rep.Label, rep.Action = label, ActionKeep
	rep.judge(verdict)
	d.noteLabel(rep.TabID, label)
	return recheckKeep, nil
}

// dropPending forgets a rename that was not sent or that herdr refused.
func dropPending(id, label string) func(map[string]state.TabMemory) {
	return func(tabs map[string]state.TabMemory) {
		if m, ok := tabs[id]; ok {
			m.Pending = m.Pending.Remove(label)
			m.Flights = dropFlight(m.Flights, label)
			tabs[id] = m
		}
	}
}

// dropSavedFlight forgets a rename's saved flight, its fate known.
func dropSavedFlight(id, label string) func(map[string]state.TabMemory) {
	return func(tabs map[string]state.TabMemory) {
		if m, ok := tabs[id]; ok {
			m.Flights = dropFlight(m.Flights, label)
			tabs[id] = m
		}
	}
}

// saveState applies the pass's changes and prunes tabs that left the
// session; it writes only when something changed.
func (d *Daemon) saveState(muts []func(map[string]state.TabMemory), present map[string]bool) {
	now := d.now()
	pruned := false
	if present != nil && d.opt.Workspace == "" {
		pruned = state.NeedsPrune(d.state.Tabs, present, now)
	}
	if len(muts) == 0 && !pruned {
		return
	}
	err := d.update(func(tabs map[string]state.TabMemory) {
		applyAll(muts)(tabs)
		if pruned {
			state.Prune(tabs, present, now)
		}
	})
	if err != nil {
		d.log.Warn("could not save state; keeping it in memory", "err", err)
	}
}

func anyForced(forced map[string]bool, panes []herdr.Pane) bool {
	if len(forced) == 0 {
		return false
	}
	for _, p := range panes {
		if forced[p.ID] {
			return true
		}
	}
	return false
}

// facts gathers the values namer cannot compute itself: the lead pane's
// program (from this pass's answers or the cache), ssh host, repo.
func (d *Daemon) facts(plan namer.Plan, answers map[string]procinfo.Program) (namer.Facts, procinfo.Program, bool) {
	var f namer.Facts
	var prog procinfo.Program
	known := true
	if plan.NeedsProc || plan.NeedsHost {
		prog, known = answers[plan.Lead.ID]
		if !known {
			if c := d.procs[plan.Lead.ID]; c != nil {
				// Not asked this pass (over budget) or no answer: the
				// last answer stands until herdr gives a new one.
				prog, known = c.prog, true
			}
		}
	}
	d.programFacts(&f, plan, prog)
	// Where Decide will name the tab from: the shell's directory when it
	// or a quick command is in front.
	at, _ := d.opt.Namer.Front(plan, f)
	if (at.NeedsRepo || at.NeedsBranch) && d.opt.Git != nil && at.Dir != "" {
		if info, ok := d.opt.Git.Lookup(at.Dir); ok {
			f.Repo, f.Branch, f.DefaultBranch = info.Repo, info.Branch, info.DefaultBranch
		}
	}
	return f, prog, known
}

// leadPane is a pane whose program a pass needs.
type leadPane struct {
	pane   herdr.Pane
	forced bool
}

// Gathering tuning: process_info is one connection per pane, and a big
// session whose pids we cannot see locally would otherwise spend every pass
// asking about every pane, cut by the pass timeout before renaming anything.
const (
	// gatherWorkers bounds concurrent process_info requests: herdr serves
	// each connection on its own, and its request-read poll (docs/herdr.md
	// §2) makes a lone request slow rather than the server busy.
	gatherWorkers = 16
	// refreshPerPass bounds how many answers that look current but cannot
	// be checked locally (their revision did not move, their pids are not
	// ours to look at) are asked again per poll pass, oldest first: a
	// shell that sets no title hides a program change from the revision.
	// Urgent passes (a nudge, event news) leave this to the poll.
	refreshPerPass = 8
)

// gatherScope says which panes a pass asks herdr about besides the
// nudged ones and those never asked.
type gatherScope struct {
	// refresh: also some panes with no sign of change (refreshPerPass);
	// poll passes only.
	refresh bool
	// nudged: the pass is for nudged panes, whose renames would wait on
	// every answer. A changed pane that is not among them keeps its last
	// answer until a pass of its own: the next poll, or sooner one that
	// its news brings (a title naming a new program nudges it).
	nudged bool
}

// gather asks herdr for the programs of the panes that need it, most
// needed first, concurrently and within the pass's gather budget, and
// returns the answers by pane id. A pane not answered keeps its cached
// program (facts uses it) or stays unknown.
func (d *Daemon) gather(ctx context.Context, leads []leadPane, scope gatherScope, stats *PassStats) map[string]procinfo.Program {
	answers := make(map[string]procinfo.Program, len(leads))
	asks := d.pickAsks(leads, scope, answers, stats)
	if len(asks) > 0 {
		d.askAll(ctx, asks, answers, stats)
	}
	return answers
}

// ask is a pane gather asks herdr about, and why.
type ask struct {
	pane herdr.Pane
	rank int // 0 nudged, 1 never asked, 2 changed, 3 refresh
	at   time.Time
}

// pickAsks answers what this machine's /proc can and what the cache may,
// and lists the panes to ask herdr about, most needed first.
func (d *Daemon) pickAsks(leads []leadPane, scope gatherScope, answers map[string]procinfo.Program, stats *PassStats) []ask {
	var asks, stale []ask
	for _, l := range leads {
		c := d.procs[l.pane.ID]
		if c != nil && c.localOK {
			// The shell is ours to look at: read the program from /proc
			// rather than asking herdr, nudged or not.
			if prog, ok := d.readLocal(l.pane, c, l.forced, stats); ok {
				answers[l.pane.ID] = prog
				continue
			}
		}
		moved := c != nil && c.fgCwd != l.pane.ForegroundCwd && !l.forced
		if moved {
			// The foreground process's folder moved: the program may
			// have changed with it, so the last answer is no fact now.
			delete(d.procs, l.pane.ID)
			c = nil
		}
		switch {
		case l.forced:
			asks = append(asks, ask{pane: l.pane, rank: 0})
		case moved && scope.nudged:
			// Not asked in a pass for other, nudged panes (their renames
			// would wait on it): the program stays unknown, and the name
			// is decided at the next pass, which asks.
		case c == nil:
			asks = append(asks, ask{pane: l.pane, rank: 1})
		case scope.nudged:
			// Another pane than the nudged ones: its last answer stands
			// (facts), see gatherScope.
		case c.localOK, c.revision != l.pane.Revision, c.maybeFork():
			asks = append(asks, ask{pane: l.pane, rank: 2})
		default:
			answers[l.pane.ID] = c.prog
			stale = append(stale, ask{pane: l.pane, rank: 3, at: c.asked})
		}
	}
	slices.SortStableFunc(asks, func(a, b ask) int { return a.rank - b.rank })
	if scope.refresh {
		slices.SortStableFunc(stale, func(a, b ask) int { return a.at.Compare(b.at) })
		asks = append(asks, stale[:min(len(stale), refreshPerPass)]...)
	}
	return asks
}

// askAll asks herdr for the programs of asks, concurrently and within the
// pass's gather budget, and records the answers.
func (d *Daemon) askAll(ctx context.Context, asks []ask, answers map[string]procinfo.Program, stats *PassStats) {
	budget := d.gatherBudget
	if budget <= 0 {
		budget = defaultGatherBudget
	}
	gctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	type reply struct {
		pane herdr.Pane
		pi   herdr.ProcessInfo
		err  error
	}
	work := make(chan herdr.Pane)
	replies := make(chan reply, len(asks))
	var wg sync.WaitGroup
	for range min(gatherWorkers, len(asks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range work {
				pi, err := d.client.ProcessInfo(gctx, p.ID)
				replies <- reply{pane: p, pi: pi, err: err}
			}
		}()
	}
feed:
	for _, a := range asks {
		select {
		case work <- a.pane:
			stats.ProcessInfoCalls++
			d.log.Debug("asking herdr for a program", "pane", a.pane.ID, "why", askWhy[a.rank])
		case <-gctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	close(replies)
	now := d.now()
	for r := range replies {
		if r.err != nil {
			if gctx.Err() == nil {
				d.log.Debug("process_info failed", "pane", r.pane.ID, "err", r.err)
			}
			continue
		}
		answers[r.pane.ID] = d.learn(r.pane, r.pi, now)
	}
}

// askWhy names gather's ranks in its debug lines.
var askWhy = [...]string{"nudged", "never asked", "changed", "refresh"}

// readLocal names a pane's program from this machine's /proc: the shell's
// foreground group, then its leader's command line. ok is false when that
// cannot be read (the shell is gone, the leader of a pipeline exited):
// herdr, which sees the whole group, is asked then.
func (d *Daemon) readLocal(pane herdr.Pane, c *paneProc, forced bool, stats *PassStats) (procinfo.Program, bool) {
	pg, err := d.opt.Inspector.ForegroundPGID(c.shellPID)
	if err != nil || pg <= 0 {
		return procinfo.Program{}, false
	}
	if pg == c.pgid && !forced && !c.maybeFork() {
		return c.prog, true
	}
	// Nudged: the same group may have exec'd another program.
	prog := d.opt.Procs.Program(herdr.ProcessInfo{PaneID: pane.ID, ShellPID: c.shellPID, ForegroundPGID: pg})
	if pg != c.shellPID && prog.Name == "" {
		return procinfo.Program{}, false
	}
	stats.LocalReads++
	now := d.now()
	c.pgSince = c.sinceFor(pg, now)
	c.pgid, c.prog, c.asked, c.fgCwd = pg, prog, now, pane.ForegroundCwd
	return prog, true
}

// learn turns a process_info answer into a program and caches it. An
// empty answer is never cached as a fact.
func (d *Daemon) learn(pane herdr.Pane, pi herdr.ProcessInfo, now time.Time) procinfo.Program {
	prog := d.opt.Procs.Program(pi)
	if pi.ShellPID == 0 && pi.ForegroundPGID == 0 {
		delete(d.procs, pane.ID)
		return prog
	}
	nc := &paneProc{shellPID: pi.ShellPID, pgid: pi.ForegroundPGID, prog: prog, revision: pane.Revision, asked: now, fgCwd: pane.ForegroundCwd,
		pgSince: d.procs[pane.ID].sinceFor(pi.ForegroundPGID, now)}
	if d.opt.Inspector != nil && pi.ShellPID > 0 {
		if pg, err := d.opt.Inspector.ForegroundPGID(pi.ShellPID); err == nil && pg == pi.ForegroundPGID {
			nc.localOK = true
		}
	}
	d.procs[pane.ID] = nc
	return prog
}

func whyLine(r TabReport) string {
	s := "lead " + r.LeadWhy
	if r.Program != "" {
		s += "; program " + r.Program
	}
	if r.Rule != "" {
		s += "; " + r.Rule
	}
	return s + "; label was " + r.Verdict
}

// logOutage is how the loop reports a server that went away: one line per
// outage, not one per failed pass.
func (d *Daemon) logOutage(err error) {
	if d.down {
		// Debug only: tests count these to know passes ran meanwhile.
		d.trace(Trace{Kind: TraceDownSkip}, "herdr still down; pass skipped", "err", err)
		return
	}
	d.down = true
	d.traceAt(slog.LevelWarn, Trace{Kind: TraceOutage}, "herdr is not reachable; waiting for it", "socket", d.client.SocketPath(), "err", err)
}

func (d *Daemon) logBack() {
	if !d.down {
		return
	}
	d.down = false
	d.traceAt(slog.LevelInfo, Trace{Kind: TraceBack}, "herdr is back", "socket", d.client.SocketPath())
}

// memoryOf turns what the state file holds into namer's view of it.
func memoryOf(m state.TabMemory, now time.Time) namer.Memory {
	return namer.Memory{Locked: m.Locked, Released: m.Released, Labels: m.OurLabels(now)}
}

func applyAll(muts []func(map[string]state.TabMemory)) func(map[string]state.TabMemory) {
	return func(tabs map[string]state.TabMemory) {
		for _, m := range muts {
			m(tabs)
		}
	}
}

// noteLabel updates the last snapshot after our own rename, so the
// tab.renamed echo herdr sends back reads as old news and costs no pass.
func (d *Daemon) noteLabel(tabID, label string) {
	if i, ok := d.lastTab[tabID]; ok {
		d.last.Tabs[i].Label = label
		d.seen.label(tabID, label)
	}
}

// setLast keeps the last snapshot and its indexes: events and renames
// look tabs and panes up by id, thousands of times in a big session.
func (d *Daemon) setLast(snap *herdr.Snapshot) {
	d.last = snap
	d.seen.observe(snap)
	d.lastTab = make(map[string]int, len(snap.Tabs))
	for i, t := range snap.Tabs {
		d.lastTab[t.ID] = i
	}
	d.lastPane = make(map[string]int, len(snap.Panes))
	for i, p := range snap.Panes {
		d.lastPane[p.ID] = i
	}
}
