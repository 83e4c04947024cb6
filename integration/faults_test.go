package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
	"github.com/herdrtabrenamer/herdrtabrenamer/pass"

	"go.uber.org/goleak"

	"github.com/herdrtabrenamer/herdrtabrenamer/daemon"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// The traces the daemon logs once per outage and once per recovery.
const (
	outageTrace = "outage"
	backTrace   = "back"
)

// outageLog lists, in order, the outage and recovery lines of a daemon
// log as "down" and "up".
func outageLog(log string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		switch {
		case len(testutil.Traced(l, outageTrace)) > 0:
			out = append(out, "down")
		case len(testutil.Traced(l, backTrace)) > 0:
			out = append(out, "up")
		}
	}
	return out
}

// allowedLabels records, per tab, every label that was right at some
// moment, so a test can prove that no rename ever set anything else.
type allowedLabels struct {
	mu   sync.Mutex
	tabs map[string]map[string]bool
}

func (a *allowedLabels) allow(tab, label string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.tabs == nil {
		a.tabs = map[string]map[string]bool{}
	}
	if a.tabs[tab] == nil {
		a.tabs[tab] = map[string]bool{}
	}
	a.tabs[tab][label] = true
}

// check fails t for every rename srv answered that was never right.
func (a *allowedLabels) check(t testing.TB, srv *herdrsim.Server) {
	t.Helper()
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, r := range srv.Renames() {
		if !a.tabs[r.TabID][r.Label] {
			t.Errorf("wrong rename: %s -> %q was never the right name (all renames: %q)", r.TabID, r.Label, renameLabels(srv))
		}
	}
}

// soak is n, or under -short a tenth of it: the soak tests keep every
// kind of fault under -short, but repeat each fewer times.
func soak(n int) int {
	if testing.Short() {
		return max(n/10, 1)
	}
	return n
}

// TestFaultHerdrRestarts50 stops and restarts herdr 50 times (5 under
// -short) under a running daemon: each outage is logged once, each
// recovery once, and a change made after every restart is picked up.
func TestFaultHerdrRestarts50(t *testing.T) {
	t.Parallel()
	restarts := soak(50)
	// Outages and recoveries, not latency: herdr's read poll would only
	// stretch each of the 50 rounds by up to 100 ms per request.
	srv := startServer(t, herdrsim.WithTick(5*time.Millisecond), herdrsim.WithoutReadPoll())
	sb := newSandbox(t)
	_, tab, pane := srv.NewWorkspace("main", sb.HomePath("start"))
	d := startDaemonIn(t, sb, srv, "--poll", "50ms")
	waitLabel(t, srv, tab, "start")
	// herdr applies a rename before it answers; stopping it in between
	// loses the answer, and the daemon then takes its own label for a
	// person's (reported to the lead). Wait for the answer first.
	waitRenamed := func(i int, label string) {
		t.Helper()
		if !poll(waitTimeout, func() bool { return strings.Contains(d.Log(), "new="+label+" ") }) {
			t.Fatalf("restart %d: daemon never logged its rename to %q\nlog:\n%s", i, label, d.Log())
		}
	}
	waitRenamed(-1, "start")
	var ok allowedLabels
	ok.allow(tab, "start")

	for i := range restarts {
		if err := srv.Stop(); err != nil {
			t.Fatalf("restart %d: stop: %v", i, err)
		}
		// Wait until the daemon has seen this outage: a restart it never
		// noticed would prove nothing.
		if !poll(waitTimeout, func() bool { return len(testutil.Traced(d.Log(), outageTrace)) == i+1 }) {
			t.Fatalf("restart %d: daemon logged %d outages, want %d\nlog:\n%s", i, len(testutil.Traced(d.Log(), outageTrace)), i+1, d.Log())
		}
		if err := srv.Restart(); err != nil {
			t.Fatalf("restart %d: %v", i, err)
		}
		want := fmt.Sprintf("r%d", i)
		ok.allow(tab, want)
		srv.SetCwd(pane, sb.HomePath(want))
		if !poll(waitTimeout, func() bool { return label(srv, tab) == want }) {
			t.Fatalf("restart %d: label %q, want %q\nlog:\n%s", i, label(srv, tab), want, d.Log())
		}
		waitRenamed(i, want)
		// The label changes when herdr applies the rename; the daemon
		// counts herdr as back once its pass ends. Stopping herdr in
		// between would make one long outage of two.
		if !poll(waitTimeout, func() bool { return len(testutil.Traced(d.Log(), backTrace)) == i+1 }) {
			t.Fatalf("restart %d: daemon logged %d recoveries, want %d\nlog:\n%s", i, len(testutil.Traced(d.Log(), backTrace)), i+1, d.Log())
		}
		if d.Exited() {
			t.Fatalf("restart %d: daemon exited\nlog:\n%s", i, d.Log())
		}
	}
	if !poll(waitTimeout, func() bool { return len(testutil.Traced(d.Log(), backTrace)) == restarts }) {
		t.Fatalf("daemon logged %d recoveries, want %d", len(testutil.Traced(d.Log(), backTrace)), restarts)
	}
	got := outageLog(d.Log())
	want := slices.Repeat([]string{"down", "up"}, restarts)
	if !slices.Equal(got, want) {
		t.Errorf("outage log lines = %q, want %d alternating down/up", got, restarts)
	}
	ok.check(t, srv)
	t.Logf("%d herdr restarts survived; %d outage and %d recovery log lines", restarts,
		len(testutil.Traced(d.Log(), outageTrace)), len(testutil.Traced(d.Log(), backTrace)))
}

