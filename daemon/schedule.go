package daemon

import (
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/triage"
)

// The schedule: when passes run. News runs one at its edge and waits out
// a debounce window (edge); nudges run one each, spaced by nudgeGap; a
// preexec nudge's wait reads the session ahead, spaced the same; a new
// program under --settle gets the pass that names it when it matures;
// and two polls catch what nothing tells. Like edge, schedule holds no
// clock and no timer: the loop owns its timers, tells schedule what
// happened and when, and sets them as it answers, which keeps the rules
// testable without sleeping.

// schedule is the loop's account of when to run passes.
type schedule struct {
	edge edge
	// forced are panes nudged since the last nudge pass, which ran at
	// lastNudgePass.
	forced        map[string]bool
	lastNudgePass time.Time
	// waits are the panes whose preexec wait for a program runs, and
	// lastReadAhead when one last read the session ahead of its pass:
	// read-aheads are spaced like nudge passes.
	waits         map[string]bool
	lastReadAhead time.Time
	// settleAt is when the pass --settle asked for runs (zero: none).
	settleAt time.Time
	// hookSeen is when the plugin's event hook last nudged us about an
	// agent's status: while it vouches for the hook, statuses need no
	// poll. agentInput is when the local watch last saw an agent's
	// terminal read input.
	hookSeen, agentInput time.Time
	// lag follows the subscription's pane.updated: while it lags (or is
	// left out) the full poll runs every triage.AnswerPoll at least.
	lag triage.Lag
}

func newSchedule() schedule {
	return schedule{forced: map[string]bool{}, waits: map[string]bool{}}
}

// nudged notes a nudge for pane at now, and says in how long the pass for
// it runs: at once (0), unless the last nudge pass was under nudgeGap ago,
// and then one pass at the end of the gap serves every pane nudged
// meanwhile. Every nudge-driven pass, preexec re-checks included, goes
// through here, so a flood of nudges costs at most 1/nudgeGap passes a
// second.
func (s *schedule) nudged(pane string, now time.Time) (wait time.Duration) {
	s.forced[pane] = true
	return max(0, nudgeGap-now.Sub(s.lastNudgePass))
}

// nudgePass starts the pass for the panes nudged so far, at now, and
// hands them over; none when no nudge is owed.
func (s *schedule) nudgePass(now time.Time) (forced map[string]bool) {
	forced = s.forced
	if len(forced) > 0 {
		s.lastNudgePass, s.forced = now, map[string]bool{}
	}
	return forced
}

// startWait notes a preexec wait for pane at now, one per pane (start is
// false while one runs), and says whether it reads the session ahead of
// its pass: one that asks does, unless another did under nudgeGap ago. A
// wait whose program is there at its first look ends at once, and the
// next preexec nudge starts another: without this gap a flood of them
// read the session once per nudge. A wait without its own read leaves
// the reading to its pass.
func (s *schedule) startWait(pane string, readAhead bool, now time.Time) (start, ahead bool) {
	if s.waits[pane] {
		return false, false
	}
	s.waits[pane] = true
	if readAhead && now.Sub(s.lastReadAhead) >= nudgeGap {
		s.lastReadAhead = now
		return true, true
	}
	return true, false
}

// waitEnded notes that pane's wait is over.
func (s *schedule) waitEnded(pane string) { delete(s.waits, pane) }

// settleDue takes when the next program waiting for --settle may name its
// tab (zero when none waits), and says whether the loop sets its settle
// timer, and to fire in how long: only for one sooner than the pass
// already due.
func (s *schedule) settleDue(due, now time.Time) (set bool, in time.Duration) {
	if due.IsZero() || !s.settleAt.IsZero() && !due.Before(s.settleAt) {
		return false, 0
	}
	s.settleAt = due
	return true, max(0, due.Sub(now))
}

// settled is the settle timer's pass.
func (s *schedule) settled() { s.settleAt = time.Time{} }

// edge decides when event news runs a pass. The first news after a quiet
// spell runs one at once: a trailing-only debounce made every change wait
// the whole window. News inside the window that follows
// is coalesced into one pass at its end, and that pass opens a new window,
// so a storm costs at most one pass per window however long it lasts.
//
// edge holds no clock: the loop owns the one timer and tells edge when it
// fired, which keeps the rule testable without sleeping.
type edge struct {
	open    bool // a window is running: news waits for its end
	pending bool // news came inside the window
}

// news reports whether news that just arrived runs a pass now. When it
// does, the caller runs the pass and starts the window timer.
func (e *edge) news() (runNow bool) {
	if e.open {
		e.pending = true
		return false
	}
	e.open = true
	return true
}

// fired is the window's end. runNow: news came inside it, so the caller
// runs one pass and starts the timer again (the window stays open). Else
// the spell is quiet again and the next news runs at once.
func (e *edge) fired() (runNow bool) {
	if e.pending {
		e.pending = false
		return true
	}
	e.open = false
	return false
}

