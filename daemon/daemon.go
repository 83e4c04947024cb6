package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/claim"
	"github.com/herdrtabrenamer/herdrtabrenamer/facts/session"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/localwatch"
	"github.com/herdrtabrenamer/herdrtabrenamer/pass"
	"github.com/herdrtabrenamer/herdrtabrenamer/plugintie"
	"github.com/herdrtabrenamer/herdrtabrenamer/renamer"
	"github.com/herdrtabrenamer/herdrtabrenamer/sidebar"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
	"github.com/herdrtabrenamer/herdrtabrenamer/triage"
)

// ErrAlreadyRunning is Run's error when another daemon serves the herdr
// server already (its claim is package claim's).
var ErrAlreadyRunning = claim.ErrAlreadyRunning

// Options configure a Daemon. Naming's Namer and Procs are required.
type Options struct {
	Socket string // herdr API socket, resolved
	// Naming is how tabs and workspaces are named (package pass).
	Naming pass.Config
	// Trace, when set, receives the traced moments of the daemon's work
	// (Trace), from the daemon's goroutines: tests wait on them.
	Trace func(Trace)

	Poll time.Duration // 0: events only
	// RestPoll replaces Poll while the local watch follows every tab's
	// lead pane (0: no full poll then).
	RestPoll time.Duration
	// AgentPoll is how often the session is read for agents' statuses
	// while agents run and no plugin event hook brings them: herdr pushes
	// a status change to no session-wide stream (docs/herdr.md §7).
	// 0: never.
	AgentPoll time.Duration
	Debounce  time.Duration
	StatePath string // "": remember nothing
	Timeout   time.Duration
	// Plugin is the herdr plugin that started the daemon, whose life it
	// follows; zero: none.
	Plugin plugintie.Plugin

	// Out receives dry-run decisions ("would rename ...").
	Out io.Writer
	Log *slog.Logger
	// Now is the clock (tests). It is read once, by New: a reload cannot
	// change it.
	Now func() time.Time
}

// API is what the daemon's passes and renames ask of herdr:
// *herdr.Client. Tests that explore interleavings put a scheduler there.
type API interface {
	renamer.Herdr
	pass.Asker
	Snapshot(ctx context.Context) (*herdr.Snapshot, error)
	Pane(ctx context.Context, id string) (herdr.Pane, error)
}

// Daemon names one herdr server's tabs: the coordinator of a planner
// (package pass), a renamer and the memory. Its fields belong to the
// goroutine running Run (or the one calling Once or Explain); passes
// never overlap.
type Daemon struct {
	opt Options
	// clock is Options.Now as New saw it. The watcher goroutines read it
	// too, and d.opt is replaced on reload: one clock, never written after
	// New, keeps every time decision on the same time line.
	clock   func() time.Time
	log     *slog.Logger
	client  *herdr.Client
	api     API
	state   *state.State
	planner *pass.Planner
	renamer *renamer.Renamer
	// sidebar reports each agent pane's chosen tokens to herdr's sidebar
	// (--sidebar-tokens), and remembers what it reported.
	sidebar *sidebar.Reporter
	// feed is the event subscription (Run only); gen is the subscription
	// whose items the loop takes now, as its NoteSubscribed said, and
	// subscribed whether one was ever acked.
	feed       *herdr.Feed
	gen        uint64
	subscribed bool
	// view is the last snapshot and what was seen beyond it.
	view triage.View
	// passes counts passes that read a snapshot: a snapshot read ahead
	// for a pass is stale once another pass ran after it.
	passes atomic.Uint64
	// dry remembers the dry run's decisions already shown.
	dry dryRun
	// instance: the server was compared with the memory's on the stream
	// of gen (claim.Check).
	instance struct {
		checked bool
		gen     uint64
	}
	// sessions reads agent session titles for {session}; in Run it also
	// watches their files and wakes a pass when a title changes.
	sessions *session.Sessions
	// shells are the panes' shells on this machine: proven local, found
	// by the passes, and watched by the kernel while Run runs.
	shells *localwatch.Shells
	tracer
	// health records what the daemon cannot do, for status, while Run
	// runs.
	health *health
	// Tests shorten or lengthen: lookTimeout bounds the look whether a
	// created tab or pane is there (0: existsTimeout); replayCap bounds
	// how long a 0.7/0.8 entry counts as replaying (0: herdr's).
	lookTimeout time.Duration
	replayCap   time.Duration
}

