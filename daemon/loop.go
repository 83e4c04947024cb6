package daemon

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
)

// loop is what Run keeps between two triggers. Everything here is owned by
// the goroutine running Run; the event watcher, the nudge listener and the
// preexec watchers talk to it through channels only.
type loop struct {
	d   *Daemon
	ctx context.Context

	// The claim on the herdr server and the nudge socket.
	claim     *claim
	ln        *nudgeListener
	nudgePath string
	lost      error // another daemon took the server over: Run ends

	// Inputs.
	nudges      chan nudge.Message
	events      chan streamEvent
	subscribed  chan struct{}
	preexecDone chan preexecReady
	// arrivals are created tabs and panes that a look found there.
	arrivals chan herdr.Event

	// Triggers.
	polls polls
	// The debounce window opens at the first news, which runs a pass at
	// once (edge), and is not pushed back by later news: a pane whose title
	// changes faster than --debounce would otherwise hold every pass off
	// for as long as it keeps going.
	debounce *time.Timer
	edge     edge
	// settle fires when a new program has run for --settle.
	settle     *time.Timer
	settleAt   time.Time
	nudgeTimer *time.Timer
	// forced are panes nudged since the last nudge pass.
	forced        map[string]bool
	lastNudgePass time.Time
	// watching are panes whose preexec watcher runs.
	watching map[string]bool
	// lastReadAhead is when a watcher last read the session ahead of its
	// pass: read-aheads are spaced like nudge passes.
	lastReadAhead time.Time
	// watch is the kernel's watch of local shells.
	local localWatch
	// hookSeen is when the plugin's event hook last nudged us about an
	// agent's status: while it vouches for the hook, statuses need no
	// poll. agentInput is when the local watch last saw an agent's
	// terminal read input.
	hookSeen, agentInput time.Time

	// pluginTick paces the checks of a daemon tied to a herdr plugin
	// (Options.Plugin); nil when untied.
	pluginTick    <-chan time.Time
	plugin        pluginWatch
	pluginAnswers chan pluginAnswer
}

// Run is the daemon: it holds the single-instance claim and the nudge
// socket, and runs passes on events, poll ticks and nudges until ctx ends.
// Options sent on reload replace the configuration (SIGHUP).
func (d *Daemon) Run(ctx context.Context, reload <-chan Options) error {
	dir, err := rundir.Dir()
	if err != nil {
		return err
	}
	cl, err := claimServer(dir, d.opt.Socket)
	if err != nil {
		return err
	}
	l := newLoop(ctx, d, cl)
	defer func() { l.claim.release() }()
	if l.nudgePath, err = rundir.NudgeSocket(d.opt.Socket); err != nil {
		return err
	}
	if l.ln, err = listenNudges(l.nudgePath); err != nil {
		return err
	}
	defer func() { l.ln.Close() }()
	go l.ln.serve(l.nudges, d.log)

	defer d.startRun()()
	// The stream outlives ctx by awaitEchoes at most.
	evCtx, stopEvents := context.WithCancel(context.WithoutCancel(ctx))
	evDone := make(chan struct{})
	go func() {
		defer close(evDone)
		d.watchEvents(evCtx, d.client, l.events, l.subscribed)
	}()
	defer func() { stopEvents(); <-evDone }()

	defer l.polls.stop()
	l.planPolls(false)
	l.startWatch()
	defer l.stopWatch()
	if d.opt.Plugin.ID != "" {
		tick := time.NewTicker(pluginCheckEvery)
		defer tick.Stop()
		l.pluginTick = tick.C
	}
	l.firstPass()
	for {
		if l.lost != nil {
			return fmt.Errorf("another daemon took over this herdr server: %w", l.lost)
		}
		if !l.step(reload) {
			l.awaitEchoes()
			return nil
		}
	}
}

// newLoop is the loop of one Run, holding the claim cl.
func newLoop(ctx context.Context, d *Daemon, cl *claim) *loop {
	return &loop{
		d: d, ctx: ctx, claim: cl,
		nudges:        make(chan nudge.Message, 1024),
		events:        make(chan streamEvent, 256),
		subscribed:    make(chan struct{}, 1),
		preexecDone:   make(chan preexecReady, 64),
		arrivals:      make(chan herdr.Event, 64),
		pluginAnswers: make(chan pluginAnswer, 1),
		debounce:      stoppedTimer(),
		settle:        stoppedTimer(),
		nudgeTimer:    stoppedTimer(),
		forced:        map[string]bool{},
		watching:      map[string]bool{},
	}
}

