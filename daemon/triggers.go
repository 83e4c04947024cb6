package daemon

import (
	"context"
	"errors"
	"log/slog"

	"github.com/herdrtabrenamer/herdrtabrenamer/claim"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
	"github.com/herdrtabrenamer/herdrtabrenamer/pass"
	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
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
	verdict := l.tr.judge(ev, d.renamer.Live(it.Gen, targetKind(ev)))
	l.tr.learn(ev)
	switch verdict {
	case isNews:
		then = l.news()
		return
	case lookFirst:
		then = looking
		l.lookFor(ev)
		return
	case ownReport:
		return
	}
	if l.local.watched(ev.PaneID) {
		return // the kernel tells of this shell's programs already
	}
	switch l.titleNews(ev) {
	case titleProgramChanged:
		then = "title: the program changed, a pass for the pane"
		l.nudged(ev.PaneID, nil)
	case titleAtPrompt:
		then = "title: at the prompt, wait for a program"
		l.wait(preexecWait{pane: ev.PaneID, window: titleWindow, onlyIfChanged: true})
	}
}

// news runs a pass at once for the first news after a quiet spell and
// opens the debounce window; news inside it waits for its end. It says
// which.
func (l *loop) news() string {
	if !l.edge.news() {
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
		l.hookSeen = d.now()
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
	_, ok := l.d.view.paneOf(id)
	return ok || l.d.view.none()
}

// nudged runs a pass for a nudged pane at once, unless the last nudge pass
// was under nudgeGap ago: then one pass at the end of the gap serves every
// pane nudged meanwhile. Every nudge-driven pass, preexec re-checks
// included, goes through here, so a flood of nudges costs at most
// 1/nudgeGap passes a second.
func (l *loop) nudged(pane string, ahead *preexecReady) {
	l.forced[pane] = true
	if wait := nudgeGap - l.d.now().Sub(l.lastNudgePass); wait > 0 {
		l.nudgeTimer.Reset(wait)
		return
	}
	l.nudgePass(ahead)
}

// nudgePass runs the pass for the panes nudged so far. ahead is a
// preexec wait's snapshot, used when no pass ran since it was taken: its
// labels are then current.
func (l *loop) nudgePass(ahead *preexecReady) {
	l.lastNudgePass = l.d.now()
	in := passInput{Input: pass.Input{Forced: l.forced, Urgent: true}}
	if ahead != nil && ahead.snap != nil && ahead.passes == l.d.passes.Load() {
		in.snap, in.snapAt = ahead.snap, ahead.at
	}
	l.run(in)
	l.forced = map[string]bool{}
}

// run runs one pass and what follows it: the outage log, the dry-run
// output, the watch's pane list, the claim check.
func (l *loop) run(in passInput) {
	d := l.d
	defer l.keepClaim()
	l.edge.covered()
	pctx, cancel := context.WithTimeout(context.WithoutCancel(l.ctx), 4*d.opt.Timeout)
	defer cancel()
	reps, st, err := d.pass(pctx, in)
	// One line per pass, also when nothing changed: tests of the built
	// binary count passes by this line's fields (a real herdr has no
	// request counter to fence on).
	d.trace(Trace{Kind: TracePass, Stats: st}, "pass", "renames", st.Renames, "hedges", st.Hedges, "process_info", st.ProcessInfoCalls, "local_reads", st.LocalReads)
	// A program that has not settled yet gets the pass that names it when
	// it does (--settle).
	if at := d.planner.SettleDue(); !at.IsZero() && (l.settleAt.IsZero() || at.Before(l.settleAt)) {
		l.settleAt = at
		l.settle.Reset(max(0, at.Sub(d.now())))
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
	l.local.allWatched = l.local.rewatch(d, reps)
	l.seen.follow(d)
	l.planPolls(l.local.allWatched)
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
