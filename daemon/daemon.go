package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/facts/gitinfo"
	"github.com/herdrtabrenamer/herdrtabrenamer/facts/glyphs"
	"github.com/herdrtabrenamer/herdrtabrenamer/facts/session"
	"github.com/herdrtabrenamer/herdrtabrenamer/facts/sshhosts"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// Options configure a Daemon. Namer and Procs are required.
type Options struct {
	Socket    string // herdr API socket, resolved
	Namer     *namer.Namer
	Procs     *procinfo.Resolver
	Inspector procinfo.Inspector // nil: always ask herdr
	Git       *gitinfo.Cache
	SSH       *sshhosts.Aliases
	Glyphs    *glyphs.Table // nil: the built-in table
	// Trace, when set, receives the traced moments of the daemon's work
	// (Trace), from the daemon's goroutines: tests wait on them.
	Trace func(Trace)
	// IndexPrefixAll puts the tab position in front of people's labels too.
	IndexPrefixAll bool
	// WorkspaceNamer names workspaces too (--workspace-format); nil: off.
	WorkspaceNamer *namer.Namer

	Apply     bool
	Force     bool
	Unique    bool
	Workspace string
	Poll      time.Duration // 0: events only
	// RestPoll replaces Poll while the local watch follows every tab's
	// lead pane (0: no full poll then).
	RestPoll time.Duration
	// AgentPoll is how often the session is read for agents' statuses
	// while agents run and no plugin event hook brings them: herdr pushes
	// a status change to no session-wide stream (docs/herdr.md §7).
	// 0: never.
	AgentPoll time.Duration
	Debounce  time.Duration
	// Settle is how long a new program must run before it names its tab
	// (0: at once).
	Settle time.Duration
	// LocalWatch follows the shells of lead panes on this machine through
	// the kernel (package procwatch): a program's start and exit and a
	// cd name their tabs at once, without hooks.
	LocalWatch bool
	StatePath  string // "": remember nothing
	Timeout    time.Duration
	// Plugin is the herdr plugin that started the daemon, whose life it
	// follows; zero: none.
	Plugin Plugin

	// Out receives dry-run decisions ("would rename ...").
	Out io.Writer
	Log *slog.Logger
	// Now is the clock (tests). It is read once, by New: a reload cannot
	// change it.
	Now func() time.Time
}

// Daemon holds the loop's state. All fields are owned by the goroutine
// running Run (or the one calling Once/Explain); passes never overlap.
type Daemon struct {
	opt Options
	// clock is Options.Now as New saw it. The watcher goroutines read it
	// too, and d.opt is replaced on reload: one clock, never written after
	// New, keeps every time decision on the same time line.
	clock  func() time.Time
	log    *slog.Logger
	client *herdr.Client
	state  *state.State
	// procs caches each pane's program.
	procs progCache
	// passes counts passes that read a snapshot: a snapshot fetched
	// ahead for a pass is stale once another pass ran after it.
	passes atomic.Uint64
	last   lastSnap
	// seen is history beyond the last snapshot, for event triage.
	seen seen
	down bool
	// printed remembers dry-run decisions already shown, per tab and
	// workspace.
	printed map[target]string
	// gatherBudget bounds the time a pass spends on process_info (0:
	// defaultGatherBudget); tests shorten it.
	gatherBudget time.Duration
	// lookTimeout bounds the look whether a created tab or pane is there
	// (0: existsTimeout); tests lengthen it.
	lookTimeout time.Duration
	// replayCap bounds how long a 0.7/0.8 entry counts as replaying
	// (ReplayWindow); tests shorten it.
	replayCap time.Duration
	// flights holds our renames whose fate is not known yet (Run only):
	// a person's rename reported right before the echo of ours means we
	// overwrote a name someone set inside the last window.
	flights *flights
	// backs are the put-backs on their way (Run only).
	backs *putBacks
	// instanceChecked: the server process was compared with the state's
	// on the stream of instanceGen (serverlife.go).
	instanceChecked bool
	instanceGen     uint64
	// sessions reads agent session titles for {session}; in Run it also
	// watches their files and wakes a pass when a title changes.
	sessions *session.Sessions
	// traceFn is Options.Trace as New found it.
	traceFn func(Trace)
	// health records what the daemon cannot do, for status (Run only).
	health *health
	// stream is the current subscription, written by the watcher.
	stream struct {
		gen   atomic.Uint64 // counts subscriptions
		first atomic.Int64  // when the first one was acked, unix ns
		up    atomic.Bool   // a subscription is open now
	}
}