// startRun sets up what lives as long as Run: the renames on their way
// (those a stopped or killed daemon left included), the health record
// and the agents' sessions. The function it returns ends them.
func (d *Daemon) startRun() (end func()) {
	d.flights, d.backs = newFlights(), newPutBacks()
	d.inheritFlights()
	d.health = newHealth(d.opt.Socket, d.log, d.clock)
	d.sessions = d.newSessions()
	return func() {
		d.backs.end()
		d.sessions.Close()
		d.health, d.flights, d.backs = nil, nil, nil
	}
}

// firstPass runs the daemon's first pass once the stream is up, or after
// firstSubscribeWait.
func (l *loop) firstPass() {
	select {
	case <-l.subscribed:
		l.subscribedPass()
	case <-time.After(firstSubscribeWait):
		l.run(passInput{})
	case <-l.ctx.Done():
	}
}

// subscribedPass is the full pass after every (re)subscribe.
func (l *loop) subscribedPass() {
	l.run(passInput{})
	// Tests wait for it: by its text, or in the JSON log by full_pass=done.
	l.d.trace(Trace{Kind: TraceFullPassDone}, "full pass after subscribing done", "full_pass", "done")
}

func stoppedTimer() *time.Timer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}

// step waits for one trigger and handles it; false when ctx ended.
func (l *loop) step(reload <-chan Options) bool {
	d := l.d
	select {
	case <-l.ctx.Done():
		return false
	case <-l.pluginTick:
		if l.pluginEnds(l.pluginGone()) {
			return false
		}
	case a := <-l.pluginAnswers:
		if l.pluginEnds(l.pluginAnswered(a)) {
			return false
		}
	case opt := <-reload:
		d.reconfigure(opt)
		l.run(passInput{})
	case <-l.polls.full.c:
		l.run(passInput{})
	case <-l.polls.agents.c:
		l.run(passInput{agentPoll: true})
	case <-d.sessions.Changed():
		// An agent's session got a new title (a /rename).
		l.run(passInput{urgent: true})
	case <-l.subscribed:
		l.subscribedPass()
	case sev := <-l.events:
		l.event(sev)
	case b := <-d.backs.results():
		d.putBackSettled(b)
	case ev := <-l.arrivals:
		then := l.news()
		d.log.Debug("a created tab or pane is there", "kind", ev.Kind, "tab", ev.TabID, "pane", ev.PaneID, "then", then)
	case <-l.debounce.C:
		if l.edge.fired() {
			l.run(passInput{urgent: true})
			l.debounce.Reset(d.opt.Debounce)
		} else {
			d.trace(Trace{Kind: TraceDebounceIdle}, "debounce window closed with no news")
		}
	case <-l.settle.C:
		l.settleAt = time.Time{}
		l.run(passInput{})
	case m := <-l.nudges:
		l.nudge(m)
	case r := <-l.preexecDone:
		delete(l.watching, r.pane)
		if !r.skip {
			l.nudged(r.pane, &r)
		}
	case <-l.watchChanged():
		l.watchReported()
	case <-l.nudgeTimer.C:
		if len(l.forced) > 0 {
			l.nudgePass(nil)
		}
	}
	return true
}

// nudge takes a shell hook's or the plugin's word about a pane.
func (l *loop) nudge(m nudge.Message) {
	d := l.d
	if m.When == nudge.WhenAgent {
		l.hookSeen = d.now()
	}
	if m.When == nudge.WhenPreexec && d.knownPane(m.PaneID) {
		l.watch(preexecWatch{pane: m.PaneID, window: preexecWindow, snapshot: true, timeout: d.opt.Timeout})
		return
	}
	l.nudged(m.PaneID, nil)
}

