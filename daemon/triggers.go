package daemon

import (
	"context"
	"errors"
	"log/slog"

	"github.com/herdrtabrenamer/herdrtabrenamer/claim"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/localwatch"
	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
	"github.com/herdrtabrenamer/herdrtabrenamer/pass"
	"github.com/herdrtabrenamer/herdrtabrenamer/procwatch"
	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
	"github.com/herdrtabrenamer/herdrtabrenamer/triage"
)

// subscribedKinds are the bus events the daemon subscribes to: those that
// can change a tab's name. An agent's status change reaches no such
// entry; the entry for one pane's status that herdr has costs it a read
// of the pane every 100 ms tick (docs/herdr.md §7), so statuses come from
// the plugin's event hook or the status poll instead.
var subscribedKinds = []herdr.EventKind{
	herdr.TabCreated, herdr.TabClosed, herdr.TabRenamed, herdr.TabMoved, herdr.TabFocused,
	herdr.PaneCreated, herdr.PaneClosed, herdr.PaneExited, herdr.PaneFocused, herdr.PaneMoved,
	herdr.PaneUpdated, herdr.PaneAgentDetected,
	herdr.WorkspaceCreated, herdr.WorkspaceClosed, herdr.WorkspaceRenamed,
}

// item takes one thing the feed handed on.
func (l *loop) item(it herdr.FeedItem) {
	d := l.d
	switch it.Note {
	case herdr.NoteEvent:
		l.event(it)
	case herdr.NoteReplayOver:
		l.follow(it)
		// Tests of the built binary wait for this record by its
		// replay_over field.
		d.trace(Trace{Kind: TraceReplayOver, Event: string(it.ReplayOver)},
			"the subscription's history is delivered; its events are live", "replay_over", string(it.ReplayOver), "gen", it.Gen)
	case herdr.NoteSubscribed:
		d.gen, d.subscribed = it.Gen, true
		l.follow(it)
		l.sched.lag.Subscribed(d.now(), d.client.Protocol() < 22)
		d.trouble(rundir.TroubleSubscribe, nil)
		d.trace(Trace{Kind: TraceSubscribed, FullPass: true}, "subscribed to events", "full_pass", "asked")
		l.fullPass()
	case herdr.NoteSubscribeFailed:
		d.trace(Trace{Kind: TraceSubscribeFailed, FullPass: it.Refused}, "subscribe failed", "err", it.Err, "full_pass", map[bool]string{true: "asked", false: "none"}[it.Refused])
		if it.Refused {
			// herdr answers and refuses (a herdr that knows fewer event
			// kinds): no event will come, but its tabs need names.
			d.trouble(rundir.TroubleSubscribe, it.Err)
			l.fullPass()
		}
	case herdr.NoteEventsLost:
		d.traceAt(slog.LevelInfo, Trace{Kind: TraceEventsLost}, "herdr dropped events we were too slow for (events_lost); resubscribing")
	case herdr.NotePause:
		d.trace(Trace{Kind: TraceResubscribePause, Pause: it.Pause}, "event stream ended early; resubscribing after a pause", "after", it.Pause)
	}
}

