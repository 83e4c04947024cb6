// Package integration drives the built herdrtabrenamer binary as a user
// would: against herdrtest's fake herdr server (and a real herdr when one is
// on PATH), through its command line, its daemon and its shell hooks.
//
// Its tests run in parallel, several at once (TestMain, testsAtOnce). A
// test starts with t.Parallel() and owns all it touches: its sandboxes
// (newSandbox), herdrsim servers (startServer), real herdr servers
// (startRealHerdr: one per call, in folders of its own), daemons and
// relays; only the binary TestMain built is shared. onWorlds and
// onProtocols run their worlds in parallel too. A test stays serial only
// when it must change the process (t.Setenv, t.Chdir): it is then listed,
// with why, in serialTests (parallel_test.go), which
// TestEveryTestRunsInParallel holds every test to.
package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrtest"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
)

// binPath is the herdrtabrenamer binary TestMain built for this run.
var binPath string

// waitTimeout is how long a test waits for something the daemon should do
// within milliseconds: generous, because a loaded 2-core CI machine running
// -race can stall a process for whole seconds.
const waitTimeout = testutil.Timeout

// testsAtOnce is how many tests (and worlds) of this package run at once
// when go test is given no -parallel. go test's own default, one per
// core, would keep them waiting on one another: each spends most of its
// time waiting on herdr's 100 ms read poll and event ticks, on a daemon's
// passes and on the windows it measures, so that the whole package, run
// one test at a time, used about a third of one core. Four at once broke
// tests that race the daemon on a busy machine; three keep a serial run's
// margins. -parallel N on the command line wins (-parallel 1: one at a
// time).
const testsAtOnce = 3

