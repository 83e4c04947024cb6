package pass

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// paneProc caches what we learnt of a pane's foreground program. It is a
// fact only while the shell's foreground group stays the same: herdr's
// revision does not move on program changes (PROTOCOL.md §7).
type paneProc struct {
	shellPID int
	pgid     int
	prog     procinfo.Program
	// localOK: the shell is proven a process here (Local.Prove), so a
	// look at its terminal stands in for a socket call.
	localOK bool
	// front is the last look at the shell's terminal that named prog.
	front procinfo.Front
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
func (p *Planner) facts(plan namer.Plan, answers map[string]procinfo.Program) (namer.Facts, procinfo.Program, bool) {
	var f namer.Facts
	var prog procinfo.Program
	known := true
	if plan.NeedsProc || plan.NeedsHost {
		prog, known = answers[plan.Lead.ID]
		if !known {
			if c := p.progs.of(plan.Lead.ID); c != nil {
				// Not asked this pass (over budget) or no answer: the
				// last answer stands until herdr gives a new one.
				prog, known = c.prog, true
			}
		}
	}
	p.programFacts(&f, plan, prog)
	// Where Decide will name the tab from: the shell's directory when it
	// or a quick command is in front.
	at, _ := p.cfg.Namer.Front(plan, f)
	if (at.NeedsRepo || at.NeedsBranch) && p.cfg.Git != nil && at.Dir != "" {
		if info, ok := p.cfg.Git.Lookup(at.Dir); ok {
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
	// RefreshPerPass bounds how many answers that look current but cannot
	// be checked locally (their revision did not move, their pids are not
	// ours to look at) are asked again per poll pass, oldest first: a
	// shell that sets no title hides a program change from the revision.
	// Urgent passes (a nudge, event news) leave this to the poll.
	RefreshPerPass = 8
)

// gatherScope says which panes a pass asks herdr about besides the
// nudged ones and those never asked.
type gatherScope struct {
	// refresh: also some panes with no sign of change (RefreshPerPass);
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
func (p *Planner) gather(ctx context.Context, leads []leadPane, scope gatherScope, stats *Stats) map[string]procinfo.Program {
	answers := make(map[string]procinfo.Program, len(leads))
	asks := p.pickAsks(leads, scope, answers, stats)
	if len(asks) > 0 {
		p.askAll(ctx, asks, answers, stats)
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
func (p *Planner) pickAsks(leads []leadPane, scope gatherScope, answers map[string]procinfo.Program, stats *Stats) []ask {
	var asks, stale []ask
	for _, l := range leads {
		c := p.progs.of(l.pane.ID)
		if c != nil && c.localOK {
			// The shell is ours to look at: read the program from /proc
			// rather than asking herdr, nudged or not.
			if prog, ok := p.readLocal(l.pane, c, l.forced, stats); ok {
				answers[l.pane.ID] = prog
				continue
			}
		}
		moved := c != nil && c.fgCwd != l.pane.ForegroundCwd && !l.forced
		if moved {
			// The foreground process's folder moved: the program may
			// have changed with it, so the last answer is no fact now.
			p.progs.forget(l.pane.ID)
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
		asks = append(asks, stale[:min(len(stale), RefreshPerPass)]...)
	}
	return asks
}

// askAll asks herdr for the programs of asks, concurrently and within the
// pass's gather budget, and records the answers.
func (p *Planner) askAll(ctx context.Context, asks []ask, answers map[string]procinfo.Program, stats *Stats) {
	budget := p.GatherBudget
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
			for pn := range work {
				pi, err := p.herdr.ProcessInfo(gctx, pn.ID)
				replies <- reply{pane: pn, pi: pi, err: err}
			}
		}()
	}
feed:
	for _, a := range asks {
		select {
		case work <- a.pane:
			stats.ProcessInfoCalls++
			p.log.Debug("asking herdr for a program", "pane", a.pane.ID, "why", askWhy[a.rank])
		case <-gctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	close(replies)
	now := p.now()
	for r := range replies {
		if r.err != nil {
			if gctx.Err() == nil {
				p.log.Debug("process_info failed", "pane", r.pane.ID, "err", r.err)
			}
			continue
		}
		answers[r.pane.ID] = p.learn(r.pane, r.pi, now)
	}
}

// askWhy names gather's ranks in its debug lines.
var askWhy = [...]string{"nudged", "never asked", "changed", "refresh"}

// readLocal names a pane's program from one look at its local shell's
// terminal: the process in front, a wrapper's newest child, an exec'd
// shell (procinfo.Front), the shell's fork before its exec (no program
// yet, looked at again: maybeFork), a nested shell (no program either).
// ok is false when that cannot be read (the shell is gone, the leader of
// a pipeline exited): herdr, which sees the whole group, is asked then.
// Nudged, the look is a new one.
func (p *Planner) readLocal(pane herdr.Pane, c *paneProc, forced bool, stats *Stats) (procinfo.Program, bool) {
	f, err := p.front(pane.ID, c.shellPID, forced || c.maybeFork(), c.front.At)
	if err != nil || f.PGID <= 0 || f.ShellPID != c.shellPID {
		return procinfo.Program{}, false
	}
	if f.Equal(c.front) && !forced && !c.maybeFork() {
		return c.prog, true
	}
	prog := p.cfg.Procs.FromFront(f)
	if f.PGID != c.shellPID && prog.Name == "" && !f.LeaderKnown() {
		return procinfo.Program{}, false
	}
	stats.LocalReads++
	now := p.now()
	c.pgSince = c.sinceFor(f.PGID, now)
	c.pgid, c.prog, c.asked, c.fgCwd, c.front = f.PGID, prog, now, pane.ForegroundCwd, f
	return prog, true
}

// learn turns a process_info answer into a program and caches it. An
// empty answer is never cached as a fact.
func (p *Planner) learn(pane herdr.Pane, pi herdr.ProcessInfo, now time.Time) procinfo.Program {
	prog := p.cfg.Procs.Program(pi)
	if pi.ShellPID == 0 && pi.ForegroundPGID == 0 {
		p.progs.forget(pane.ID)
		return prog
	}
	nc := &paneProc{shellPID: pi.ShellPID, pgid: pi.ForegroundPGID, prog: prog, revision: pane.Revision, asked: now, fgCwd: pane.ForegroundCwd,
		pgSince: p.progs.of(pane.ID).sinceFor(pi.ForegroundPGID, now)}
	if pi.ShellPID > 0 && p.local != nil {
		nc.localOK = p.local.Prove(pi.ShellPID)
	}
	p.progs.put(pane.ID, nc)
	return prog
}
