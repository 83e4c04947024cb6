package integration

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// What makes a name follow a program within a frame. These tests
// count requests and passes, never time them: the machine is shared, and
// the figures live in integration/bench.

// The event path's leading edge: with a debounce far longer than the test,
// the first news after a quiet spell still renames at once (a trailing-only
// debounce would wait the whole hour), and a storm of news inside the
// window runs no further pass until the window ends.
func TestEventNewsRunsAPassAtOnce(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	_, tab, pane := srv.NewWorkspace("w", "/home/u/a")
	d := startDaemon(t, srv, "--poll", "0", "--debounce", "1h", "--format", "{dir}", "--log-level", "debug")
	waitLabel(t, srv, tab, "a")
	settleStream(t, d)

	srv.ResetCounters()
	cd(srv, pane, "/home/u/b")
	waitLabel(t, srv, tab, "b")
	if n := srv.Calls("session.snapshot"); n < 1 {
		t.Fatalf("renamed with %d snapshots", n)
	}
	// The pass that renamed to b may still be finishing (its snapshot
	// counted, its events not yet triaged): count from after it.
	mark := len(caughtUp(t, d))
	leading := srv.Calls("session.snapshot")
	for i := range 10 {
		cd(srv, pane, fmt.Sprintf("/home/u/storm%d", i))
	}
	// Every storm event reached the daemon and was triaged as news for
	// the window's end: had one started a pass, it would be counted.
	storm := caughtUp(t, d)[mark:]
	if len(storm) == 0 || slices.ContainsFunc(storm, func(l string) bool { return strings.Contains(l, "a pass at once") }) {
		t.Errorf("storm events triaged as:\n%s\nwant some, none running a pass at once", strings.Join(storm, "\n"))
	}
	if n := srv.Calls("session.snapshot"); n != leading {
		t.Errorf("a storm inside the debounce window ran %d more passes, want 0 until the window ends\nlog:\n%s", n-leading, d.Log())
	}
	if got := label(srv, tab); got != "b" {
		t.Errorf("tab renamed to %q inside the window, want it to stay b", got)
	}
}

// The trailing side: news inside the window is coalesced into one pass at
// its end, which names the tab after the last change; a quiet window then
// closes the spell without a pass.
func TestNewsInsideTheWindowCostsOneTrailingPass(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	_, tab, pane := srv.NewWorkspace("w", "/home/u/a")
	const window = 1500 * time.Millisecond
	d := startDaemon(t, srv, "--poll", "0", "--debounce", window.String(), "--format", "{dir}", "--log-level", "debug")
	waitLabel(t, srv, tab, "a")
	settleStream(t, d)

	srv.ResetCounters()
	mark := len(d.Log())
	cd(srv, pane, "/home/u/b")
	waitLabel(t, srv, tab, "b")
	for i := range 5 {
		cd(srv, pane, fmt.Sprintf("/home/u/c%d", i))
		time.Sleep(20 * time.Millisecond) // an input: news spread over the window, not a wait
	}
	waitLabel(t, srv, tab, "c4")
	// The window after the trailing pass closes with no news: the spell
	// is over, and only new news could run a pass.
	testutil.WaitFor(t, "the window after the trailing pass closed quiet", func() bool {
		return len(testutil.Traced(d.Log()[mark:], "debounce_idle")) > 0
	})
	caughtUp(t, d) // news triaged after it would have run a pass at once
	passes := srv.Calls("session.snapshot") - hedged(d, mark, "session.snapshot")
	if passes != 2 {
		t.Errorf("%d passes for a leading and five coalesced changes, want 2 (leading, trailing); renames %q\nlog:\n%s", passes, renameLabels(srv), d.Log()[mark:])
	}
}

// cd is what herdr sees of a shell that shows its directory in the title
// changing directory: a new cwd, and the title change that reports it.
func cd(srv *herdrsim.Server, pane, dir string) {
	srv.SetCwd(pane, dir)
	srv.SetTitle(pane, dir)
}

// hedged counts the reads of method the daemon sent a second time since
// its log had mark bytes: event passes may hedge (hedged reads), and a
// hedge is one more call of the method without being one more pass. The
// daemon must run with --log-level debug.
func hedged(d *daemonProc, mark int, method string) int {
	return len(testutil.GrepField(d.Log()[mark:], "hedged", method))
}