// TestMain builds the binary once for every test of the package and runs
// testsAtOnce tests at once unless -parallel says otherwise. Set
// INTEGRATION_RACE=1 to build the binary with -race too (slower, catches
// daemon races end to end).
func TestMain(m *testing.M) {
	flag.Parse()
	parallelGiven := false
	flag.Visit(func(f *flag.Flag) { parallelGiven = parallelGiven || f.Name == "test.parallel" })
	if !parallelGiven {
		_ = flag.Set("test.parallel", strconv.Itoa(testsAtOnce))
	}
	if testing.Short() {
		// These tests build the binary and drive it against simulated and
		// real herdrs for minutes: -short is the quick loop of the unit
		// tests, and CI runs these in full.
		fmt.Println("integration: skipped under -short")
		os.Exit(0)
	}
	dir, err := os.MkdirTemp("", "htr-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, "integration: temp dir:", err)
		os.Exit(1)
	}
	binPath = filepath.Join(dir, "herdrtabrenamer")
	if err := buildBinary(binPath); err != nil {
		fmt.Fprintln(os.Stderr, "integration:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildBinary runs go build from the module root.
func buildBinary(out string) error {
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("go env GOMOD: %w", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	if root == "." || root == "" {
		return errors.New("go env GOMOD: not inside the module")
	}
	args := []string{"build", "-o", out}
	if os.Getenv("INTEGRATION_RACE") == "1" {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, ".")...)
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build %s in %s: %w\n%s", out, root, err, b)
	}
	return nil
}

// sandbox is one user's private world: home, XDG directories and the
// state file. A daemon and the commands talking to it (nudge, lock,
// release) must share one, or they would not find each other.
type sandbox struct {
	Home       string // $HOME; {dir} shows it as "~"
	Runtime    string // $XDG_RUNTIME_DIR (short: sun_path holds 108 bytes)
	ConfigHome string // $XDG_CONFIG_HOME
	StateHome  string // $XDG_STATE_HOME
	StatePath  string // the --state file startDaemon passes
	// Extra are KEY=VALUE pairs added to every command's environment.
	Extra []string
	// Wrap is a command line the binary runs under: its path and
	// arguments follow Wrap's.
	Wrap []string
}

// command is the binary with args, under sb.Wrap.
func (sb *sandbox) command(args ...string) *exec.Cmd {
	argv := append(append(slices.Clone(sb.Wrap), binPath), args...)
	return exec.Command(argv[0], argv[1:]...)
}

// newSandbox makes fresh directories, removed when t ends.
func newSandbox(t testing.TB) *sandbox {
	t.Helper()
	rt, err := os.MkdirTemp("", "rt")
	if err != nil {
		t.Fatalf("runtime dir: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(rt) })
	base := t.TempDir()
	sb := &sandbox{
		Home:       filepath.Join(base, "home"),
		Runtime:    rt,
		ConfigHome: filepath.Join(base, "config"),
		StateHome:  filepath.Join(base, "state"),
		StatePath:  filepath.Join(base, "state.json"),
	}
	for _, d := range []string{sb.Home, sb.ConfigHome, sb.StateHome} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatalf("sandbox: %v", err)
		}
	}
	return sb
}

// HomePath joins elements under the sandbox home.
func (sb *sandbox) HomePath(elem ...string) string {
	return filepath.Join(append([]string{sb.Home}, elem...)...)
}

// Environ is a clean environment: nothing of the test runner's herdr or
// herdrtabrenamer settings leaks in.
func (sb *sandbox) Environ(extra ...string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + sb.Home,
		"XDG_RUNTIME_DIR=" + sb.Runtime,
		"XDG_CONFIG_HOME=" + sb.ConfigHome,
		"XDG_STATE_HOME=" + sb.StateHome,
		"LANG=C.UTF-8",
	}
	if tmp := os.Getenv("TMPDIR"); tmp != "" {
		env = append(env, "TMPDIR="+tmp)
	}
	if v := os.Getenv(herdr.PlainRequestsEnv); v != "" {
		// `go test` with it set measures and checks the plain path.
		env = append(env, herdr.PlainRequestsEnv+"="+v)
	}
	env = append(env, sb.Extra...)
	return append(env, extra...)
}

// NudgeSocket is where a daemon serving srvSocket listens for nudges.
func (sb *sandbox) NudgeSocket(srvSocket string) string {
	return filepath.Join(sb.Runtime, "herdrtabrenamer", rundir.NudgeKey(srvSocket)+".nudge")
}

type syncBuffer = testutil.Buffer

// daemonProc is a running `herdrtabrenamer run`.
type daemonProc struct {
	Env    *sandbox
	Srv    *herdrsim.Server
	Stdout *syncBuffer
	Stderr *syncBuffer
	Cmd    *exec.Cmd

	done    chan struct{}
	waitErr error
	stopped bool
	killed  bool // by Kill: no clean exit to check
}

// daemonArgs are the flags every test daemon gets before its own: fast
// polling and debouncing, renaming on, a private state file. Later flags
// win, so a test can override any of them.
func daemonArgs(sb *sandbox, srv *herdrsim.Server) []string {
	return []string{"run", "--apply", "--socket", srv.SocketPath(), "--state", sb.StatePath,
		"--poll", "100ms", "--rest-poll", "100ms", "--debounce", "20ms"}
}

// startDaemon runs a daemon against srv in a fresh sandbox. It returns once
// the daemon listens for nudges (its first pass is under way), and stops it
// with SIGTERM when the test ends, failing the test unless it exited 0.
func startDaemon(t testing.TB, srv *herdrsim.Server, args ...string) *daemonProc {
	t.Helper()
	return startDaemonIn(t, newSandbox(t), srv, args...)
}

// startDaemonIn is startDaemon in a given sandbox: a restarted daemon keeps
// its state file, and nudge/lock/release find it.
func startDaemonIn(t testing.TB, sb *sandbox, srv *herdrsim.Server, args ...string) *daemonProc {
	t.Helper()
	d := spawnDaemon(t, sb, srv, append(daemonArgs(sb, srv), args...)...)
	d.listening(t, srv.SocketPath())
	return d
}

// listening waits until the daemon serving herdrSock listens for nudges
// (its first pass is under way), and stops it with SIGTERM when the test
// ends, failing the test unless it exited 0.
func (d *daemonProc) listening(t testing.TB, herdrSock string) {
	t.Helper()
	sock := d.Env.NudgeSocket(herdrSock)
	if !poll(waitTimeout, func() bool {
		_, err := os.Stat(sock)
		return err == nil || d.Exited()
	}) || d.Exited() {
		t.Fatalf("daemon did not start listening on %s\nstderr:\n%s", sock, d.Stderr.String())
	}
	t.Cleanup(func() {
		if d.killed {
			return // the test killed it on purpose
		}
		code := d.Stop()
		switch {
		case code != 0:
			t.Errorf("daemon exited %d after SIGTERM, want 0\nstderr:\n%s", code, d.Stderr.String())
		case t.Failed():
			// What the daemon said is the first thing a failure's reader
			// needs, and a flake cannot be run again to get it.
			t.Logf("daemon stderr (the test failed):\n%s", tail(d.Stderr.String(), 64<<10))
		}
	})
}

// tail is the last n bytes of s, from a line start.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// spawnDaemon starts the binary with exactly args (no defaults, no waiting,
// no exit check): for tests that need a daemon that fails or is killed.
func spawnDaemon(t testing.TB, sb *sandbox, srv *herdrsim.Server, args ...string) *daemonProc {
	t.Helper()
	d := &daemonProc{Env: sb, Srv: srv, Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, done: make(chan struct{})}
	d.Cmd = sb.command(args...)
	d.Cmd.Env = sb.Environ()
	d.Cmd.Stdout, d.Cmd.Stderr = d.Stdout, d.Stderr
	if err := d.Cmd.Start(); err != nil {
		t.Fatalf("start daemon: %v", err)
	}
	if srv != nil { // nil: a raw fake server of the test's own, no fence
		daemonOf.Store(srv, fenceTarget{
			sock:  sb.NudgeSocket(srv.SocketPath()),
			alive: func() bool { return !d.Exited() },
			log:   d.Log,
		})
	}
	go func() {
		d.waitErr = d.Cmd.Wait()
		close(d.done)
	}()
	t.Cleanup(func() {
		// A test that fails early must not leave a daemon behind.
		if !d.Exited() {
			_ = d.Cmd.Process.Kill()
			<-d.done
		}
	})
	return d
}

// Exited reports whether the process has ended.
func (d *daemonProc) Exited() bool {
	select {
	case <-d.done:
		return true
	default:
		return false
	}
}

// Wait waits for the process to end (at most timeout) and returns its
// exit status, -1 when it did not end or died from a signal.
func (d *daemonProc) Wait(timeout time.Duration) int {
	select {
	case <-d.done:
	case <-time.After(timeout):
		return -1
	}
	if d.waitErr == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(d.waitErr, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// Stop sends SIGTERM and returns the exit status (-1 if it would not stop
// within the timeout; it is then killed). Calling it twice is fine.
func (d *daemonProc) Stop() int {
	if !d.stopped && !d.Exited() {
		_ = d.Cmd.Process.Signal(syscall.SIGTERM)
	}
	d.stopped = true
	code := d.Wait(waitTimeout)
	if code == -1 && !d.Exited() {
		_ = d.Cmd.Process.Kill()
		<-d.done
	}
	return code
}

// Kill sends SIGKILL and waits for the process to end.
func (d *daemonProc) Kill() {
	d.stopped, d.killed = true, true
	if !d.Exited() {
		_ = d.Cmd.Process.Kill()
	}
	<-d.done
}

// Log is the daemon's stderr so far.
func (d *daemonProc) Log() string { return d.Stderr.String() }

// Nudge runs `herdrtabrenamer nudge` for pane as a shell hook would.
func (d *daemonProc) Nudge(t testing.TB, when, pane string) {
	t.Helper()
	args := []string{"nudge", "--socket", d.Srv.SocketPath(), pane}
	if when != "" {
		args = append(args, "--when", when)
	}
	if _, stderr, code := runCLI(t, d.Env, args...); code != 0 {
		t.Fatalf("nudge %s: exit %d: %s", pane, code, stderr)
	}
}

// runCLI runs the binary to completion in sb (nil: a fresh sandbox) and
// returns its output and exit status.
func runCLI(t testing.TB, sb *sandbox, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runCLIEnv(t, sb, nil, args...)
}

// runCLIEnv is runCLI with extra KEY=VALUE environment entries.
func runCLIEnv(t testing.TB, sb *sandbox, extra []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	if sb == nil {
		sb = newSandbox(t)
	}
	var out, errb bytes.Buffer
	cmd := sb.command(args...)
	cmd.Env = sb.Environ(extra...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %v: %v", args, err)
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("herdrtabrenamer %v did not finish in 60s\nstderr:\n%s", args, errb.String())
	}
	code = 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("run %v: %v", args, err)
		}
		code = ee.ExitCode()
	}
	return out.String(), errb.String(), code
}

// poll calls cond until it is true or timeout passes.
func poll(timeout time.Duration, cond func() bool) bool { return testutil.Poll(timeout, cond) }

// startServer starts a fake herdr with a fast event tick. It plays
// protocol 22 (herdr 0.9.x) with herdr's 100 ms request-read poll, unless
// opts say otherwise.
func startServer(t testing.TB, opts ...herdrsim.Option) *herdrsim.Server {
	t.Helper()
	return herdrtest.Start(t, append([]herdrsim.Option{herdrsim.WithTick(10 * time.Millisecond)}, opts...)...)
}

// playedProtocols are the protocols of the herdr releases people run:
// 17 (0.7.5), 19 (0.8.0), 20 (0.8.2) and 22 (0.9.x).
var playedProtocols = []int{17, 19, 20, 22}

// onProtocols runs scenario in parallel subtests, once per played
// protocol, each against its own server playing that protocol.
func onProtocols(t *testing.T, scenario func(t *testing.T, srv *herdrsim.Server)) {
	t.Helper()
	for _, p := range playedProtocols {
		t.Run(fmt.Sprintf("protocol-%d", p), func(t *testing.T) {
			t.Parallel()
			scenario(t, startServer(t, herdrsim.WithProtocol(p)))
		})
	}
}

// labels lists the session's tab labels in snapshot order (workspaces in
// order, tabs by position).
func labels(srv *herdrsim.Server) []string {
	var out []string
	for _, t := range srv.Snapshot().Tabs {
		out = append(out, t.Label)
	}
	return out
}

// label is one tab's current label ("" when it is gone).
func label(srv *herdrsim.Server, tabID string) string {
	t, _ := srv.Tab(tabID)
	return t.Label
}

// waitLabels waits until the session's labels are exactly want.
func waitLabels(t testing.TB, srv *herdrsim.Server, want ...string) {
	t.Helper()
	if !poll(waitTimeout, func() bool { return slices.Equal(labels(srv), want) }) {
		t.Fatalf("tab labels = %q, want %q (waited %v)", labels(srv), want, waitTimeout)
	}
}

// waitLabel waits until one tab's label is want.
func waitLabel(t testing.TB, srv *herdrsim.Server, tabID, want string) {
	t.Helper()
	if !poll(waitTimeout, func() bool { return label(srv, tabID) == want }) {
		t.Fatalf("tab %s label = %q, want %q (waited %v)", tabID, label(srv, tabID), want, waitTimeout)
	}
}

// renameLabels lists the labels of every tab.rename so far, as "tab=label".
func renameLabels(srv *herdrsim.Server) []string {
	var out []string
	for _, r := range srv.Renames() {
		out = append(out, r.TabID+"="+r.Label)
	}
	return out
}

// waitRenames waits until the renames so far are exactly want, in order.
// A rename beyond want fails at once.
func waitRenames(t testing.TB, srv *herdrsim.Server, want ...string) {
	t.Helper()
	ok := poll(waitTimeout, func() bool { return len(srv.Renames()) >= len(want) })
	got := renameLabels(srv)
	if !ok || !slices.Equal(got, want) {
		t.Fatalf("renames = %q\nwant      %q", got, want)
	}
}

// quiet asserts that the daemon serving srv, having seen everything that
// happened before the call, renames nothing: no rename comes while it
// finishes quietPasses whole passes that all began after the call. The
// duration is not waited any more (passes are counted instead); it is
// kept so that callers need not change.
func quiet(t testing.TB, srv *herdrsim.Server, _ time.Duration) {
	t.Helper()
	before := renameLabels(srv)
	fence(t, srv, quietPasses)
	if after := renameLabels(srv); len(after) != len(before) {
		t.Fatalf("unexpected renames while idle: %q", after[len(before):])
	}
}

// quietPasses is how many whole passes quiet watches: two, so that a
// daemon that renames back and forth, or acts on its own rename's event,
// is caught as well as one that acts at once.
const quietPasses = 2

// daemonOf is the daemon last started against each server, for fence:
// spawnDaemon registers each one, a test with a daemon of another origin
// (the plugin's) registers it itself.
var daemonOf sync.Map // *herdrsim.Server -> fenceTarget

// fenceTarget is what fence needs of a daemon.
type fenceTarget struct {
	sock  string        // its nudge socket
	alive func() bool   // false once it has exited
	log   func() string // its log so far, for failure messages
}

// fencePane is the pane fence nudges for: well-formed, and in no session a
// test builds, so the pass it causes re-checks no program (no
// pane.process_info) and renames nothing by itself.
const fencePane = "w999:p999"

// passMethod is the request that starts every pass: session.snapshot, or
// on a protocol 17 server without it, tab.list.
func passMethod(srv *herdrsim.Server) string {
	if srv.Protocol() == 17 && srv.Calls("session.snapshot") == 0 && srv.Calls("tab.list") > 0 {
		return "tab.list"
	}
	return "session.snapshot"
}

// fence returns once the daemon running against srv has finished `passes`
// whole passes that began after the call. A pass reads the whole session
// again, so by then every change made before the call has been seen and
// acted on. It nudges the daemon (for fencePane) to run those passes at
// once rather than at its next poll, and fails, never returns, when they
// do not come (no daemon, the daemon exited or hangs).
//
// Counting: passes run one at a time and each starts with one pass request
// (passMethod; the client's hedged reads are off). The pass counted first
// after the call may have begun before it (its request was still waiting
// in herdr's read poll), so the second is the first surely begun after
// it; a pass is over once the next one is counted.
func fence(t testing.TB, srv *herdrsim.Server, passes int) {
	t.Helper()
	v, ok := daemonOf.Load(srv)
	if !ok {
		t.Fatal("fence: no daemon was started against this server, so nothing can catch up")
	}
	d := v.(fenceTarget)
	method := passMethod(srv)
	start := srv.Calls(method)
	want := start + 1 + passes + 1
	nudgedAt, sentAt, sendErr := -1, time.Time{}, error(nil)
	testutil.WaitFor(t, fmt.Sprintf("%d whole passes after the fence (%s calls %d -> %d)", passes, method, start, want), func() bool {
		n := srv.Calls(method)
		if n >= want || !d.alive() {
			return true
		}
		// One nudge per pass seen: a nudge that comes during a pass
		// makes the next one; more would only queue. Again after a
		// second without a pass, in case one was not sent (a full queue,
		// a socket not listening yet) and the daemon has no poll.
		if n != nudgedAt || time.Since(sentAt) > time.Second {
			nudgedAt, sentAt, sendErr = n, time.Now(), nudge.Send(d.sock, fencePane, nudge.WhenNow)
		}
		return false
	}, func() string {
		return fmt.Sprintf("%s calls now %d; last nudge: %v\ndaemon log:\n%s", method, srv.Calls(method), sendErr, d.log())
	})
	if !d.alive() {
		t.Fatalf("fence: the daemon exited before it caught up (%s calls %d -> %d)\nlog:\n%s", method, start, srv.Calls(method), d.log())
	}
}

// caughtUp is testutil.CaughtUp for a daemon process: d must log at debug
// level, and be its server's only client since the server started.
func caughtUp(t testing.TB, d *daemonProc) []string {
	t.Helper()
	if !slices.Contains(d.Cmd.Args, "debug") {
		t.Fatal("caughtUp: the daemon must run with --log-level debug to say what it triaged")
	}
	return testutil.CaughtUp(t, d.Srv, d.Log)
}

// stateFile is the daemon's state file as JSON, for assertions.
type stateFile struct {
	Version int `json:"version"`
	Tabs    map[string]struct {
		Label        string     `json:"label"`
		Locked       bool       `json:"locked"`
		Released     bool       `json:"released"`
		MissingSince *time.Time `json:"missing_since"`
	} `json:"tabs"`
}

// readState parses the state file; a missing file is an empty state.
func readState(t testing.TB, path string) stateFile {
	t.Helper()
	var sf stateFile
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return sf
	}
	if err != nil {
		t.Fatalf("read state: %v", err)
	}
	if err := json.Unmarshal(b, &sf); err != nil {
		t.Fatalf("state file %s does not parse: %v\n%s", path, err, b)
	}
	return sf
}