// TestFaultBadResponses feeds the daemon garbled, cut, oversized and
// missing answers on every method it uses, resets, and a delay past its
// deadline: it never crashes, never sets a wrong name, and recovers.
// Under -short it cuts the event stream twice instead of 20 times and
// leaves out the delay, which alone takes over 5 s (the client's fixed
// deadline).
func TestFaultBadResponses(t *testing.T) {
	t.Parallel()
	// The faults are in the answers, not in how fast herdr reads a
	// request: without the read poll each of the ~50 rounds takes a few
	// milliseconds instead of several 100 ms polls.
	srv := startServer(t, herdrsim.WithTick(5*time.Millisecond), herdrsim.WithoutReadPoll())
	sb := newSandbox(t)
	ws, shellTab, shellPane := srv.NewWorkspace("main", sb.HomePath("a"))
	progTab, progPane := srv.NewTab(ws, sb.HomePath("b"))
	srv.SetForeground(progPane, herdrsim.Proc{Argv: []string{"htop"}})
	var ok allowedLabels
	ok.allow(shellTab, "a")
	ok.allow(progTab, "htop")
	d := startDaemonIn(t, sb, srv, "--poll", "50ms")
	waitLabels(t, srv, "a", "htop")

	methods := []string{"session.snapshot", "pane.process_info", "tab.rename", "events.subscribe", ""}
	faults := []herdrsim.Fault{herdrsim.FaultGarbage, herdrsim.FaultCloseNoAnswer, herdrsim.FaultReset,
		herdrsim.FaultCutLine, herdrsim.FaultOversize}
	round := 0
	// step injects a fault (or runs hurt), then changes the session: a
	// shell tab moves to a new directory and a new tab starts a program.
	// Both must get their right names and nothing else.
	step := func(what string, hurt func()) {
		t.Helper()
		hurt()
		round++
		dir := fmt.Sprintf("a%d", round)
		ok.allow(shellTab, dir)
		srv.SetCwd(shellPane, sb.HomePath(dir))
		prog := fmt.Sprintf("prog%d", round)
		tab, pane := srv.NewTab(ws, sb.HomePath(fmt.Sprintf("n%d", round)))
		// A failed process_info must never make a program's tab a
		// directory's, even for a moment.
		ok.allow(tab, prog)
		srv.SetForeground(pane, herdrsim.Proc{Argv: []string{prog}})
		if !poll(waitTimeout, func() bool { return label(srv, shellTab) == dir && label(srv, tab) == prog }) {
			t.Fatalf("%s: labels %q, want %s=%q and %s=%q\nlog:\n%s", what, labels(srv), shellTab, dir, tab, prog, d.Log())
		}
		if d.Exited() {
			t.Fatalf("%s: daemon exited\nlog:\n%s", what, d.Log())
		}
	}
	for _, m := range methods {
		for _, f := range faults {
			name := m
			if name == "" {
				name = "any method"
			}
			step(fmt.Sprintf("%v on %s", f, name), func() { srv.InjectFault(m, f, 3) })
		}
	}
	cuts := soak(20)
	for i := range cuts {
		step(fmt.Sprintf("event stream cut mid-line #%d", i+1), srv.DropSubscriptions)
	}
	timeouts := 0
	if !testing.Short() {
		// Late answers: the daemon's client gives up after its 5 s
		// deadline (there is no flag to shorten it), so a 7 s delay is a
		// timeout.
		timeouts++
		before := len(testutil.Traced(d.Log(), outageTrace))
		step("session.snapshot answered after the deadline", func() {
			srv.SetLatency("session.snapshot", 7*time.Second)
			if !poll(3*waitTimeout, func() bool { return len(testutil.Traced(d.Log(), outageTrace)) > before }) {
				t.Fatalf("no timeout logged for a 7 s snapshot\nlog:\n%s", d.Log())
			}
			srv.SetLatency("session.snapshot", 0)
		})
	}
	ok.check(t, srv)
	t.Logf("%d fault rounds (%d methods x %d faults, %d stream cuts, %d timeouts): no crash, %d renames, all right",
		round, len(methods), len(faults), cuts, timeouts, len(srv.Renames()))
}

