package daemon

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/pass"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrtest"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

const home = "/home/u"

type syncBuffer = testutil.Buffer

type fixture struct {
	t      *testing.T
	srv    *herdrsim.Server
	d      *Daemon
	log    *syncBuffer
	out    *syncBuffer
	traces traceLog
}

// traceLog keeps the daemon's traces (Options.Trace) for tests to wait on.
type traceLog struct {
	mu  sync.Mutex
	all []Trace
}

func (l *traceLog) add(t Trace) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.all = append(l.all, t)
}

// snapshot returns every trace so far, in order.
func (l *traceLog) snapshot() []Trace {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Trace(nil), l.all...)
}

// of returns the traces of kind, in order.
func (l *traceLog) of(kind TraceKind) []Trace {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Trace
	for _, t := range l.all {
		if t.Kind == kind {
			out = append(out, t)
		}
	}
	return out
}

func newFixture(t *testing.T, format string, mod func(*Options), srvOpts ...herdrsim.Option) *fixture {
	t.Helper()
	srvOpts = append([]herdrsim.Option{herdrsim.WithTick(5 * time.Millisecond)}, srvOpts...)
	srv := herdrtest.Start(t, srvOpts...)
	nm, err := namer.New(namer.Config{Format: format, MaxLen: 24, Home: home})
	if err != nil {
		t.Fatal(err)
	}
	procs, err := procinfo.New(procinfo.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, srv: srv, log: &syncBuffer{}, out: &syncBuffer{}}
	opt := Options{
		Socket: srv.SocketPath(), Naming: pass.Config{Namer: nm, Procs: procs, Apply: true},
		StatePath: filepath.Join(t.TempDir(), "state.json"),
		Debounce:  10 * time.Millisecond, Timeout: 2 * time.Second,
		Log: slog.New(slog.NewTextHandler(f.log, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Out: f.out, Trace: f.traces.add,
	}
	if mod != nil {
		mod(&opt)
	}
	d, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	f.d = d
	return f
}

// noHedging gives the daemon a client that sends every read once, for
// tests that count herdrsim's requests: on a loaded machine a late read
// goes out twice, and the first of the two can reach herdrsim a poll
// later, after the count.
func (f *fixture) noHedging() {
	c := herdr.New(f.srv.SocketPath(), herdr.WithTimeout(f.d.opt.Timeout), herdr.WithLogger(f.d.opt.Log))
	f.d.client, f.d.api = c, c
	f.d.planner = pass.New(f.d.opt.Naming, c, f.d.sessions, f.d.shells, f.d.clock, f.d.log)
	f.d.initRenamer()
}

func (f *fixture) once() []pass.Report {
	f.t.Helper()
	reps, err := f.d.Once(context.Background())
	if err != nil {
		f.t.Fatalf("pass: %v", err)
	}
	return reps
}

func (f *fixture) labels() []string {
	var out []string
	for _, t := range f.srv.Snapshot().Tabs {
		out = append(out, t.Label)
	}
	return out
}

func (f *fixture) wantLabels(want ...string) {
	f.t.Helper()
	if got := f.labels(); strings.Join(got, "|") != strings.Join(want, "|") {
		f.t.Fatalf("labels = %q, want %q", got, want)
	}
}

// originalSession builds the four tabs of the original tool's README.
func originalSession(s *herdrsim.Server) (ws string, panes [4]string) {
	ws, _, panes[0] = s.NewWorkspace("main", home+"/pi")
	s.SetAgent(panes[0], "pi", herdr.StatusIdle)
	_, panes[1] = s.NewTab(ws, home+"/opt/nixos")
	s.SetForeground(panes[1], herdrsim.Proc{Argv: []string{"claude"}})
	s.SetAgent(panes[1], "claude", herdr.StatusWorking)
	_, panes[2] = s.NewTab(ws, home+"/projects/rmk")
	_, panes[3] = s.NewTab(ws, home+"/projects/rmk")
	s.SetForeground(panes[3], herdrsim.Proc{Argv: []string{"btop"}})
	return ws, panes
}

func TestOnceOriginalTemplates(t *testing.T) {
	tests := []struct {
		format string
		want   []string
	}{
		{"{proc|dir}", []string{"pi", "nixos", "rmk", "btop"}},
		{"{proc|agent}:{dir}", []string{"pi:pi", "claude:nixos", "rmk", "btop:rmk"}},
		{"{icon} {proc|dir}", []string{"⚪ pi", "🟡 nixos", "rmk", "btop"}},
	}
	for _, tt := range tests {
		t.Run(tt.format, func(t *testing.T) {
			f := newFixture(t, tt.format, nil)
			originalSession(f.srv)
			f.once()
			f.wantLabels(tt.want...)
			// A second pass changes nothing and renames nothing.
			f.srv.ResetCounters()
			f.once()
			if n := len(f.srv.Renames()); n != 0 {
				t.Fatalf("idle pass renamed %d tabs", n)
			}
		})
	}
}

func TestDryRunRenamesNothing(t *testing.T) {
	f := newFixture(t, "{proc|dir}", func(o *Options) { o.Naming.Apply = false })
	originalSession(f.srv)
	reps := f.once()
	if n := len(f.srv.Renames()); n != 0 {
		t.Fatalf("dry run renamed %d tabs", n)
	}
	would := 0
	for _, r := range reps {
		if r.Action == pass.ActionWouldRename {
			would++
		}
	}
	if would != 4 {
		t.Fatalf("dry run would rename %d tabs, want 4: %+v", would, reps)
	}
}

func TestHumanNamesSurviveRestartLockRelease(t *testing.T) {
	f := newFixture(t, "{proc|dir}", nil)
	_, panes := originalSession(f.srv)
	f.once()
	tabID := f.srv.Snapshot().Tabs[3].ID
	f.srv.HumanRename(tabID, "monitor")
	f.srv.SetForeground(panes[3]) // btop exits
	f.once()
	f.wantLabels("pi", "nixos", "rmk", "monitor")

	// A new daemon on the same state file still knows "monitor" is a person's.
	g := newFixture(t, "{proc|dir}", func(o *Options) { o.StatePath = f.d.opt.StatePath; o.Socket = f.srv.SocketPath() })
	g.srv = f.srv
	g.once()
	f.wantLabels("pi", "nixos", "rmk", "monitor")

	// release hands it back.
	if err := g.d.State().Edit(func(tx *state.Tx) { tx.Release(state.TabTarget(tabID), "monitor") }); err != nil {
		t.Fatal(err)
	}
	g.once()
	f.wantLabels("pi", "nixos", "rmk", "rmk")

	// lock freezes our name even when the program changes.
	if err := g.d.State().Edit(func(tx *state.Tx) { tx.Lock(state.TabTarget(tabID), "rmk") }); err != nil {
		t.Fatal(err)
	}
	f.srv.SetForeground(panes[3], herdrsim.Proc{Argv: []string{"htop"}})
	g.once()
	f.wantLabels("pi", "nixos", "rmk", "rmk")
}

func TestForceOverridesHuman(t *testing.T) {
	f := newFixture(t, "{proc|dir}", func(o *Options) { o.Naming.Force = true })
	ws, _, _ := f.srv.NewWorkspace("main", home+"/a")
	_ = ws
	tab := f.srv.Snapshot().Tabs[0].ID
	f.srv.HumanRename(tab, "mine")
	f.once()
	f.wantLabels("a")
}

func TestRenumberingIsNoRename(t *testing.T) {
	f := newFixture(t, "{proc|dir}", func(o *Options) { o.Naming.Apply = false })
	ws, t1, _ := f.srv.NewWorkspace("main", home+"/a")
	f.srv.NewTab(ws, home+"/b")
	f.srv.NewTab(ws, home+"/c")
	f.srv.CloseTab(t1)
	// Labels are now the positions "1" and "2": herdr's own.
	reps := f.once()
	for _, r := range reps {
		if r.Verdict != "herdr's" {
			t.Fatalf("tab %s label %q judged %s, want herdr's", r.TabID, r.Label, r.Verdict)
		}
	}
}

func TestIdlePassIsOneConnectionNoProcessInfo(t *testing.T) {
	f := newFixture(t, "{proc|dir}", nil)
	f.setInspector(fakeInspector{f.srv})
	originalSession(f.srv)
	f.once()
	f.srv.ResetCounters()
	st, err := f.d.PassStats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if c := f.srv.Connections(); c != 1 {
		t.Errorf("idle pass used %d connections, want 1", c)
	}
	if n := f.srv.Calls("pane.process_info"); n != 0 || st.ProcessInfoCalls != 0 {
		t.Errorf("idle pass asked process_info %d times, want 0", n)
	}
}

// fakeInspector agrees with herdrtest's made-up processes the way /proc
// agrees with a real herdr.
type fakeInspector struct{ srv *herdrsim.Server }

func (f fakeInspector) ForegroundPGID(pid int) (int, error) { return f.srv.ForegroundPGID(pid) }
func (fakeInspector) Process(int) (procinfo.Proc, error) {
	return procinfo.Proc{}, os.ErrNotExist
}
func (fakeInspector) Children(int) ([]int, error) { return nil, os.ErrNotExist }

func TestStatePrunedAfterTabsClose(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	f := newFixture(t, "{proc|dir}", func(o *Options) { o.Now = func() time.Time { return now } })
	ws, t1, _ := f.srv.NewWorkspace("main", home+"/a")
	f.srv.NewTab(ws, home+"/b")
	f.once()
	if !f.d.State().Has(state.TabTarget(t1)) {
		t.Fatalf("state lacks %s after rename", t1)
	}
	f.srv.CloseTab(t1)
	f.once()
	if m, ok := f.d.State().Tab(t1), f.d.State().Has(state.TabTarget(t1)); !ok || m.MissingSince == nil {
		t.Fatalf("closed tab should be marked missing, not dropped at once: %+v", m)
	}
	now = now.Add(2 * state.PruneAfter)
	f.once()
	if f.d.State().Has(state.TabTarget(t1)) {
		t.Fatalf("state still holds closed tab %s after %v", t1, 2*state.PruneAfter)
	}
	// The file agrees.
	st, err := state.Load(f.d.opt.StatePath, "")
	if err != nil {
		t.Fatal(err)
	}
	if st.Has(state.TabTarget(t1)) {
		t.Fatalf("state file still holds %s", t1)
	}
}

func TestRunLoopFollowsEventsAndNudges(t *testing.T) {
	f := newFixture(t, "{icon} {proc|dir}", nil)
	ws, _, p1 := f.srv.NewWorkspace("main", home+"/a")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.d.Run(ctx, nil) }()
	waitFor(t, "first pass", func() bool { return strings.Join(f.labels(), "|") == "a" })

	// A new tab arrives through the event stream.
	f.srv.NewTab(ws, home+"/b")
	waitFor(t, "event-driven rename", func() bool { return strings.Join(f.labels(), "|") == "a|b" })

	// A program start is silent in herdr: a nudge makes it visible.
	f.srv.SetForeground(p1, herdrsim.Proc{Argv: []string{"vim"}})
	if err := nudge.Send(nudge.SocketPath(f.srv.SocketPath()), p1, nudge.WhenPrecmd); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "nudge rename", func() bool { return f.labels()[0] == "vim" })

	// Junk on the nudge socket is dropped and the daemon lives on.
	sendRaw(t, nudge.SocketPath(f.srv.SocketPath()), []byte("garbage"))

	// A new agent comes on the stream (pane.agent_detected); its status
	// changes come from the plugin's event hook.
	f.srv.SetForeground(p1)
	f.srv.SetAgent(p1, "claude", herdr.StatusWorking)
	waitFor(t, "agent icon", func() bool { return f.labels()[0] == "🟡 a" })
	f.srv.SetAgent(p1, "claude", herdr.StatusBlocked)
	if err := nudge.Send(nudge.SocketPath(f.srv.SocketPath()), p1, nudge.WhenAgent); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "blocked icon", func() bool { return f.labels()[0] == "🔴 a" })

	// A second daemon for the same server refuses to start.
	g := newFixture(t, "{proc|dir}", func(o *Options) { o.Socket = f.srv.SocketPath() })
	if err := g.d.Run(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Fatalf("second daemon: err = %v, want already running", err)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not stop")
	}
	if _, err := os.Stat(nudge.SocketPath(f.srv.SocketPath())); !os.IsNotExist(err) {
		t.Fatalf("nudge socket left behind: %v", err)
	}
}

