package daemon

import (
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

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

// planPolls sets the polls for the session as the last pass saw it, and
// traces the first plan and every change of it. allWatched: the local watch follows
// every tab's lead pane.
func (l *loop) planPolls(allWatched bool) {
	d := l.d
	full := d.opt.Poll
	if allWatched && full > 0 {
		full = d.opt.RestPoll
	}
	agents := time.Duration(0)
	if l.agentsMayChange() && d.namesShowStatus() && !l.hookServes() {
		agents = d.opt.AgentPoll
	}
	if agents == 0 {
		// herdr calls no hook when a person's look turns done into idle:
		// the hook vouches for no such change.
		agents = l.seen.poll(d.opt.AgentPoll)
	}
	changedFull := l.polls.full.set(full)
	changedAgents := l.polls.agents.set(agents)
	if changedFull || changedAgents || !l.polls.planned {
		l.polls.planned = true
		d.trace(Trace{Kind: TracePolls, Poll: full, AgentPoll: agents}, "polls planned",
			"poll", full, "agent_poll", agents)
	}
}

// agentInputWindow is how long after an agent's terminal read input its
// status may still change because of it: the agent takes the prompt and
// reports itself working (or herdr sees it) within a second or two.
const agentInputWindow = 5 * time.Second

// agentsMayChange says whether an agent's status may change with no one
// telling: one is working (it will stop by itself), one runs where the
// local watch does not see its input (a status changes on a prompt), or
// one read input lately.
func (l *loop) agentsMayChange() bool {
	d := l.d
	agents := d.view.agents()
	if len(agents) == 0 {
		return false
	}
	for _, p := range agents {
		if p.AgentStatus == herdr.StatusWorking {
			return true
		}
	}
	for _, p := range agents {
		if !l.local.inputWatched(p.ID) {
			return true // its status may change unannounced
		}
	}
	return !l.agentInput.IsZero() && d.now().Sub(l.agentInput) < agentInputWindow
}

// namesShowStatus says whether an agent's status can change a tab's or a
// workspace's name.
func (d *Daemon) namesShowStatus() bool {
	n := d.opt.Naming
	return n.Namer.UsesStatus() || n.WorkspaceNamer != nil && n.WorkspaceNamer.UsesStatus()
}

// hookServes says whether the plugin's event hook brings agents' statuses:
// the plugin started this daemon, or its hook nudged us lately.
func (l *loop) hookServes() bool {
	if l.d.opt.Plugin.ID != "" {
		return true
	}
	return !l.hookSeen.IsZero() && l.d.now().Sub(l.hookSeen) < hookTrust
}