// tempLitter lists renameio temp files (".<base><digits>") beside path.
func tempLitter(path string) []string {
	dir, base := filepath.Split(path)
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		suffix, found := strings.CutPrefix(e.Name(), "."+base)
		if found && suffix != "" && strings.Trim(suffix, "0123456789") == "" {
			out = append(out, e.Name())
		}
	}
	return out
}

// checkStateParses fails t unless the state file, when present, is valid
// JSON of the right version whose labels are all ones that were right.
func checkStateParses(t testing.TB, path string, valid func(tab, label string) bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return
	}
	if err != nil {
		t.Fatalf("read state: %v", err)
	}
	var sf stateFile
	if err := json.Unmarshal(b, &sf); err != nil {
		t.Fatalf("state file %s does not parse after SIGKILL: %v\n%s", path, err, b)
	}
	if sf.Version != 1 {
		t.Fatalf("state file version %d, want 1", sf.Version)
	}
	for id, m := range sf.Tabs {
		if m.Label != "" && !valid(id, m.Label) {
			t.Fatalf("state file remembers %s as %q, a name we never set", id, m.Label)
		}
	}
}

// TestFaultSIGKILL200 kills a busy daemon with SIGKILL 200 times (20
// under -short) at random moments while it renames: the state file always
// parses, and the temp files a killed write leaves are removed by the next
// daemon's save.
func TestFaultSIGKILL200(t *testing.T) {
	t.Parallel()
	const tabs = 20
	kills := soak(200)
	// Without herdr's read poll: with it the daemon spends most of its
	// life waiting for herdr to read its requests, so most kills would
	// land in that wait instead of in the work and the state writes this
	// test is about, and each of the 200 starts would cost several polls.
	srv := startServer(t, herdrsim.WithTick(5*time.Millisecond), herdrsim.WithoutReadPoll())
	sb := newSandbox(t)
	var panes []string
	ws, _, p := srv.NewWorkspace("main", sb.HomePath("d0"))
	panes = append(panes, p)
	for i := 1; i < tabs; i++ {
		_, p := srv.NewTab(ws, sb.HomePath(fmt.Sprintf("d%d", i)))
		panes = append(panes, p)
	}
	// Programs flip between vim and the prompt, so every pass renames.
	valid := func(_, label string) bool {
		if label == "vim" {
			return true
		}
		n, err := strconv.Atoi(strings.TrimPrefix(label, "d"))
		return strings.HasPrefix(label, "d") && err == nil && n >= 0 && n < tabs
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		on := make([]bool, len(panes))
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
			k := i % len(panes)
			on[k] = !on[k]
			if on[k] {
				srv.SetForeground(panes[k], herdrsim.Proc{Argv: []string{"vim"}})
			} else {
				srv.SetForeground(panes[k])
			}
		}
	})
	defer func() { close(stop); wg.Wait() }()

	// No --force: a kill between herdr applying a rename and saving it
	// must not make our label look like a person's to the next daemon (the
	// state records each rename as pending before asking herdr), or the
	// renaming would stop here.
	args := append(daemonArgs(sb, srv), "--poll", "10ms", "--log-level", "warn")
	litterSeen := 0
	start := time.Now()
	for i := range kills {
		srv.ResetCounters()
		d := spawnDaemon(t, sb, srv, args...)
		if !poll(waitTimeout, func() bool { return len(srv.Renames()) > 0 || d.Exited() }) || d.Exited() {
			t.Fatalf("kill %d: daemon did not start renaming (exited=%v; %d passes)\nstderr:\n%s", i, d.Exited(), srv.Calls("session.snapshot"), d.Log())
		}
		// An input, not a wait: the kill lands at a random moment of
		// the daemon's work.
		time.Sleep(time.Duration(rand.IntN(51)) * time.Millisecond)
		d.Kill()
		checkStateParses(t, sb.StatePath, valid)
		if len(tempLitter(sb.StatePath)) > 0 {
			litterSeen++
		}
	}
	killing := time.Since(start)
	// Leave litter of our own too, so the clean-up is proven even when no
	// kill happened to land inside a write.
	planted := filepath.Join(filepath.Dir(sb.StatePath), "."+filepath.Base(sb.StatePath)+"4242424242")
	if err := os.WriteFile(planted, []byte(`{"version":1,"tab`), 0o600); err != nil {
		t.Fatal(err)
	}
	srv.ResetCounters()
	d := startDaemonIn(t, sb, srv, "--poll", "10ms")
	if !poll(waitTimeout, func() bool { return len(srv.Renames()) > 0 && len(tempLitter(sb.StatePath)) == 0 }) {
		t.Fatalf("temp litter survived the next daemon's save: %q\nlog:\n%s", tempLitter(sb.StatePath), d.Log())
	}
	checkStateParses(t, sb.StatePath, valid)
	t.Logf("%d SIGKILLs in %v: state parsed every time; %d kills left temp litter, all removed by the next start",
		kills, killing.Round(time.Millisecond), litterSeen)
}