func TestServerOutageOneLogLine(t *testing.T) {
	f := newFixture(t, "{proc|dir}", func(o *Options) { o.Poll = 20 * time.Millisecond })
	ws, _, _ := f.srv.NewWorkspace("main", home+"/a")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.d.Run(ctx, nil) }()
	running := true
	defer func() { // a failed wait leaves no daemon behind
		if running {
			cancel()
			<-done
		}
	}()
	waitFor(t, "first pass", func() bool { return f.labels()[0] == "a" })
	for i := 0; i < 3; i++ {
		if err := f.srv.Stop(); err != nil {
			t.Fatal(err)
		}
		// Stay down until the daemon has seen this outage.
		waitFor(t, "outage logged", func() bool {
			return f.traced(TraceOutage) > i
		})
		if err := f.srv.Restart(); err != nil {
			t.Fatal(err)
		}
		f.srv.NewTab(ws, home+"/r"+string(rune('0'+i)))
		n := i + 2
		waitFor(t, "rename after restart", func() bool {
			l := f.labels()
			return len(l) == n && l[n-1] == "r"+string(rune('0'+i))
		})
		// The rename lands mid-pass; only once that pass is over does
		// the daemon count herdr as back, and a server stopped before
		// then would be the same outage to it.
		waitFor(t, "herdr back", func() bool { return f.traced(TraceBack) > i })
	}
	cancel()
	<-done
	running = false
	// One line per outage the daemon saw: "not reachable" and "back"
	// alternate. (Two restarts may merge into one outage when no pass
	// succeeds between them.)
	var seq []string
	for _, tr := range f.traces.snapshot() {
		switch tr.Kind {
		case TraceOutage:
			seq = append(seq, "down")
		case TraceBack:
			seq = append(seq, "up")
		}
	}
	for _, l := range testutil.Grep(f.log.String(), "level=WARN") {
		if len(testutil.Traced(l, string(TraceOutage))) == 0 {
			t.Errorf("a lost server should cost one outage line, not another warning: %s", l)
		}
	}
	if len(seq) < 2 {
		t.Fatalf("no outage logged:\n%s", f.log.String())
	}
	for i, s := range seq {
		if want := []string{"down", "up"}[i%2]; s != want {
			t.Fatalf("outage lines out of order %v:\n%s", seq, f.log.String())
		}
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testutil.WaitFor(t, what, cond)
}