// covered is called when a pass that reads everything ran for another
// reason (a poll tick, a nudge) after the news: it saw what the news was
// about, so the trailing pass is no longer needed.
func (e *edge) covered() { e.pending = false }

// The daemon's polls. Events, nudges and the plugin's event hook say when
// to look; the polls catch what none of them tells:
//
//   - the full poll (--poll) reads the session and refreshes programs
//     herdr alone can name (panes whose processes we cannot see). While
//     the local watch follows every tab's lead pane, what is left for it
//     is what nothing announces (a branch switched from another tab, an
//     event lost to a reconnect): it runs every --rest-poll then, by
//     default 30 s, which bounds how long such a name stays behind while
//     herdr answers two snapshots a minute;
//   - the status poll (--agent-poll) reads the session for agents'
//     statuses, which herdr pushes to no session-wide stream, only to a
//     plugin's event hook. It runs only while a name shows their status
//     ({icon}, {status}), no hook nudged us within hookTrust, and an
//     agent's status may change unannounced (agentsMayChange): one works,
//     or one read a prompt lately, or one's input the local watch cannot
//     see. An agent at rest waits for a prompt, which the local watch sees
//     it read. Each poll is one snapshot, where the per-pane subscription
//     herdr offers would cost it a read of every agent's pane every 100 ms
//     (docs/herdr.md §7). It also runs, every seenPoll, hook or not,
//     while an agent is done in the focused tab and no terminal of
//     herdr's clients is watched (seen.go): herdr turns it idle when the
//     person comes back to that terminal, and tells no one.

// hookTrust is how long a nudge from the plugin's event hook vouches for
// the hook: a hook that fell silent for that long (the plugin disabled
// while a standalone daemon runs) gives the status poll back.
const hookTrust = 10 * time.Minute

// ticker is one poll: its interval (0: off) and its channel, nil while
// off (a nil channel never fires in a select).
type ticker struct {
	every time.Duration
	t     *time.Ticker
	c     <-chan time.Time
}

// set restarts the ticker when its interval changes, and reports whether
// it did.
func (k *ticker) set(every time.Duration) bool {
	if every == k.every {
		return false
	}
	if k.t != nil {
		k.t.Stop()
		k.t, k.c = nil, nil
	}
	k.every = every
	if every > 0 {
		k.t = time.NewTicker(every)
		k.c = k.t.C
	}
	return true
}

// polls are the loop's two tickers; planned once the first plan is made.
type polls struct {
	full, agents ticker
	planned      bool
}

func (p *polls) stop() {
	p.full.set(0)
	p.agents.set(0)
}

// The polls' inputs, beside the schedule's own.
type pollInputs struct {
	poll, restPoll, agentPoll time.Duration // the options
	// allWatched: the local watch follows every tab's lead pane.
	allWatched bool
	// showStatus: an agent's status can change a tab's or workspace's
	// name; plugin: the plugin that started the daemon brings statuses.
	showStatus, plugin bool
	agents             []herdr.Pane             // the panes that run an agent
	inputWatched       func(paneID string) bool // the local watch sees its terminal read input
	// seenPoll is the status poll the seen watch asks for.
	seenPoll time.Duration
}

// polls are the intervals of the full poll and the status poll for the
// session as the last pass saw it.
func (s *schedule) polls(in pollInputs, now time.Time) (full, agents time.Duration) {
	full = in.poll
	if in.allWatched && full > 0 {
		full = in.restPoll
	}
	if s.lag.Answering(now) && (full == 0 || full > triage.AnswerPoll) {
		full = triage.AnswerPoll
	}
	if s.agentsMayChange(in, now) && in.showStatus && !s.hookServes(in.plugin, now) {
		agents = in.agentPoll
	}
	if agents == 0 {
		// herdr calls no hook when a person's look turns done into idle:
		// the hook vouches for no such change.
		agents = in.seenPoll
	}
	return full, agents
}

// agentInputWindow is how long after an agent's terminal read input its
// status may still change because of it: the agent takes the prompt and
// reports itself working (or herdr sees it) within a second or two.
const agentInputWindow = 5 * time.Second

// agentsMayChange says whether an agent's status may change with no one
// telling: one is working (it will stop by itself), one runs where the
// local watch does not see its input (a status changes on a prompt), or
// one read input lately.
func (s *schedule) agentsMayChange(in pollInputs, now time.Time) bool {
	if len(in.agents) == 0 {
		return false
	}
	for _, p := range in.agents {
		if p.AgentStatus == herdr.StatusWorking {
			return true
		}
	}
	for _, p := range in.agents {
		if !in.inputWatched(p.ID) {
			return true // its status may change unannounced
		}
	}
	return !s.agentInput.IsZero() && now.Sub(s.agentInput) < agentInputWindow
}

// hookServes says whether the plugin's event hook brings agents' statuses:
// the plugin started this daemon, or its hook nudged us lately.
func (s *schedule) hookServes(plugin bool, now time.Time) bool {
	return plugin || !s.hookSeen.IsZero() && now.Sub(s.hookSeen) < hookTrust
}