// procCounts reads what we can see of a process from outside: open file
// descriptors and OS threads.
func procCounts(t testing.TB, pid int) (fds, threads int) {
	t.Helper()
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		t.Fatalf("read fds of %d: %v", pid, err)
	}
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("read status of %d: %v", pid, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Threads:"); ok {
			threads, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return len(ents), threads
}

// junkDatagrams are what a confused or hostile sender might write to the
// nudge socket; each must be dropped.
var junkDatagrams = [][]byte{
	{},
	[]byte(strings.Repeat("x", 600)),
	[]byte(`{"v":1,"pane":`),
	[]byte(`{"v":2,"pane":"w1:p1"}`),
	[]byte(`{"v":1,"pane":"not-a-pane"}`),
	[]byte(`{"v":1,"pane":"w1:p1","when":"lunch"}`),
}

// floodNudges sends total nudges over about one second, spread over panes
// (every tenth a preexec), plus a junk datagram after every tenth nudge.
// It returns how many nudges could not be sent (a full queue drops them
// rather than stall a shell) and how long it took.
func floodNudges(t testing.TB, sock string, panes []string, total int) (failed int, took time.Duration) {
	t.Helper()
	junk, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		t.Fatalf("dial nudge socket: %v", err)
	}
	defer junk.Close()
	start := time.Now()
	for i := range total {
		when := nudge.WhenNow
		if i%10 == 5 {
			when = nudge.WhenPreexec
		}
		if err := nudge.Send(sock, panes[i%len(panes)], when); err != nil {
			if errors.Is(err, nudge.ErrNoDaemon) {
				t.Fatalf("nudge %d: %v", i, err)
			}
			failed++
		}
		if i%10 == 0 {
			_ = junk.SetWriteDeadline(time.Now().Add(50 * time.Millisecond))
			_, _ = junk.Write(junkDatagrams[(i/10)%len(junkDatagrams)])
		}
		// Pace to total per second (an input, not a wait).
		if ahead := time.Until(start.Add(time.Duration(i+1) * time.Second / time.Duration(total))); ahead > time.Millisecond {
			time.Sleep(ahead)
		}
	}
	return failed, time.Since(start)
}