// waitPasses waits until n-1 whole passes (at least one) that began
// after the call are over: after n=2, one whole pass, its state refresh
// and its renames included, ran after the call, whatever pass was in
// flight. (It used to wait for n pass requests, which proved that a pass
// had begun but not that it had ended.)
func waitPasses(t testing.TB, srv *herdrsim.Server, n int) {
	t.Helper()
	fence(t, srv, max(n-1, 1))
}

// writeFile writes content to path, making its directory.
func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// requestRelay is a socket a daemon talks to in herdr's place: it passes
// each connection on to herdr, byte for byte both ways, and keeps the
// first line of each (the request), so a test sees what the daemon asks
// of a real herdr.
type requestRelay struct {
	path     string
	upstream string
	ln       net.Listener
	mu       sync.Mutex
	lines    []string
	hold     *heldRequest
}

// heldRequest is the next request of a method, kept from herdr until
// released: the window between a daemon's look and its rename, held open.
type heldRequest struct {
	method  string
	arrived chan struct{}
	release chan struct{}
}

// holdNext keeps the next request of method from herdr until release is
// called; arrived closes when the relay has it. The request reaches
// herdr on release even if its sender is gone by then, as a request
// written to herdr's socket does.
func (r *requestRelay) holdNext(method string) (arrived <-chan struct{}, release func()) {
	h := &heldRequest{method: method, arrived: make(chan struct{}), release: make(chan struct{})}
	r.mu.Lock()
	r.hold = h
	r.mu.Unlock()
	var once sync.Once
	return h.arrived, func() { once.Do(func() { close(h.release) }) }
}