// settleStream waits until the subscription is up, every event so far is
// triaged (a replay included) and the pass the subscription asks for has
// run, so the events a test makes are live news and the counters it reads
// count only what it did. d logs at debug level.
func settleStream(t *testing.T, d *daemonProc) {
	t.Helper()
	testutil.WaitFor(t, "the subscription and the full pass after it", func() bool { return testutil.Subscribed(d.Log()) })
	caughtUp(t, d)
}

// realShell starts sh in a pty as the process behind pane, so the daemon's
// local /proc reads and herdrsim's process_info see a real process. It is
// attached before the daemon starts: its first pass learns the shell is
// local.
func realShell(t *testing.T, srv *herdrsim.Server, pane, dir string) (*os.File, int) {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	cmd := exec.Command(sh, "-i")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "PS1=$ ", "TERM=dumb"}
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatalf("start sh under a pty: %v", err)
	}
	copied := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, tty); close(copied) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		tty.Close()
		<-copied
	})
	srv.AttachProcess(pane, cmd.Process.Pid)
	return tty, cmd.Process.Pid
}

// Lever 1: a preexec nudge takes the snapshot while the program starts,
// and the program is read from /proc (the shell is local), so once it
// appears the rename is the only request: no pane.process_info, no tab.get
// re-read. Not even for another tab, whose made-up shell the daemon cannot
// read locally and so asks herdr about now and then: the poll passes do
// that, not the nudged one, whose rename would wait on the answer.
func TestNudgeDrivenRenameIsOneRequestAfterTheProgramStarts(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	sb := newSandbox(t)
	dir := sb.HomePath("proj")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ws, tab, pane := srv.NewWorkspace("w", dir)
	srv.NewTab(ws, sb.HomePath("other"))
	tty, shell := realShell(t, srv, pane, dir)
	// The nudge alone: the local watch would bring the same renames.
	d := startDaemonIn(t, sb, srv, "--poll", "0", "--no-local-watch", "--log-level", "debug")
	waitLabel(t, srv, tab, "proj")
	settleStream(t, d)

	for i := range 3 {
		srv.ResetCounters()
		// As with the hooks, which send the nudge in the background: the
		// program starts while the nudge is on its way.
		if _, err := tty.Write([]byte("sleep 30\n")); err != nil {
			t.Fatal(err)
		}
		d.Nudge(t, "preexec", pane)
		waitLabel(t, srv, tab, "sleep")
		for m, want := range map[string]int{"pane.process_info": 0, "tab.get": 0, "tab.rename": 1} {
			if n := srv.Calls(m); n != want {
				t.Errorf("start %d: %d %s requests for a nudge-driven rename, want %d", i, n, m, want)
			}
		}
		if n := srv.Calls("session.snapshot"); n < 1 {
			t.Errorf("start %d: no snapshot before the rename", i)
		}
		if _, err := tty.Write([]byte("\x03")); err != nil {
			t.Fatal(err)
		}
		// The hook sends precmd from the prompt: the shell is in front
		// again by then, however loaded the machine.
		if !poll(waitTimeout, func() bool { pg, err := procinfo.Local().ForegroundPGID(shell); return err == nil && pg == shell }) {
			t.Fatalf("start %d: the shell never took its terminal back", i)
		}
		d.Nudge(t, "precmd", pane)
		waitLabel(t, srv, tab, "proj")
	}
	if t.Failed() {
		t.Logf("log:\n%s", d.Log())
	}
}

// Lever 2: a nudge-driven pass whose snapshot stalls gets its answer from
// a second request. Without the hedge the stalled read times out and, with
// no poll and no events, the tab is never renamed. Reads are hedged where
// requests take the plain connect and write (where io_uring is refused),
// so this daemon is told to take it.
func TestStalledSnapshotOfANudgedPassIsHedged(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	_, tab, pane := srv.NewWorkspace("w", "/home/u/a")
	sb := newSandbox(t)
	sb.Extra = append(sb.Extra, herdr.PlainRequestsEnv+"=1")
	d := startDaemonIn(t, sb, srv, "--poll", "0", "--format", "{proc|dir}", "--log-level", "debug")
	waitLabel(t, srv, tab, "a")
	settleStream(t, d)

	srv.ResetCounters()
	mark := len(d.Log())
	srv.StallNext("session.snapshot", time.Minute, 1)
	srv.SetForeground(pane, herdrsim.Proc{Argv: []string{"vim"}})
	d.Nudge(t, "", pane)
	waitLabel(t, srv, tab, "vim")
	if n := srv.Calls("session.snapshot"); n < 2 {
		t.Errorf("%d snapshot requests, want the stalled one and its hedge", n)
	}
	// The log line TestPollPassesNeverHedge counts is there when a hedge is.
	if n := hedged(d, mark, "session.snapshot"); n < 1 {
		t.Errorf("the daemon logged %d hedged snapshots, want at least 1\nlog:\n%s", n, d.Log()[mark:])
	}
}

