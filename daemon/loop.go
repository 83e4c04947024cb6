package daemon

import (
	"context"
	"fmt"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/claim"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/resident"
	"github.com/herdrtabrenamer/herdrtabrenamer/localwatch"
	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
	"github.com/herdrtabrenamer/herdrtabrenamer/pass"
	"github.com/herdrtabrenamer/herdrtabrenamer/plugintie"
	"github.com/herdrtabrenamer/herdrtabrenamer/renamer"
	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
	"github.com/herdrtabrenamer/herdrtabrenamer/triage"
)

// loop is what Run keeps between two triggers. Everything here is owned by
// the goroutine running Run; the feed, the nudge listener, preexec waits
// and looks at created tabs talk to it through channels only.
type loop struct {
	d   *Daemon
	ctx context.Context
	tr  triage.Triage

	// The claim on the herdr server and the nudge socket.
	claim     *claim.Claim
	ln        *nudgeListener
	nudgePath string
	lost      error // another daemon took the server over: Run ends
	down      bool  // herdr is away: its outage was reported

	// Inputs.
	nudges      chan nudge.Message
	items       chan herdr.FeedItem
	preexecDone chan preexecReady
	// arrivals are created tabs and panes that a look found there.
	arrivals chan herdr.Event

	// Triggers: when passes run (sched) and the timers it sets. The
	// debounce window opens at the first news, which runs a pass at once
	// (edge), and is not pushed back by later news: a pane whose title
	// changes faster than --debounce would otherwise hold every pass off
	// for as long as it keeps going. settle fires when a new program has
	// run for --settle; nudgeTimer at the end of a nudge gap.
	sched                        schedule
	polls                        polls
	debounce, settle, nudgeTimer *time.Timer
	// local is the kernel's watch of local shells (nil: off), and
	// allWatched whether the last pass found every tab's lead pane
	// watched.
	local      *localwatch.Watch
	allWatched bool
	// seen watches herdr's clients while an agent is done in the focused
	// tab (seen.go).
	seen seenWatch

	// pluginTick paces the checks of a daemon tied to a herdr plugin
	// (Options.Plugin); nil when untied.
	pluginTick    <-chan time.Time
	plugin        *plugintie.Watch
	pluginAnswers chan plugintie.Answer
}

// Run is the daemon: it holds the single-instance claim and the nudge
// socket, and runs passes on events, poll ticks and nudges until ctx ends.
// Options sent on reload replace the configuration (SIGHUP).
func (d *Daemon) Run(ctx context.Context, reload <-chan Options) error {
	dir, err := rundir.Dir()
	if err != nil {
		return err
	}
	cl, err := claim.Take(dir, d.opt.Socket)
	if err != nil {
		return err
	}
	l := newLoop(ctx, d, cl)
	defer func() { l.claim.Release() }()
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
	feedCtx, stopFeed := context.WithCancel(context.WithoutCancel(ctx))
	feedDone := make(chan struct{})
	go func() { defer close(feedDone); d.feed.Run(feedCtx, l.items) }()
	defer func() { stopFeed(); <-feedDone }()

	defer l.polls.stop()
	l.planPolls(false)
	l.local = d.startWatch()
	defer l.local.Stop()
	defer l.seen.stop()
	if d.opt.Plugin.ID != "" {
		l.plugin = plugintie.NewWatch(d.opt.Plugin, d.opt.Socket)
		tick := time.NewTicker(plugintie.CheckEvery)
		defer tick.Stop()
		l.pluginTick = tick.C
	}
	l.firstPass()
	handBackStartup(d)
	for {
		if l.lost != nil {
			return fmt.Errorf("another daemon took over this herdr server: %w", l.lost)
		}
		if !l.step(reload) {
			l.endRenames()
			return nil
		}
	}
}

// newLoop is the loop of one Run, holding the claim cl.
func newLoop(ctx context.Context, d *Daemon, cl *claim.Claim) *loop {
	return &loop{
		d: d, ctx: ctx, claim: cl,
		tr:            triage.Triage{View: &d.view, Mem: d.state, Names: d.planner, Now: d.clock, Sidebar: d.sidebar},
		nudges:        make(chan nudge.Message, 1024),
		items:         make(chan herdr.FeedItem, 256),
		preexecDone:   make(chan preexecReady, 64),
		arrivals:      make(chan herdr.Event, 64),
		pluginAnswers: make(chan plugintie.Answer, 1),
		debounce:      stoppedTimer(),
		settle:        stoppedTimer(),
		nudgeTimer:    stoppedTimer(),
		sched:         newSchedule(),
		seen:          seenWatch{timer: stoppedTimer()},
	}
}

// startRun sets up what lives as long as Run: the feed, the health
// record, the renames a stopped or killed daemon left on their way. The
// function it returns ends them.
func (d *Daemon) startRun() (end func()) {
	d.feed = herdr.NewFeed(d.client, subscribedKinds, renamer.RenamedKinds, d.clock, d.replayCap)
	endHealth := d.health.start()
	endRenames := d.startRenames()
	if damaged := d.state.Damaged(); damaged != nil {
		d.trouble(rundir.TroubleState, damaged)
	}
	return func() {
		endRenames()
		d.sessions.Close()
		endHealth()
	}
}