// New builds a daemon and loads its state (a corrupt file is a warning).
func New(opt Options) (*Daemon, error) {
	if opt.Namer == nil || opt.Procs == nil {
		return nil, errors.New("daemon: Namer and Procs are required")
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opt.Out == nil {
		opt.Out = io.Discard
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Timeout == 0 {
		opt.Timeout = herdr.DefaultTimeout
	}
	d := &Daemon{
		opt:   opt,
		clock: opt.Now,
		log:   opt.Log,
		// Hedged reads (docs/herdr.md §2) are on, but only passes someone
		// waits for use them (passInput.urgent): a poll tick costs one
		// connection, as it always did.
		client:    herdr.New(opt.Socket, herdr.WithTimeout(opt.Timeout), herdr.WithLogger(opt.Log), herdr.WithHedging(true)),
		procs:     newProgCache(),
		printed:   map[target]string{},
		replayCap: ReplayWindow,
	}
	d.sessions = d.newSessions()
	d.traceFn = opt.Trace
	st, warn := state.Load(opt.StatePath, opt.Socket)
	if other := (*state.OtherServerError)(nil); errors.As(warn, &other) {
		return nil, other
	}
	if warn != nil {
		d.log.Warn("state file", "err", warn)
	}
	d.state = st
	return d, nil
}

func (d *Daemon) now() time.Time { return d.clock() }

func (d *Daemon) newSessions() *session.Sessions {
	return session.NewSessions(session.Options{Log: d.log, Now: d.clock}, d.sessionWatch)
}

// sessionWatch records in the health record whether agents' session
// files can be watched.
func (d *Daemon) sessionWatch(err error) {
	if err != nil {
		d.health.fail(rundir.TroubleSessionWatch, err)
	} else {
		d.health.ok(rundir.TroubleSessionWatch)
	}
}

// Once runs one pass and returns its reports. Only Run watches session
// files: a one-shot pass reads them and stops.
func (d *Daemon) Once(ctx context.Context) ([]TabReport, error) {
	defer d.sessions.Close()
	reps, _, err := d.pass(ctx, passInput{})
	return reps, err
}

// Explain decides every tab (or one) without renaming anything.
func (d *Daemon) Explain(ctx context.Context, tabID string) ([]TabReport, error) {
	defer d.sessions.Close()
	reps, _, err := d.pass(ctx, passInput{onlyTab: tabID, readOnly: true})
	if err == nil && tabID != "" && len(reps) == 0 {
		return nil, fmt.Errorf("tab %s not found in the session at %s", tabID, d.client.SocketPath())
	}
	return reps, err
}

// PassStats runs one pass and returns its counters (benchmarks).
func (d *Daemon) PassStats(ctx context.Context) (PassStats, error) {
	defer d.sessions.Close()
	_, st, err := d.pass(ctx, passInput{})
	return st, err
}

// State exposes the daemon's memory (lock/release and tests).
func (d *Daemon) State() *state.State { return d.state }

// Client is the daemon's herdr client (restore and why --notify speak to
// the same herdr through it).
func (d *Daemon) Client() *herdr.Client { return d.client }

// foregroundProbe captures, on the loop goroutine, what the preexec watcher
// needs to notice a program start without touching loop state, and its
// polling interval: local /proc looks are cheap, socket calls are not.
//
// After preexec the shell itself is in front until the program starts, so
// the probe waits for anything but the shell in front. Comparing with the
// cached group instead would fire at once when the cache is stale (a
// program ended without a precmd nudge) and miss the program. The shell's
// fork, in front before it execs the program, is the shell still: a pass
// then would find no program and none would follow the exec.
func (d *Daemon) foregroundProbe(paneID string) (func(ctx context.Context) bool, time.Duration) {
	if c := d.procs.of(paneID); c != nil && c.localOK {
		insp, shell := d.opt.Inspector, c.shellPID
		var shellArgv []string
		return func(context.Context) bool {
			pg, err := insp.ForegroundPGID(shell)
			if err != nil || pg == shell {
				return err != nil
			}
			if shellArgv == nil {
				if p, err := insp.Process(shell); err == nil {
					shellArgv = p.Argv
				}
			}
			return !forkOf(insp, pg, shellArgv)
		}, preexecInterval
	}
	client, procs := d.client, d.opt.Procs
	return func(ctx context.Context) bool {
		// Hedged: the program's name waits on this answer, and one
		// stuck in herdr's read poll would hold it back 100 ms.
		pi, err := client.ProcessInfo(ctx, paneID)
		return err != nil || pi.ShellPID == 0 || pi.ForegroundPGID != pi.ShellPID && procs.Program(pi).Name != ""
	}, 5 * preexecInterval
}

// forkOf says whether the leader of group pg runs the shell's command line,
// as the shell's fork does until it execs. A leader that cannot be read
// (another user's, one that ended) is taken for the program.
func forkOf(insp procinfo.Inspector, pg int, shellArgv []string) bool {
	if len(shellArgv) == 0 {
		return false
	}
	p, err := insp.Process(pg)
	return err == nil && slices.Equal(p.Argv, shellArgv)
}

// preexecReady is a preexec nudge whose program has appeared (or whose
// wait ran out), with the snapshot taken meanwhile.
type preexecReady struct {
	pane   string
	snap   *herdr.Snapshot // nil when the read failed or none was asked
	at     time.Time       // when snap was asked for
	passes uint64          // d.passes when it was asked for
	skip   bool            // nothing changed: no pass
}

// preexecWatch is one wait for a program to start in a pane.
type preexecWatch struct {
	pane    string
	changed func(context.Context) bool
	every   time.Duration
	window  time.Duration
	// snapshot: read the session meanwhile (a preexec nudge: a program is
	// surely coming), with this timeout.
	snapshot bool
	timeout  time.Duration
	// onlyIfChanged: no pass when the window ends with nothing changed
	// (a title change at the prompt may start no program).
	onlyIfChanged bool
}

// awaitProgram waits (bounded) for a pane's foreground group to change
// after a preexec nudge, then asks the loop for a pass: the nudge arrives
// before the new program exists. The session snapshot is read meanwhile,
// so that once the program is there the pass needs no request but the
// rename.
func (d *Daemon) awaitProgram(ctx context.Context, w preexecWatch, done chan<- preexecReady) {
	r := preexecReady{pane: w.pane, at: d.now(), passes: d.passes.Load()}
	got := make(chan *herdr.Snapshot, 1)
	if w.snapshot {
		go func() {
			sctx, cancel := context.WithTimeout(ctx, w.timeout)
			defer cancel()
			snap, err := d.client.Snapshot(sctx)
			if err != nil {
				snap = nil
			}
			got <- snap
		}()
	}
	// The window is on the daemon's clock; w.every below is real time, as
	// it paces the probes.
	deadline := d.now().Add(w.window)
	changed := false
	for d.now().Before(deadline) {
		if changed = w.changed(ctx); changed {
			break
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(w.every):
		}
	}
	r.skip = w.onlyIfChanged && !changed
	if w.snapshot && !r.skip {
		// A snapshot still out after the program appeared is waited
		// for a little: the pass would only ask again.
		select {
		case r.snap = <-got:
		case <-time.After(snapshotGrace):
		case <-ctx.Done():
			return
		}
	}
	select {
	case done <- r:
	case <-ctx.Done():
	}
}

// askFullPass asks the loop for a full pass unless one is asked for
// already, and says which for the debug log: tests match each "asked"
// with the loop's "full pass after subscribing done".
func askFullPass(subscribed chan<- struct{}) string {
	select {
	case subscribed <- struct{}{}:
		return "asked"
	default:
		return "already asked"
	}
}

// subscribedKinds are the bus events the daemon subscribes to: those that
// can change a tab's name.
var subscribedKinds = []string{
	"tab.created", "tab.closed", "tab.renamed", "tab.moved", "tab.focused",
	"pane.created", "pane.closed", "pane.exited", "pane.focused", "pane.moved",
	"pane.updated", "pane.agent_detected",
	"workspace.created", "workspace.closed", "workspace.renamed",
}

// subscriptions are the daemon's one subscription's entries: bus events
// only. An agent's status change reaches no such entry; the entry for one
// pane's status that herdr has costs it a read of the pane every 100 ms
// tick (docs/herdr.md §7), so statuses come from the plugin's event hook
// or the status poll instead.
func subscriptions() []herdr.Subscription {
	subs := make([]herdr.Subscription, 0, len(subscribedKinds))
	for _, k := range subscribedKinds {
		subs = append(subs, herdr.Subscription{Type: k})
	}
	return subs
}

// printDryRun shows each new decision once.
func (d *Daemon) printDryRun(reps []TabReport) {
	for _, r := range reps {
		if r.Action != ActionWouldRename {
			delete(d.printed, target{tabTarget, r.TabID})
			continue
		}
		if d.printed[target{tabTarget, r.TabID}] == r.Want {
			continue
		}
		d.printed[target{tabTarget, r.TabID}] = r.Want
		fmt.Fprintf(d.opt.Out, "would rename %s %q -> %q (%s)\n", r.TabID, r.Label, r.Want, whyLine(r))
	}
}

// reconfigure swaps in reloaded options, keeping the connection, state and
// caches.
func (d *Daemon) reconfigure(opt Options) {
	opt.Socket = d.opt.Socket
	if opt.Log == nil {
		opt.Log = d.opt.Log
	}
	if opt.Out == nil {
		opt.Out = d.opt.Out
	}
	if opt.Now == nil {
		opt.Now = d.opt.Now
	}
	if opt.Timeout == 0 {
		opt.Timeout = d.opt.Timeout
	}
	if opt.StatePath != d.opt.StatePath {
		// The labels we set are in the old file: switching now would make
		// them read as a person's. Only a restart may change it.
		d.traceAt(slog.LevelWarn, Trace{Kind: TraceStateKept, Path: d.opt.StatePath}, "reload: the state file cannot change while running; restart the daemon to use the new one",
			"keeping", d.opt.StatePath, "asked", opt.StatePath)
		opt.StatePath = d.opt.StatePath
	}
	d.opt = opt
	d.printed = map[target]string{}
	// Cached programs were named with the old aliases and rewrites.
	d.procs.reset()
	// The next pass watches the session files the new format still needs.
	d.sessions.Prune(nil)
	d.traceAt(slog.LevelInfo, Trace{Kind: TraceReloaded}, "configuration reloaded")
}