// event triages one event: the first news after a quiet spell runs a pass
// at once and opens the debounce window; news inside it waits for its end.
// Each event ends in one TraceTriaged saying what came of it, traced
// once the event is done with: a test that counts them knows the daemon
// has handled every event it was sent.
func (l *loop) event(it herdr.FeedItem) {
	d, ev := l.d, it.Event
	const (
		oldNews = "nothing: old news"
		looking = "nothing yet: a look whether it is there, then news if it is"
	)
	then := oldNews
	defer func() {
		news := then != oldNews && then != looking
		d.trace(Trace{Kind: TraceTriaged, Event: string(ev.Kind), TabID: ev.TabID, Pane: ev.PaneID, Label: ev.Label, News: news},
			"event triaged", "kind", ev.Kind, "tab", ev.TabID, "pane", ev.PaneID, "label", ev.Label, "news", news, "then", then)
	}()
	l.follow(it)
	// Take every event in, even while a pass is due: that is how a later
	// replay of it is known for one.
	stale := l.tr.Stale(ev)
	verdict := l.tr.Judge(ev, d.renamer.Live(it.Gen, targetKind(ev)))
	l.tr.Learn(ev)
	if ev.Kind == herdr.PaneUpdated {
		if l.sched.lag.Delivered(it.At, stale) {
			// The subscription lags (triage.Lag): other panes' titles may
			// wait behind this one. The kernel tells of local terminals'
			// writes, and the session is polled, until it has caught up.
			l.local.Rewatch(d.view.HasAgent, nil, true)
			l.planPolls(l.allWatched)
		}
		follows(d, &l.sched.lag)
	}
	switch verdict {
	case triage.Is:
		then = l.news()
		return
	case triage.LookFirst:
		then = looking
		l.lookFor(ev)
		return
	case triage.OwnReport:
		return
	}
	if ev.Kind != herdr.PaneUpdated || ev.PaneID == "" || l.local.Watched(ev.PaneID) {
		return // no title, or the kernel tells of this shell's programs already
	}
	switch d.shells.TitleHint(ev.PaneID) {
	case localwatch.ProgramChanged:
		then = "title: the program changed, a pass for the pane"
		l.nudged(ev.PaneID, nil)
	case localwatch.AtPrompt:
		then = "title: at the prompt, wait for a program"
		l.wait(preexecWait{pane: ev.PaneID, window: titleWindow, onlyIfChanged: true})
	}
}

// news runs a pass at once for the first news after a quiet spell and
// opens the debounce window; news inside it waits for its end. It says
// which.
func (l *loop) news() string {
	if !l.sched.edge.news() {
		return "news: the pass at the debounce window's end"
	}
	l.run(passInput{Input: pass.Input{Urgent: true}})
	l.debounce.Reset(l.d.opt.Debounce)
	return "news: a pass at once"
}

// lookFor asks herdr, off the loop, whether a tab or pane an event says
// was created is there now: one small request instead of a full pass.
// The loop hears of one that is there as news.
func (l *loop) lookFor(ev herdr.Event) {
	// Short: an unsure answer only costs a pass.
	timeout := min(l.d.opt.Timeout, existsTimeout)
	if l.d.lookTimeout > 0 {
		timeout = l.d.lookTimeout
	}
	api := l.d.api
	go func() {
		ctx, cancel := context.WithTimeout(l.ctx, timeout)
		defer cancel()
		if !exists(ctx, api, ev) {
			return
		}
		select {
		case l.arrivals <- ev:
		case <-l.ctx.Done():
		}
	}()
}

// nudge takes a shell hook's or the plugin's word about a pane.
func (l *loop) nudge(m nudge.Message) {
	d := l.d
	if m.When == nudge.WhenAgent {
		l.sched.hookSeen = d.now()
	}
	if m.When == nudge.WhenPreexec && l.knownPane(m.PaneID) {
		l.wait(preexecWait{pane: m.PaneID, window: preexecWindow, snapshot: true, timeout: d.opt.Timeout})
		return
	}
	l.nudged(m.PaneID, nil)
}

// knownPane says whether the last snapshot has the pane. A preexec nudge
// for one it lacks (a stale HERDR_PANE_ID, a pane just closed) gets a
// plain pass, no probe of its program: herdr would answer pane_not_found
// at every command.
func (l *loop) knownPane(id string) bool {
	_, ok := l.d.view.Pane(id)
	return ok || l.d.view.None()
}

// nudged runs a pass for a nudged pane at once, unless the last nudge pass
// was under nudgeGap ago: then one pass at the end of the gap serves every
// pane nudged meanwhile. Every nudge-driven pass, preexec re-checks
// included, goes through here, so a flood of nudges costs at most
// 1/nudgeGap passes a second.
func (l *loop) nudged(pane string, ahead *preexecReady) {
	if wait := l.sched.nudged(pane, l.d.now()); wait > 0 {
		l.nudgeTimer.Reset(wait)
		return
	}
	l.nudgePass(ahead)
}