// follows makes the feed carry pane.updated or not, as lag says
// (triage.Lag): a subscription whose pane.updated lags with live news
// goes on without it.
func follows(d *Daemon, lag *triage.Lag) { d.feed.Without(herdr.PaneUpdated, !lag.Subscribe()) }

// firstPass runs the daemon's first pass once the stream is up, or after
// firstSubscribeWait.
func (l *loop) firstPass() {
	timeout := time.After(firstSubscribeWait)
	for {
		select {
		case it := <-l.items:
			l.item(it)
			if it.Note == herdr.NoteSubscribed || it.Note == herdr.NoteSubscribeFailed && it.Refused {
				return
			}
		case <-timeout:
			l.run(passInput{})
			return
		case <-l.ctx.Done():
			return
		}
	}
}

// handBackStartup hands start-up's memory back to the kernel: flags,
// config, the first snapshot and the first passes' plans are never read
// again, nor is most of the code that made them. At rest the heap grows
// by a few KB a second, short of the collector's 4 MB floor for many
// minutes, and a collection keeps the pages it frees for reuse; the
// kernel keeps the program's pages mapped 64 KB around each one ever
// run. So, once now and once past a 0.7/0.8 subscription's replay, the
// free heap and the program's mapped pages go back (package resident):
// two collections in the daemon's life.
func handBackStartup(d *Daemon) {
	resident.Settled(herdr.ReplayWindow + 5*time.Second)
	d.trace(Trace{Kind: TraceSettled}, "start-up over, its memory handed back")
}

// fullPass is the full pass after every (re)subscribe.
func (l *loop) fullPass() {
	l.run(passInput{})
	// Tests wait for it: by its text, or in the JSON log by full_pass=done.
	l.d.trace(Trace{Kind: TraceFullPassDone}, "full pass after subscribing done", "full_pass", "done")
}

func stoppedTimer() *time.Timer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}

// step waits for one trigger and handles it; false when ctx ended or the
// daemon's plugin is gone.
func (l *loop) step(reload <-chan Options) bool {
	d := l.d
	select {
	case <-l.ctx.Done():
		return false
	case <-l.pluginTick:
		return !l.pluginGone(l.plugin.Check(d.now()))
	case a := <-l.pluginAnswers:
		if a.Err != nil {
			// Asked again at the registry's next change or a minute
			// later: a failed call proves nothing either way.
			d.log.Debug("plugin.list failed", "err", a.Err)
		}
		return !l.pluginGone(l.plugin.Answered(a), false)
	case opt := <-reload:
		d.reconfigure(opt)
		l.run(passInput{})
	case <-l.polls.full.c:
		l.run(passInput{})
	case <-l.polls.agents.c:
		l.run(passInput{Input: pass.Input{AgentPoll: true}})
	case <-d.sessions.Changed(): // an agent's session got a new title
		l.run(passInput{Input: pass.Input{Urgent: true}})
	case it := <-l.items:
		l.item(it)
	case b := <-d.renamer.PutBacks():
		l.putBackDone(b)
	case ev := <-l.arrivals:
		then := l.news()
		d.log.Debug("a created tab or pane is there", "kind", ev.Kind, "tab", ev.TabID, "pane", ev.PaneID, "then", then)
	case <-l.debounce.C:
		l.debounced()
	case <-l.settle.C:
		l.sched.settled()
		l.run(passInput{})
	case m := <-l.nudges:
		l.nudge(m)
	case r := <-l.preexecDone:
		l.sched.waitEnded(r.pane)
		if !r.skip {
			l.nudged(r.pane, &r)
		}
	case <-l.local.Changed():
		for _, pane := range l.watchReported() {
			d.sessions.Input(pane) // the agent may switch sessions unannounced
		}
	case <-l.seen.changed():
		if l.seen.take(d) {
			l.planPolls(l.allWatched)
		}
	case <-l.seen.timer.C:
		l.seenPass()
	case <-l.nudgeTimer.C:
		l.nudgePass(nil)
	}
	return true
}

// debounced is the debounce window's end: news came inside it, so one
// pass runs and the window stays open; else the spell is quiet again.
func (l *loop) debounced() {
	if l.sched.edge.fired() {
		l.run(passInput{Input: pass.Input{Urgent: true}})
		l.debounce.Reset(l.d.opt.Debounce)
		return
	}
	l.d.trace(Trace{Kind: TraceDebounceIdle}, "debounce window closed with no news")
}

// pluginGone follows the herdr plugin the daemon is tied to
// (Options.Plugin): when its watch asks, it asks herdr, off the loop,
// whether the plugin is still there and enabled (the answer comes on
// pluginAnswers), and it says whether the daemon ends because the plugin
// is gone (why is not ""), logging why.
func (l *loop) pluginGone(why string, ask bool) bool {
	d := l.d
	if ask {
		id, timeout, client := d.opt.Plugin.ID, d.opt.Timeout, d.client
		go func() {
			ctx, cancel := context.WithTimeout(l.ctx, timeout)
			defer cancel()
			a := plugintie.List(ctx, client, id)
			select {
			case l.pluginAnswers <- a:
			case <-l.ctx.Done():
			}
		}()
	}
	if why != "" {
		d.log.Info("the herdr plugin that started this daemon is gone; exiting", "why", why)
	}
	return why != ""
}