func sendRaw(t *testing.T, path string, b []byte) {
	t.Helper()
	c, err := netDialUnixgram(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write(b); err != nil {
		t.Fatal(err)
	}
}

func TestPreexecNudgeWaitsForTheProgram(t *testing.T) {
	f := newFixture(t, "{proc|dir}", nil)
	f.setInspector(fakeInspector{f.srv})
	_, _, p1 := f.srv.NewWorkspace("main", home+"/a")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.d.Run(ctx, nil) }()
	defer func() { cancel(); <-done }()
	waitFor(t, "first pass", func() bool { return f.labels()[0] == "a" })
	f.srv.ResetCounters()

	// preexec comes before the program exists; it appears 30 ms later.
	if err := nudge.Send(nudge.SocketPath(f.srv.SocketPath()), p1, nudge.WhenPreexec); err != nil {
		t.Fatal(err)
	}
	// An input, not a wait: the program starts a moment after the nudge.
	time.Sleep(30 * time.Millisecond)
	f.srv.SetForeground(p1, herdrsim.Proc{Argv: []string{"make", "test"}})
	waitFor(t, "rename after preexec", func() bool { return f.labels()[0] == "make" })
	// The wait was local (/proc-like), not a stream of socket calls.
	if n := f.srv.Calls("pane.process_info"); n > 2 {
		t.Errorf("preexec wait asked process_info %d times", n)
	}
	if got := f.srv.Renames(); len(got) != 1 || got[0].Label != "make" {
		t.Errorf("renames = %+v, want exactly one to make", got)
	}
}