// nudgePass runs the pass for the panes nudged so far. ahead is a
// preexec wait's snapshot, used when no pass ran since it was taken: its
// labels are then current.
func (l *loop) nudgePass(ahead *preexecReady) {
	forced := l.sched.nudgePass(l.d.now())
	if len(forced) == 0 {
		return
	}
	in := passInput{Input: pass.Input{Forced: forced, Urgent: true}}
	if ahead != nil && ahead.snap != nil && ahead.passes == l.d.passes.Load() {
		in.snap, in.snapAt = ahead.snap, ahead.at
	}
	l.run(in)
}

// run runs one pass and what follows it: the outage log, the dry-run
// output, the watch's pane list, the claim check.
func (l *loop) run(in passInput) {
	d := l.d
	defer l.keepClaim()
	l.sched.edge.covered()
	pctx, cancel := context.WithTimeout(context.WithoutCancel(l.ctx), 4*d.opt.Timeout)
	defer cancel()
	reps, st, err := d.pass(pctx, in)
	// One line per pass, also when nothing changed: tests of the built
	// binary count passes by this line's fields (a real herdr has no
	// request counter to fence on).
	d.trace(Trace{Kind: TracePass, Stats: st}, "pass", "renames", st.Renames, "hedges", st.Hedges, "process_info", st.ProcessInfoCalls, "local_reads", st.LocalReads)
	// A program that has not settled yet gets the pass that names it when
	// it does (--settle).
	if set, in := l.sched.settleDue(d.planner.SettleDue(), d.now()); set {
		l.settle.Reset(in)
	}
	if err != nil {
		if herdr.IsServerGone(err) {
			l.outage(err)
		} else {
			d.log.Warn("pass failed", "err", err)
		}
		l.planPolls(false)
		return
	}
	l.back()
	d.showDry(reps)
	l.sched.lag.Looked(d.view.Panes(), d.now())
	follows(d, &l.sched.lag)
	l.allWatched = l.local.Rewatch(d.view.HasAgent, leads(reps), l.sched.lag.Answering(d.now()))
	l.seen.follow(d)
	l.planPolls(l.allWatched)
}

// keepClaim runs after every pass: it follows a herdr that appeared or
// restarted (a new socket identity) and a runtime dir wiped under us,
// rebinding the nudge socket the wipe took.
func (l *loop) keepClaim() {
	d := l.d
	if err := l.claim.Follow(d.opt.Socket); err != nil {
		if errors.Is(err, claim.ErrAlreadyRunning) {
			l.lost = err
		} else {
			d.log.Warn("runtime dir", "err", err)
		}
		return
	}
	if l.ln.intact() {
		return
	}
	nl, err := listenNudges(l.nudgePath)
	if err != nil {
		d.log.Warn("nudge socket", "err", err)
		return
	}
	l.ln.Close()
	l.ln = nl
	go l.ln.serve(l.nudges, d.log)
	d.log.Info("nudge socket was removed; listening again", "path", l.nudgePath)
}

// outage is how the loop reports a server that went away: one line per
// outage, not one per failed pass.
func (l *loop) outage(err error) {
	d := l.d
	if l.down {
		// Debug only: tests count these to know passes ran meanwhile.
		d.trace(Trace{Kind: TraceDownSkip}, "herdr still down; pass skipped", "err", err)
		return
	}
	l.down = true
	d.traceAt(slog.LevelWarn, Trace{Kind: TraceOutage}, "herdr is not reachable; waiting for it", "socket", d.client.SocketPath(), "err", err)
}

// back reports a server that answers again after an outage.
func (l *loop) back() {
	if !l.down {
		return
	}
	l.down = false
	l.d.traceAt(slog.LevelInfo, Trace{Kind: TraceBack}, "herdr is back", "socket", l.d.client.SocketPath())
}

