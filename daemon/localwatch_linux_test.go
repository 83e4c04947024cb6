package daemon

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// A shell with no hooks that sets no title: only the kernel tells the
// daemon (which does not poll in between) that a program started or
// exited or the shell changed directory, and the tab follows each. With
// the one tab's shell watched, the full poll rests.
func TestLocalWatchNamesWithoutHooks(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rmk")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, "{proc|dir}", func(o *Options) {
		o.Poll, o.RestPoll, o.Naming.LocalWatch, o.Naming.Inspector = 3*time.Second, time.Minute, true, procinfo.Local()
	})
	_, _, p1 := f.srv.NewWorkspace("main", dir)
	cmd, tty := testutil.PlainShell(t, dir)
	f.srv.AttachProcess(p1, cmd.Process.Pid)
	runDaemon(t, f, nil)
	waitFor(t, "first pass", func() bool { return f.labels()[0] == "rmk" })
	waitFor(t, "the full poll at rest", func() bool { return lastPolls(f).Poll == time.Minute })
	for _, step := range []struct{ keys, want string }{
		{"sleep 30\n", "sleep"},
		{"\x03", "rmk"},
		{"cd sub\n", "sub"},
	} {
		watched := len(f.traces.of(TraceWatched))
		if _, err := io.WriteString(tty, step.keys); err != nil {
			t.Fatal(err)
		}
		testutil.WaitFor(t, "label "+step.want, func() bool { return f.labels()[0] == step.want },
			func() string { return fmt.Sprintf("%+v\n%s", f.traces.snapshot(), f.log.String()) })
		// The pass that renamed may be one an earlier report asked for,
		// with the report of this change on its way.
		waitFor(t, "the local watch's report", func() bool {
			return slices.ContainsFunc(f.traces.of(TraceWatched)[watched:], func(tr Trace) bool { return tr.Pane == p1 && tr.News })
		})
	}
}

// An agent at rest waits for a prompt: while the local watch sees its
// terminal, the daemon reads nothing for its status until the agent reads
// input, then polls while the status may follow (it works, or the input
// is recent), and stops again.
func TestAgentAtRestIsNotPolled(t *testing.T) {
	t.Parallel()
	f, dir := agentsAtRest(t)
	_, _, p1 := f.srv.NewWorkspace("main", dir)
	cmd, tty := testutil.PlainShell(t, dir)
	f.srv.AttachProcess(p1, cmd.Process.Pid)
	f.srv.SetAgent(p1, "claude", herdr.StatusIdle)
	runDaemon(t, f, nil)
	waitFor(t, "first pass", func() bool { return f.labels()[0] == "⚪rmk" })
	// The first pass plans the polls; the watch may take the shell up
	// after it, and a status poll stops then.
	waitFor(t, "the first pass's plan", f.subscribePassesDone)
	waitFor(t, "no status poll for an agent at rest", func() bool { return lastPolls(f).AgentPoll == 0 })
	// A prompt typed: the agent reads it, then reports itself working.
	if _, err := io.WriteString(tty, "x"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the status poll after input", func() bool { return lastPolls(f).AgentPoll > 0 })
	f.srv.SetAgent(p1, "claude", herdr.StatusWorking)
	waitFor(t, "working icon", func() bool { return f.labels()[0] == "🟡rmk" })
	f.srv.SetAgent(p1, "claude", herdr.StatusIdle)
	waitFor(t, "idle icon", func() bool { return f.labels()[0] == "⚪rmk" })
	waitFor(t, "no status poll once at rest again", func() bool { return lastPolls(f).AgentPoll == 0 })
}

// Two agents in one tab: the one that does not name the tab is watched
// too, so with both at rest no status poll runs.
func TestTwoAgentsInOneTabAtRestAreNotPolled(t *testing.T) {
	t.Parallel()
	f, dir := agentsAtRest(t)
	_, _, p1 := f.srv.NewWorkspace("main", dir)
	p2 := f.srv.Split(p1, dir)
	for _, p := range []string{p1, p2} {
		cmd, _ := testutil.PlainShell(t, dir)
		f.srv.AttachProcess(p, cmd.Process.Pid)
		f.srv.SetAgent(p, "claude", herdr.StatusIdle)
	}
	runDaemon(t, f, nil)
	waitFor(t, "first pass", func() bool { return f.labels()[0] == "⚪rmk" })
	waitFor(t, "the first pass's plan", f.subscribePassesDone)
	waitFor(t, "no status poll for two agents at rest", func() bool { return lastPolls(f).AgentPoll == 0 })
}

// agentsAtRest is a fixture for agents on local shells in folder dir
// ("rmk"): no full poll, a fast status poll, the local watch on.
func agentsAtRest(t *testing.T) (*fixture, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "rmk")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, "{icon}{proc|dir}", func(o *Options) {
		o.Poll, o.AgentPoll, o.Naming.LocalWatch, o.Naming.Inspector = 0, 20*time.Millisecond, true, procinfo.Local()
	})
	return f, dir
}