func TestReloadSwapsTheTemplate(t *testing.T) {
	f := newFixture(t, "{dir}", nil)
	f.srv.NewWorkspace("main", home+"/a")
	reload := make(chan Options, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.d.Run(ctx, reload) }()
	defer func() { cancel(); <-done }()
	waitFor(t, "first pass", func() bool { return f.labels()[0] == "a" })

	nm, err := namer.New(namer.Config{Format: "{number}:{dir}", Home: home})
	if err != nil {
		t.Fatal(err)
	}
	opt := f.d.opt
	opt.Naming.Namer = nm
	reload <- opt
	waitFor(t, "rename after reload", func() bool { return f.labels()[0] == "1:a" })
	if f.traced(TraceReloaded) == 0 {
		t.Fatalf("no reload log line:\n%s", f.log.String())
	}
}

func TestLostRenameReplyStaysOurs(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "{proc|dir}", func(o *Options) { o.Timeout = 200 * time.Millisecond })
	_, _, p1 := f.srv.NewWorkspace("main", home+"/a")
	// herdr applies the rename, but only after we stopped waiting.
	f.srv.SetLatency("tab.rename", 500*time.Millisecond)
	if _, err := f.d.Once(context.Background()); err == nil {
		t.Fatal("the pass should report the lost reply")
	}
	waitFor(t, "late rename to land", func() bool { return f.labels()[0] == "a" })
	f.srv.SetLatency("tab.rename", 0)
	// The shell moves on: "a" is no longer any render of the template, so
	// only our memory of the rename can tell it from a person's label.
	f.srv.SetCwd(p1, home+"/b")
	reps := f.once()
	if reps[0].Verdict != "ours" {
		t.Fatalf("a label we set whose reply was lost is judged %q, want ours", reps[0].Verdict)
	}
	f.wantLabels("b")
	if m := f.d.State().Tab(f.srv.Snapshot().Tabs[0].ID); m.Label != "b" {
		t.Fatalf("state after the rename: %+v", m)
	}
}