// TestFaultNudgeFlood10000 sends 10,000 nudges in about a second, with junk
// datagrams mixed in, to the built daemon: passes stay spaced (at most one
// per 20 ms of nudging, plus polls and preexec re-checks), and the process
// ends with no more file descriptors than before and a bounded thread count.
// It counts passes over seconds of wall time, so it cannot be shortened;
// under -short it is skipped, and TestFaultNudgeFloodGoroutines still
// floods an in-process daemon.
func TestFaultNudgeFlood10000(t *testing.T) {
	if testing.Short() {
		t.Skip("a soak of 10,000 nudges over 5 s of wall time; run without -short")
	}
	const total = 10000
	srv := startServer(t)
	sb := newSandbox(t)
	ws, _, p1 := srv.NewWorkspace("main", sb.HomePath("a"))
	_, p2 := srv.NewTab(ws, sb.HomePath("b"))
	p3 := srv.Split(p2, sb.HomePath("c"))
	srv.SetForeground(p3, herdrsim.Proc{Argv: []string{"vim"}})
	panes := []string{p1, p2, p3}
	const pollEvery = time.Second
	// At debug level the daemon logs each hedged read, which the count of
	// passes below leaves out.
	d := startDaemonIn(t, sb, srv, "--poll", pollEvery.String(), "--log-level", "debug")
	waitLabels(t, srv, "a", "b")
	pid := d.Cmd.Process.Pid
	fds0, threads0 := procCounts(t, pid)

	srv.ResetCounters()
	mark := len(d.Log())
	failed, took := floodNudges(t, sb.NudgeSocket(srv.SocketPath()), panes, total)
	// A measuring window, an input of the bound below, not a wait: the
	// passes are counted over the flood and 1.5 s after it, time for
	// preexec re-checks (1 s at most) and the last spaced pass.
	time.Sleep(1500 * time.Millisecond)
	settled := took + 1500*time.Millisecond
	// Snapshot requests are passes, plus hedged reads (how many depends on
	// answer times and herdr/hedge.go's budget, not on the loop's spacing).
	passes := srv.Calls("session.snapshot") - hedged(d, mark, "session.snapshot")
	// Nudges queue in the socket and the loop's channel, so the daemon may
	// still be working through them after the last send: the 20 ms
	// spacing is counted over the whole window. On top come preexec
	// watchers (one per pane at a time): the pass each ends in goes
	// through the same spacing, and the session read each may take ahead
	// of it is spaced apart too (daemon's TestPreexecFloodReadsAheadOncePerGap).
	// Those get an allowance of two per pane per second.
	watchers := len(panes) * int(settled/time.Second+1)
	bound := int(settled/(20*time.Millisecond)) + int(settled/pollEvery) + 2*watchers + 5
	if passes > bound {
		t.Errorf("%d snapshot requests (hedges left out) for %d nudges in %v, want at most %d", passes, total, took, bound)
	}
	if passes == 0 {
		t.Errorf("no pass at all for %d nudges", total)
	}
	if d.Exited() {
		t.Fatalf("daemon exited during the flood\nlog:\n%s", d.Log())
	}
	// Once the flood is over, only polls remain.
	srv.ResetCounters()
	const calm = 2 * time.Second
	time.Sleep(calm) // a measuring window (passes per time), an input, not a wait
	if after := srv.Calls("session.snapshot"); after > int(calm/pollEvery)+2 {
		t.Errorf("%d passes in the %v after the flood, want at most %d (polls only)", after, calm, int(calm/pollEvery)+2)
	}
	// Requests in flight at once may each have opened a ring of the
	// io_uring pool, which stays: one per core at most. A leak grows with
	// the flood (10,000 nudges).
	var fds, threads int
	if !poll(waitTimeout, func() bool {
		fds, threads = procCounts(t, pid)
		return fds <= fds0+runtime.NumCPU()
	}) {
		t.Errorf("daemon fds grew from %d to %d after the flood", fds0, fds)
	}
	// Go keeps OS threads it made under load, so a few more are normal;
	// a leak grows with the flood (10,000 nudges).
	if threads > threads0+4 {
		t.Errorf("daemon threads grew from %d to %d after the flood", threads0, threads)
	}
	if len(srv.Renames()) != 0 {
		t.Errorf("nudges on unchanged panes renamed tabs: %q", renameLabels(srv))
	}
	t.Logf("%d nudges + %d junk datagrams in %v (%d not sent: queue full): %d passes (bound %d), fds %d -> %d, threads %d -> %d",
		total, total/10, took.Round(time.Millisecond), failed, passes, bound, fds0, fds, threads0, threads)
}