// takeHold returns the hold that line's request is to wait for, if any.
func (r *requestRelay) takeHold(line string) *heldRequest {
	var req struct {
		Method string `json:"method"`
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.hold == nil || json.Unmarshal([]byte(line), &req) != nil || req.Method != r.hold.method {
		return nil
	}
	h := r.hold
	r.hold = nil
	return h
}

func startRequestRelay(t *testing.T, dir, upstream string) *requestRelay {
	t.Helper()
	r := &requestRelay{path: filepath.Join(dir, "relay.sock"), upstream: upstream}
	ln, err := net.Listen("unix", r.path)
	if err != nil {
		t.Fatal(err)
	}
	r.ln = ln
	var conns sync.WaitGroup
	t.Cleanup(func() { ln.Close(); conns.Wait() })
	go func() {
		for {
			down, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Go(func() { r.relay(down) })
		}
	}()
	return r
}

func (r *requestRelay) relay(down net.Conn) {
	defer down.Close()
	up, err := net.Dial("unix", r.upstream)
	if err != nil {
		return
	}
	defer up.Close()
	go func() { _, _ = io.Copy(down, up); down.Close() }()
	br := bufio.NewReader(down)
	line, err := br.ReadString('\n')
	if line != "" {
		r.mu.Lock()
		r.lines = append(r.lines, line)
		r.mu.Unlock()
		if h := r.takeHold(line); h != nil {
			close(h.arrived)
			<-h.release
		}
		if _, werr := up.Write([]byte(line)); werr != nil {
			return
		}
	}
	if err == nil {
		_, _ = io.Copy(up, br)
	}
}

// requests are the request lines of method seen so far.
func (r *requestRelay) requests(method string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, l := range r.lines {
		var req struct {
			Method string `json:"method"`
		}
		if json.Unmarshal([]byte(l), &req) == nil && req.Method == method {
			out = append(out, l)
		}
	}
	return out
}