// event triages one event: the first news after a quiet spell runs a pass
// at once and opens the debounce window; news inside it waits for its end.
// Each event ends in one TraceTriaged saying what came of it, traced
// once the event is done with: a test that counts them knows the daemon
// has handled every event it was sent.
func (l *loop) event(sev streamEvent) {
	d, ev := l.d, sev.Event
	if sev.replayDone != "" {
		// No event of herdr's: the word that an entry's replay ended.
		d.checkOverwrite(sev)
		return
	}
	const (
		oldNews = "nothing: old news"
		looking = "nothing yet: a look whether it is there, then news if it is"
	)
	then := oldNews
	defer func() {
		news := then != oldNews && then != looking
		d.trace(Trace{Kind: TraceTriaged, Event: ev.Kind, TabID: ev.TabID, Pane: ev.PaneID, Label: ev.Label, News: news},
			"event triaged", "kind", ev.Kind, "tab", ev.TabID, "pane", ev.PaneID, "label", ev.Label, "news", news, "then", then)
	}()
	d.checkOverwrite(sev)
	// Take every event in, even while a pass is due: that is how a later
	// replay of it is known for one.
	upd := updatedPane(ev)
	verdict := d.triage(ev, upd, d.live(sev.gen, kindOf(ev)))
	d.learnEvent(ev, upd)
	switch verdict {
	case isNews:
		then = l.news()
		return
	case lookFirst:
		then = looking
		l.lookFor(ev)
		return
	}
	if l.watched(ev.PaneID) {
		return // the kernel tells of this shell's programs already
	}
	switch d.titleNews(ev) {
	case titleProgramChanged:
		then = "title: the program changed, a pass for the pane"
		l.nudged(ev.PaneID, nil)
	case titleAtPrompt:
		then = "title: at the prompt, watch for a program"
		l.watch(preexecWatch{pane: ev.PaneID, window: titleWindow, onlyIfChanged: true})
	}
}

// news runs a pass at once for the first news after a quiet spell and
// opens the debounce window; news inside it waits for its end. It says
// which.
func (l *loop) news() string {
	if !l.edge.news() {
		return "news: the pass at the debounce window's end"
	}
	l.run(passInput{urgent: true})
	l.debounce.Reset(l.d.opt.Debounce)
	return "news: a pass at once"
}

// knownPane says whether the last snapshot has the pane. A preexec nudge
// for one it lacks (a stale HERDR_PANE_ID, a pane just closed) gets a plain
// pass, no probe of its program: herdr would answer pane_not_found at every
// command.
func (d *Daemon) knownPane(id string) bool {
	_, ok := d.last.paneOf(id)
	return ok || d.last.none()
}

// watch starts a wait for a program to start in a pane, one per pane.
func (l *loop) watch(w preexecWatch) {
	if l.watching[w.pane] {
		return
	}
	l.watching[w.pane] = true
	// A watcher whose program is there at its first look ends at once, and
	// the next preexec nudge starts another: without this gap a flood of
	// them read the session once per nudge. A watcher without its own
	// read leaves the reading to its pass.
	if w.snapshot {
		if now := l.d.now(); now.Sub(l.lastReadAhead) >= nudgeGap {
			l.lastReadAhead = now
		} else {
			w.snapshot = false
		}
	}
	w.changed, w.every = l.d.foregroundProbe(w.pane)
	go l.d.awaitProgram(l.ctx, w, l.preexecDone)
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
// preexec watcher's snapshot, used when no pass ran since it was taken:
// its labels are then current.
func (l *loop) nudgePass(ahead *preexecReady) {
	l.lastNudgePass = l.d.now()
	in := passInput{forced: l.forced, urgent: true}
	if ahead != nil && ahead.snap != nil && ahead.passes == l.d.passes.Load() {
		in.snap, in.snapAt = ahead.snap, ahead.at
	}
	l.run(in)
	l.forced = map[string]bool{}
}

// run runs one pass and what follows it: the outage log, the dry-run
// output, the watcher's pane list, the claim check.
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
	if at := d.procs.settleDue(d.opt.Settle, d.now()); !at.IsZero() && (l.settleAt.IsZero() || at.Before(l.settleAt)) {
		l.settleAt = at
		l.settle.Reset(max(0, at.Sub(d.now())))
	}
	if err != nil {
		if herdr.IsServerGone(err) {
			d.logOutage(err)
		} else {
			d.log.Warn("pass failed", "err", err)
		}
		l.planPolls(false)
		return
	}
	d.logBack()
	d.printDryRun(reps)
	l.local.allWatched = l.rewatch(reps)
	l.planPolls(l.local.allWatched)
}

// keepClaim runs after every pass: it follows a herdr that appeared or
// restarted (a new socket identity) and a runtime dir wiped under us,
// rebinding the nudge socket the wipe took.
func (l *loop) keepClaim() {
	d := l.d
	if err := l.claim.follow(d.opt.Socket); err != nil {
		if errors.Is(err, ErrAlreadyRunning) {
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