// The idle side of hedged reads: poll ticks never hedge, so an idle pass stays
// one connection even when its answer is late. On the plain path, the one
// that hedges.
func TestPollPassesNeverHedge(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	_, tab, _ := srv.NewWorkspace("w", "/home/u/a")
	sb := newSandbox(t)
	sb.Extra = append(sb.Extra, herdr.PlainRequestsEnv+"=1")
	d := startDaemonIn(t, sb, srv, "--poll", "200ms", "--format", "{dir}", "--log-level", "debug")
	waitLabel(t, srv, tab, "a")
	settleStream(t, d)

	srv.ResetCounters()
	mark := len(d.Log())
	// Late enough that a hedged read would go out twice.
	srv.SetLatency("session.snapshot", 80*time.Millisecond)
	// Poll passes are the only ones now (no news, no nudge): wait for
	// several to be over, each hedge logged as it goes out.
	const passes = 6
	testutil.WaitFor(t, fmt.Sprintf("%d poll passes", passes), func() bool { return srv.Calls("session.snapshot") > passes })
	if n := hedged(d, mark, "session.snapshot"); n != 0 {
		t.Errorf("%d idle passes hedged their snapshot, want none (one connection each)", n)
	}
}

// --settle: a new program names its tab only once it has run that long,
// by a pass the daemon schedules itself (no poll, no further events).
func TestSettleNamesANewProgramWhenItMatures(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	_, tab, pane := srv.NewWorkspace("w", "/home/u/a")
	d := startDaemon(t, srv, "--poll", "0", "--settle", "1500ms", "--format", "{proc|dir}", "--log-level", "debug")
	waitLabel(t, srv, tab, "a")
	settleStream(t, d)

	started := time.Now()
	srv.SetForeground(pane, herdrsim.Proc{Argv: []string{"vim"}})
	d.Nudge(t, "", pane)
	// Two whole passes have seen vim; unless the machine took all of
	// --settle for them, vim is still too young to name the tab.
	fence(t, srv, 2)
	if got := label(srv, tab); got != "a" && time.Since(started) < 1500*time.Millisecond {
		t.Fatalf("label %q within --settle, want a still", got)
	}
	waitLabel(t, srv, tab, "vim")
	// The shell coming back never waits.
	srv.SetForeground(pane)
	d.Nudge(t, "", pane)
	waitLabel(t, srv, tab, "a")
}

// Without hooks, a shell that sets the terminal title before each command
// and at each prompt: the title change is the hint, the local foreground
// check the proof, and neither poll nor nudge is needed.
func TestTitleChangeAtAPromptFindsTheProgram(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	sb := newSandbox(t)
	dir := sb.HomePath("proj")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	_, tab, pane := srv.NewWorkspace("w", dir)
	tty, shell := realShell(t, srv, pane, dir)
	// The title alone: the local watch would bring the same renames.
	d := startDaemonIn(t, sb, srv, "--poll", "0", "--no-local-watch", "--log-level", "debug")
	waitLabel(t, srv, tab, "proj")
	settleStream(t, d)

	for i := range 3 {
		// preexec: the title first, then the program.
		srv.SetTitle(pane, fmt.Sprintf("sleep 3%d", i))
		if _, err := tty.Write([]byte(fmt.Sprintf("sleep 3%d\n", i))); err != nil {
			t.Fatal(err)
		}
		waitLabel(t, srv, tab, "sleep")
		// precmd: back at the prompt, the title shows the directory.
		if _, err := tty.Write([]byte("\x03")); err != nil {
			t.Fatal(err)
		}
		// The shell's prompt comes once the program has ended.
		if !poll(waitTimeout, func() bool {
			pg, err := procinfo.Local().ForegroundPGID(shell)
			return err == nil && pg == shell
		}) {
			t.Fatal("the shell never came back to the foreground")
		}
		srv.SetTitle(pane, fmt.Sprintf("~/proj %d", i))
		waitLabel(t, srv, tab, "proj")
	}
}
