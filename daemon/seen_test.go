package daemon

import (
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
)

// Where no terminal of herdr's client can be watched (here: no local
// watch), a done agent in the focused tab, which herdr turns idle without
// a word when the person comes back, is read by a slow status poll that
// runs only while it sits there; the plugin's event hook, which herdr
// does not call for that, stops no such poll.
func TestDoneInFocusWithoutAWatchIsPolledSlowly(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "{icon}{dir}", func(o *Options) { o.Poll, o.AgentPoll = 0, 20*time.Millisecond })
	_, _, p1 := f.srv.NewWorkspace("main", home+"/rmk")
	f.srv.SetAgent(p1, "claude", herdr.StatusIdle)
	runDaemon(t, f, nil)
	hook := func() {
		t.Helper()
		if err := nudge.Send(nudge.SocketPath(f.srv.SocketPath()), p1, nudge.WhenAgent); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "first name", func() bool { return f.labels()[0] == "⚪rmk" })
	waitFor(t, "the first pass's plan", f.subscribePassesDone)
	hook()
	waitFor(t, "no status poll while the hook reports", func() bool { return lastPolls(f).AgentPoll == 0 })

	f.srv.OuterFocus(false)
	f.srv.SetAgent(p1, "claude", herdr.StatusDone)
	hook()
	waitFor(t, "done icon", func() bool { return f.labels()[0] == "🟢rmk" })
	waitFor(t, "a slow status poll", func() bool { return lastPolls(f).AgentPoll >= time.Second })
	f.srv.OuterFocus(true)
	testutil.WaitForWithin(t, 2*lastPolls(f).AgentPoll+time.Second, "idle icon", func() bool { return f.labels()[0] == "⚪rmk" })
	waitFor(t, "no status poll once no agent is done there", func() bool { return lastPolls(f).AgentPoll == 0 })
}