func TestOwnRenameEchoCostsNoPass(t *testing.T) {
	f := newFixture(t, "{proc|dir}", nil)
	f.setInspector(fakeInspector{f.srv})
	f.noHedging()
	ws, _, _ := f.srv.NewWorkspace("main", home+"/a")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.d.Run(ctx, nil) }()
	defer func() { cancel(); <-done }()
	waitFor(t, "first pass", func() bool { return f.labels()[0] == "a" })
	// The pass after subscribing must be done, and the replayed backlog
	// triaged (it is all old news too), before counting.
	waitFor(t, "pass after subscribing", func() bool { return f.traced(TraceFullPassDone) >= 1 })
	mark := len(f.caughtUp())
	f.srv.ResetCounters()
	f.srv.NewTab(ws, home+"/b")
	waitFor(t, "new tab named", func() bool { return len(f.labels()) == 2 && f.labels()[1] == "b" })
	// The echo of our rename must not cause another pass.
	lines := f.caughtUp()[mark:]
	echo := slices.IndexFunc(lines, func(l string) bool {
		return strings.Contains(l, "kind=tab.renamed") && strings.Contains(l, " label=b ")
	})
	if echo < 0 {
		t.Fatalf("the echo of our rename never reached the daemon:\n%s", strings.Join(lines, "\n"))
	}
	if n := f.srv.Calls("session.snapshot"); n != 1 || !strings.Contains(lines[echo], "old news") {
		t.Fatalf("%d snapshots for one new tab, want 1; the echo of our rename: %s", n, lines[echo])
	}
}