// exists asks herdr whether a tab or pane that an event says was created
// is there now: one small request instead of a full pass. An error counts
// as there (look, to be safe). It is safe on any goroutine.
func exists(ctx context.Context, api API, ev herdr.Event) bool {
	var err error
	if ev.Kind == herdr.PaneCreated {
		_, err = api.Pane(ctx, ev.PaneID)
	} else {
		_, err = api.Tab(ctx, ev.TabID)
	}
	return err == nil || !errors.Is(err, herdr.ErrTabNotFound) && !errors.Is(err, herdr.ErrPaneNotFound)
}

// targetKind is the kind of rename entry whose replay an event belongs
// to.
func targetKind(ev herdr.Event) state.Kind {
	if ev.Kind.Object() == herdr.WorkspaceObject {
		return state.Workspace
	}
	return state.Tab
}

// startWatch starts the kernel's watch of local shells when the options
// ask for it and the platform has one; nil otherwise.
func (d *Daemon) startWatch() *localwatch.Watch {
	if !d.opt.Naming.LocalWatch {
		return nil
	}
	w, err := d.shells.Start()
	if err != nil {
		d.log.Info("no local watch of shells: without hooks or titles, program changes wait for the poll", "err", err)
		if !errors.Is(err, procwatch.ErrUnsupported) {
			d.trouble(rundir.TroubleLocalWatch, err)
		}
		return nil
	}
	return w
}

// watchReported nudges the panes whose program or directory the local
// watch says changed, and notes input read by an agent: its status may
// change next (agentsMayChange), and so may the session it runs: it
// returns those panes. The watch also signals when it took
// shells' input up or lost it, and when it went blind or saw again: the
// status poll's plan follows the one, status shows the other.
func (l *loop) watchReported() (input []string) {
	if changed, blind := l.local.Blind(); changed {
		l.d.trouble(rundir.TroubleLocalWatch, blind)
	}
	l.planPolls(l.allWatched)
	for _, r := range l.local.Take() {
		l.d.trace(Trace{Kind: TraceWatched, Pane: r.Key, Input: r.Input, News: r.Changed}, "a local shell changed or read input",
			"pane", r.Key, "changed", r.Changed, "input", r.Input)
		if r.Input {
			l.sched.agentInput = l.d.now()
			l.planPolls(l.allWatched)
			input = append(input, r.Key)
		}
		switch {
		case r.Changed:
			l.nudged(r.Key, nil)
		case r.Output:
			// Asked for while the subscription lags: a program wrote to
			// its terminal, perhaps a new title, which herdr's events
			// would tell late.
			l.news()
		}
	}
	return input
}

// leads are the lead panes of the reports, a pane's own for a pane's.
func leads(reps []pass.Report) []string {
	out := make([]string, len(reps))
	for i, r := range reps {
		out[i] = r.Lead
	}
	return out
}

// planPolls sets the polls for the session as the last pass saw it, and
// traces the first plan and every change of it. allWatched: the local
// watch follows every tab's lead pane.
func (l *loop) planPolls(allWatched bool) {
	d := l.d
	full, agents := l.sched.polls(pollInputs{poll: d.opt.Poll, restPoll: d.opt.RestPoll, agentPoll: d.opt.AgentPoll,
		allWatched: allWatched, showStatus: d.opt.Naming.ShowsStatus(), plugin: d.opt.Plugin.ID != "",
		agents: d.view.Agents(), inputWatched: l.local.InputWatched, seenPoll: l.seen.poll(d.opt.AgentPoll)}, d.now())
	changedFull := l.polls.full.set(full)
	changedAgents := l.polls.agents.set(agents)
	if changedFull || changedAgents || !l.polls.planned {
		l.polls.planned = true
		d.trace(Trace{Kind: TracePolls, Poll: full, AgentPoll: agents}, "polls planned",
			"poll", full, "agent_poll", agents)
	}
}