// New builds a daemon and loads its state: a damaged state file leaves
// the memory read-only and is a warning; one of another server an error.
func New(opt Options) (*Daemon, error) {
	if opt.Naming.Namer == nil || opt.Naming.Procs == nil {
		return nil, errors.New("daemon: Naming.Namer and Naming.Procs are required")
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
	// Hedged reads (docs/herdr.md §2) are on, but only passes someone
	// waits for use them: a poll tick costs one connection.
	client := herdr.New(opt.Socket, herdr.WithTimeout(opt.Timeout), herdr.WithLogger(opt.Log), herdr.WithHedging(true))
	d := &Daemon{opt: opt, clock: opt.Now, log: opt.Log, client: client, api: client, tracer: tracer{opt.Log, opt.Trace},
		health: newHealth(opt.Socket, opt.Log, opt.Now)}
	st, warn := state.Load(opt.StatePath, opt.Socket)
	if other := (*state.OtherServerError)(nil); errors.As(warn, &other) {
		return nil, other
	}
	if warn != nil {
		d.log.Warn("state file", "err", warn)
	}
	d.state = st
	d.sessions = session.NewSessions(session.Options{Log: d.log, Now: d.clock}, d.health.sessionWatch)
	d.shells = localwatch.New(opt.Naming.Inspector)
	d.planner = pass.New(d.opt.Naming, d.api, d.sessions, d.shells, d.clock, d.log)
	d.initRenamer()
	d.sidebar = sidebar.New(client)
	return d, nil
}

func (d *Daemon) now() time.Time { return d.clock() }

// Once runs one pass and returns its reports. Only Run watches session
// files: a one-shot pass reads them and stops.
func (d *Daemon) Once(ctx context.Context) ([]pass.Report, error) {
	defer d.sessions.Close()
	reps, _, err := d.pass(ctx, passInput{})
	return reps, err
}

// Explain decides every tab (or one) without renaming anything.
func (d *Daemon) Explain(ctx context.Context, tabID string) ([]pass.Report, error) {
	defer d.sessions.Close()
	reps, _, err := d.pass(ctx, passInput{Input: pass.Input{OnlyTab: tabID, ReadOnly: true}})
	if err == nil && tabID != "" && len(reps) == 0 {
		return nil, fmt.Errorf("tab %s not found in the session at %s", tabID, d.client.SocketPath())
	}
	return reps, err
}

// ExplainPane decides one pane's name without renaming anything: its
// report alone, or an error when pane names are off or herdr has no such
// pane.
func (d *Daemon) ExplainPane(ctx context.Context, paneID string) (pass.Report, error) {
	if d.opt.Naming.PaneNamer == nil {
		return pass.Report{}, errors.New("pane names are off: set --pane-format (config key pane-format) to name panes")
	}
	defer d.sessions.Close()
	reps, _, err := d.pass(ctx, passInput{Input: pass.Input{OnlyPane: paneID, ReadOnly: true}})
	if err != nil {
		return pass.Report{}, err
	}
	for _, r := range reps {
		if r.PaneID == paneID {
			return r, nil
		}
	}
	return pass.Report{}, fmt.Errorf("pane %s not found in the session at %s", paneID, d.client.SocketPath())
}

// PassStats runs one pass and returns its counters (benchmarks).
func (d *Daemon) PassStats(ctx context.Context) (pass.Stats, error) {
	defer d.sessions.Close()
	_, st, err := d.pass(ctx, passInput{})
	return st, err
}

// State is the daemon's memory, for lock, release and restore to read.
func (d *Daemon) State() *state.State { return d.state }

// Renamer is the daemon's renamer: restore gives labels back through it.
func (d *Daemon) Renamer() *renamer.Renamer { return d.renamer }

// Client is the daemon's herdr client (restore and why --notify speak to
// the same herdr through it).
func (d *Daemon) Client() *herdr.Client { return d.client }

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
	d.dry = dryRun{}
	d.planner.Reconfigure(opt.Naming)
	d.shells.Inspect(opt.Naming.Inspector)
	// The next pass watches the session files the new format still needs.
	d.sessions.Prune(nil)
	d.traceAt(slog.LevelInfo, Trace{Kind: TraceReloaded}, "configuration reloaded")
}
