package daemon

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// An agent finishes in the focused tab while the person's terminal is
// away, so herdr shows it done; the person comes back, herdr's client
// reads the focus-in from its terminal, and herdr turns done into idle
// without a word. The daemon, which polls nothing, watches that
// terminal only while a done agent sits in the focused tab, and the
// tab's icon follows the person's return at once. At rest (no done
// agent, or one only in a tab the person does not see) no terminal of a
// client is watched.
func TestDoneTurnsIdleWhenThePersonComesBack(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rmk")
	other := filepath.Join(t.TempDir(), "nixos")
	for _, d := range []string{dir, other} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	client := startStandIn(t)
	f := newFixture(t, "{icon}{proc|dir}", func(o *Options) {
		o.Poll, o.AgentPoll, o.Naming.LocalWatch, o.Naming.Inspector = 0, 20*time.Millisecond, true, procinfo.Local()
	})
	ws, _, p1 := f.srv.NewWorkspace("main", dir)
	_, p2 := f.srv.NewTab(ws, other)
	for p, d := range map[string]string{p1: dir, p2: other} {
		cmd, _ := testutil.PlainShell(t, d)
		f.srv.AttachProcess(p, cmd.Process.Pid)
	}
	f.srv.SetAgent(p1, "claude", herdr.StatusIdle)
	f.srv.SetAgent(p2, "claude", herdr.StatusDone) // not in the focused tab
	runDaemon(t, f, nil)
	detail := func() string { return fmt.Sprintf("polls %+v\n%s", f.traces.of(TracePolls), f.log.String()) }
	testutil.WaitFor(t, "first names", func() bool { l := f.labels(); return l[0] == "⚪rmk" && l[1] == "🟢nixos" }, detail)
	waitFor(t, "the first pass's plan", f.subscribePassesDone)
	waitFor(t, "no poll at rest", func() bool { p := lastPolls(f); return p.Poll == 0 && p.AgentPoll == 0 })
	if inotifyWatched(t, client.tty) {
		t.Fatalf("the client's terminal is watched with no done agent in the focused tab\n%s", f.log.String())
	}

	polls := len(f.traces.of(TracePolls))
	// The agent in the focused tab finishes while the person is away (the
	// plugin's event hook tells the daemon); the person comes back:
	// herdr's client reads the focus-in.
	away := func() {
		t.Helper()
		f.srv.OuterFocus(false)
		f.srv.SetAgent(p1, "claude", herdr.StatusDone)
		if err := nudge.Send(nudge.SocketPath(f.srv.SocketPath()), p1, nudge.WhenAgent); err != nil {
			t.Fatal(err)
		}
		testutil.WaitFor(t, "done icon", func() bool { return f.labels()[0] == "🟢rmk" }, detail)
		testutil.WaitFor(t, "the client's terminal watched", func() bool { return inotifyWatched(t, client.tty) }, detail)
	}
	back := func(within time.Duration) {
		t.Helper()
		f.srv.OuterFocus(true)
		at := time.Now()
		client.send(t, "\x1b[I")
		testutil.WaitForWithin(t, within, "idle icon", func() bool { return f.labels()[0] == "⚪rmk" }, detail)
		t.Logf("the icon followed the person's return in %v", time.Since(at))
		testutil.WaitFor(t, "the client's terminal no longer watched", func() bool { return !inotifyWatched(t, client.tty) }, detail)
	}
	away()
	back(2 * time.Second)

	// Keys read with no return (herdr marks nothing seen) each ask for a
	// pass, spaced wider and wider, so typing costs little; the return
	// after them waits a second more at most.
	away()
	passes := len(f.traces.of(TracePass))
	typing := time.Now()
	for range 40 {
		client.send(t, "x")
		time.Sleep(50 * time.Millisecond)
	}
	ran := len(f.traces.of(TracePass)) - passes
	if limit := 3 + int(time.Since(typing)/seenGap); ran < 1 || ran > limit {
		t.Fatalf("%d passes for keys read over %v, want 1 to %d", ran, time.Since(typing), limit)
	}
	t.Logf("%d passes for 40 keys read over %v", ran, time.Since(typing))
	back(seenGapMax + 2*time.Second)

	for _, p := range f.traces.of(TracePolls)[polls:] {
		if p.Poll != 0 || p.AgentPoll != 0 {
			t.Fatalf("a poll ran while the done agent sat in the focused tab: %+v\n%s", p, f.log.String())
		}
	}
}

// A client that ends while the done agent sits there (the person
// detached) leaves no terminal to watch: the slow status poll stands in,
// and reads the agent idle once the person is back.
func TestSeenWatchWithTheClientGone(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rmk")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	client := startStandIn(t)
	f := newFixture(t, "{icon}{proc|dir}", func(o *Options) {
		o.Poll, o.AgentPoll, o.Naming.LocalWatch, o.Naming.Inspector = 0, 20*time.Millisecond, true, procinfo.Local()
	})
	_, _, p1 := f.srv.NewWorkspace("main", dir)
	cmd, _ := testutil.PlainShell(t, dir)
	f.srv.AttachProcess(p1, cmd.Process.Pid)
	f.srv.OuterFocus(false)
	f.srv.SetAgent(p1, "claude", herdr.StatusDone)
	runDaemon(t, f, nil)
	detail := func() string { return fmt.Sprintf("polls %+v\n%s", f.traces.of(TracePolls), f.log.String()) }
	testutil.WaitFor(t, "done icon", func() bool { return f.labels()[0] == "🟢rmk" }, detail)
	testutil.WaitFor(t, "the client's terminal watched", func() bool { return inotifyWatched(t, client.tty) }, detail)
	testutil.WaitFor(t, "no status poll", func() bool { return lastPolls(f).AgentPoll == 0 }, detail)

	client.end(t)
	testutil.WaitFor(t, "the slow status poll", func() bool { return lastPolls(f).AgentPoll == seenPoll }, detail)
	f.srv.OuterFocus(true)
	testutil.WaitForWithin(t, seenPoll+2*time.Second, "idle icon", func() bool { return f.labels()[0] == "⚪rmk" }, detail)
	testutil.WaitFor(t, "no status poll once no agent is done there", func() bool { return lastPolls(f).AgentPoll == 0 }, detail)
}