func TestPreexecAfterSilentExitWaitsForTheNewProgram(t *testing.T) {
	f := newFixture(t, "{proc|dir}", nil)
	f.setInspector(fakeInspector{f.srv})
	_, _, p1 := f.srv.NewWorkspace("main", home+"/a")
	f.srv.SetForeground(p1, herdrsim.Proc{Argv: []string{"vim"}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.d.Run(ctx, nil) }()
	defer func() { cancel(); <-done }()
	waitFor(t, "first pass", func() bool { return f.labels()[0] == "vim" })
	waitFor(t, "pass after subscribing", func() bool { return testutil.Subscribed(f.log.String()) })

	// vim exits with no precmd nudge (hooks installed later, say): the
	// cached group is stale. The next command must still be caught.
	f.srv.SetForeground(p1)
	if err := nudge.Send(nudge.SocketPath(f.srv.SocketPath()), p1, nudge.WhenPreexec); err != nil {
		t.Fatal(err)
	}
	// An input, not a wait: the new program starts a moment after the nudge.
	time.Sleep(50 * time.Millisecond)
	f.srv.SetForeground(p1, herdrsim.Proc{Argv: []string{"make"}})
	waitFor(t, "rename to the new program", func() bool { return f.labels()[0] == "make" })
}

// The preexec and stream watchers run off the loop goroutine, and they
// too read the daemon's one clock, which a reload does not replace: a
// window, an age or a stream's start read on the wall clock would be on
// another time line than the decisions that compare with them.
func TestWatchersFollowTheInjectedClock(t *testing.T) {
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC) // far from the wall clock
	var ns atomic.Int64
	ns.Store(start.UnixNano())
	clock := func() time.Time { return time.Unix(0, ns.Load()).UTC() }
	f := newFixture(t, "{dir}", func(o *Options) { o.Now = clock }, herdrsim.WithProtocol(20))
	f.srv.NewWorkspace("main", home+"/a")

	reload := make(chan Options, 1)
	runDaemon(t, f, reload)
	waitFor(t, "first subscription", func() bool { return f.traced(TraceSubscribed) > 0 })
	// A reload carries the wall clock; the daemon keeps its own.
	opt := f.d.opt
	opt.Now = time.Now
	reload <- opt
	waitFor(t, "reload", func() bool { return f.traced(TraceReloaded) > 0 })
	if got := f.d.now(); !got.Equal(start) {
		t.Fatalf("after a reload the daemon reads %v, want the injected clock's %v", got, start)
	}

	// The preexec window (an hour here) ends when the injected clock
	// passes it: each probe moves it a minute, so the 60th probe is the
	// last, with no real hour spent.
	probes := 0
	done := make(chan preexecReady, 1)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go f.d.arm(preexecWait{pane: "p", window: time.Hour, every: time.Millisecond,
		changed: func(context.Context) bool { probes++; ns.Add(int64(time.Minute)); return false }}).await(ctx, done)
	select {
	case r := <-done:
		if !r.at.Equal(start) || probes != 60 {
			t.Fatalf("preexec wait asked at %v after %d probes, want %v after 60 (an hour on the injected clock)", r.at, probes, start)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a preexec window of an hour on the injected clock did not end when the clock passed it")
	}
}

// A pane whose shell is not ours to look at (another pid namespace) is
// asked about again now and then, in case its program changed without a
// title. A nudged pass must not wait for that: its rename would wait on a
// reply about another pane, 100 ms when that request misses herdr's first
// look. The poll passes do the refreshing.
func TestUrgentPassRefreshesNoOtherPane(t *testing.T) {
	f, panes := hiddenPaneSession(t)
	ctx := context.Background()
	f.srv.ResetCounters()
	_, st, err := f.d.pass(ctx, passInput{Input: pass.Input{Forced: map[string]bool{panes[2]: true}, Urgent: true}})
	if err != nil {
		t.Fatal(err)
	}
	if n := f.srv.Calls("pane.process_info"); n != 0 || st.LocalReads != 1 {
		t.Errorf("nudged pass: %d process_info calls, %d local reads; want 0 and 1 (the nudged pane, read locally)", n, st.LocalReads)
	}
	f.srv.ResetCounters()
	if _, _, err := f.d.pass(ctx, passInput{}); err != nil {
		t.Fatal(err)
	}
	if n := f.srv.Calls("pane.process_info"); n != 1 {
		t.Errorf("poll pass: %d process_info calls, want 1 (the hidden pane's refresh)", n)
	}
}

// hiddenPaneSession is the original session after its first pass, with
// the last pane's shell out of the daemon's sight (another pid namespace)
// and every read sent once, so that tests count process_info exactly.
func hiddenPaneSession(t *testing.T) (*fixture, [4]string) {
	t.Helper()
	f := newFixture(t, "{proc|dir}", nil)
	f.noHedging()
	_, panes := originalSession(f.srv)
	hidden, err := f.d.client.ProcessInfo(context.Background(), panes[3])
	if err != nil {
		t.Fatal(err)
	}
	f.setInspector(hiddenInspector{fakeInspector{f.srv}, hidden.ShellPID})
	f.once()
	return f, panes
}

// hiddenInspector cannot see one shell, as if it ran in another pid
// namespace.
type hiddenInspector struct {
	fakeInspector
	hidden int
}

func (h hiddenInspector) ForegroundPGID(pid int) (int, error) {
	if pid == h.hidden {
		return 0, os.ErrNotExist
	}
	return h.fakeInspector.ForegroundPGID(pid)
}

// The same for a pane we cannot read locally whose revision moved (an
// agent in a container, its title spinning): a nudged pass leaves it to
// the pass its own news brings, or to the poll, and its tab keeps the name
// from the last answer meanwhile. An event pass, nudged for no pane, asks.
func TestNudgedPassAsksAboutNoOtherChangedPane(t *testing.T) {
	f, panes := hiddenPaneSession(t)
	ctx := context.Background()
	before := f.labels()
	// herdr's revision follows the title, not the program.
	f.srv.SetForeground(panes[3], herdrsim.Proc{Argv: []string{"htop"}})
	f.srv.SetTitle(panes[3], "htop")
	f.srv.ResetCounters()
	reps, _, err := f.d.pass(ctx, passInput{Input: pass.Input{Forced: map[string]bool{panes[2]: true}, Urgent: true}})
	if err != nil {
		t.Fatal(err)
	}
	if n := f.srv.Calls("pane.process_info"); n != 0 {
		t.Errorf("nudged pass: %d process_info calls, want 0", n)
	}
	for _, r := range reps {
		if r.Lead == panes[3] && r.Want != "btop" {
			t.Errorf("nudged pass: the changed pane's tab wants %q, want the last answer, btop", r.Want)
		}
	}
	f.srv.ResetCounters()
	if _, _, err := f.d.pass(ctx, passInput{Input: pass.Input{Urgent: true}}); err != nil {
		t.Fatal(err)
	}
	if n := f.srv.Calls("pane.process_info"); n != 1 {
		t.Errorf("event pass: %d process_info calls, want 1 (the changed pane)", n)
	}
	f.wantLabels(before[0], before[1], before[2], "htop")
}

// A herdr that is shutting down answers server_unavailable to every
// request but ping: the daemon takes it for an outage (one warning, with
// the socket, then quiet passes), not for a failed pass each poll.
func TestShuttingDownServerIsAnOutage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "{proc|dir}", func(o *Options) { o.Poll = 20 * time.Millisecond }, herdrsim.WithProtocol(20))
	f.srv.NewWorkspace("main", home+"/a")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.d.Run(ctx, nil) }()
	defer func() { cancel(); <-done }()
	waitFor(t, "first pass", func() bool { return f.labels()[0] == "a" })
	if err := herdr.New(f.srv.SocketPath()).Call(ctx, "server.stop", map[string]any{}, nil); err != nil {
		t.Fatal(err)
	}
	warns := func() []string { return testutil.Grep(f.log.String(), "level=WARN") }
	waitFor(t, "the outage warning", func() bool { return len(warns()) > 0 })
	start := f.srv.Calls("session.snapshot")
	waitFor(t, "five more passes", func() bool { return f.srv.Calls("session.snapshot") >= start+5 })
	got := warns()
	if len(got) != 1 || !strings.Contains(got[0], "socket=") {
		t.Fatalf("warnings while herdr shuts down = %q, want one outage line naming the socket", got)
	}
}