// TestFaultNudgeFloodGoroutines runs the same flood against an in-process
// daemon.Daemon, whose goroutines goleak can see: every one it started is
// gone after it stops.
func TestFaultNudgeFloodGoroutines(t *testing.T) {
	srv := startServer(t)
	sb := newSandbox(t)
	t.Setenv("XDG_RUNTIME_DIR", sb.Runtime)
	ws, _, p1 := srv.NewWorkspace("main", sb.HomePath("a"))
	_, p2 := srv.NewTab(ws, sb.HomePath("b"))
	nm, err := namer.New(namer.Config{Format: "{proc|dir}", MaxLen: 24, Home: sb.Home})
	if err != nil {
		t.Fatal(err)
	}
	procs, err := procinfo.New(procinfo.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := daemon.New(daemon.Options{
		Socket: srv.SocketPath(), Naming: pass.Config{Namer: nm, Procs: procs, Apply: true},
		StatePath: sb.StatePath, Poll: time.Second, Debounce: 20 * time.Millisecond, Timeout: 5 * time.Second,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	leakCheck := goleak.IgnoreCurrent()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx, nil) }()
	sock := nudge.SocketPath(srv.SocketPath())
	if !poll(waitTimeout, func() bool { return slices.Equal(labels(srv), []string{"a", "b"}) }) {
		cancel()
		t.Fatalf("in-process daemon did not name the tabs: %q", labels(srv))
	}
	failed, took := floodNudges(t, sock, []string{p1, p2}, 10000)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(waitTimeout):
		t.Fatalf("Run did not return %v after cancel", waitTimeout)
	}
	goleak.VerifyNone(t, leakCheck)
	t.Logf("10000 nudges in %v (%d not sent) to an in-process daemon: no goroutine left after Run", took.Round(time.Millisecond), failed)
}