// A command line that holds a terminal escape sequence (grep for colored
// text, say) names its tab cleaned of it under {args}, not left unnamed.
func TestArgsWithEscapesAreCleaned(t *testing.T) {
	f := newFixture(t, "{args}", nil)
	_, _, p1 := f.srv.NewWorkspace("main", home+"/rmk")
	f.srv.SetForeground(p1, herdrsim.Proc{Argv: []string{"tail", "-f", "/dev/null", "\x1b[31mTODO\x1b[0m"}})
	f.once()
	f.wantLabels("tail -f /dev/null TODO")
}

// setInspector gives the daemon's passes a local inspector after the
// fixture was made.
func (f *fixture) setInspector(insp procinfo.Inspector) {
	f.d.opt.Naming.Inspector = insp
	f.d.planner.Reconfigure(f.d.opt.Naming)
	f.d.shells.Inspect(insp)
}

// ReadFront is the look at a simulated shell's terminal.
func (f fakeInspector) ReadFront(pid int) (procinfo.Front, error) {
	term, err := f.srv.Terminal(pid)
	if err != nil {
		return procinfo.Front{}, err
	}
	proc := func(p herdrsim.Proc) procinfo.FrontProc {
		return procinfo.FrontProc{PID: p.PID, Comm: p.Name, Argv: p.Argv, Cwd: p.Cwd}
	}
	sh := proc(term.Shell)
	fr := procinfo.Front{ShellPID: sh.PID, PGID: sh.PID, ShellComm: sh.Comm, ShellArgv: sh.Argv, ShellCwd: sh.Cwd, Leader: sh}
	if n := len(term.Front); n > 0 {
		fr.PGID, fr.Leader = term.Front[0].PID, proc(term.Front[0])
		if n > 1 {
			fr.Child = proc(term.Front[n-1])
		}
	}
	return fr, nil
}
func (fakeInspector) ProveLocal(_, shell int) (bool, string) {
	return shell > 0, "herdrtest's made-up shell"
}

func (h hiddenInspector) ReadFront(pid int) (procinfo.Front, error) {
	if pid == h.hidden {
		return procinfo.Front{}, os.ErrNotExist
	}
	return h.fakeInspector.ReadFront(pid)
}

func (h hiddenInspector) ProveLocal(server, shell int) (bool, string) {
	if shell == h.hidden {
		return false, "in another pid namespace"
	}
	return h.fakeInspector.ProveLocal(server, shell)
}
