package integration

import (
	"fmt"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// A 0.9 stream that falls behind herdr's retained history ends with an
// events_lost line (docs/herdr.md §7). The daemon, polling off, must
// resubscribe at once and make exactly one full pass for it; events on
// the new stream then drive passes again.
func TestEventsLostResubscribesWithOneFullPass(t *testing.T) {
	t.Parallel()
	srv := startServer(t) // protocol 22, herdr's read poll on
	sb := newSandbox(t)
	_, tab, pane := srv.NewWorkspace("work", sb.HomePath("projects", "rmk"))
	d := startDaemonIn(t, sb, srv, "--poll", "0", "--format", "{title|dir}", "--log-level", "debug")
	waitLabel(t, srv, tab, "rmk")
	// Wait for the post-subscribe pass (the daemon's first, which waits
	// for the stream) so the baseline below is settled.
	if !poll(waitTimeout, func() bool { return srv.Calls("events.subscribe") >= 1 }) {
		t.Fatal("the daemon never subscribed")
	}
	if !poll(waitTimeout, func() bool { return testutil.Subscribed(d.Log()) }) {
		t.Fatal("no post-subscribe pass")
	}

	snaps, subs := srv.Calls("session.snapshot"), srv.Calls("events.subscribe")
	srv.LoseEvents()
	if !poll(waitTimeout, func() bool { return srv.Calls("events.subscribe") > subs }) {
		t.Fatalf("no resubscribe after events_lost (subscribes still %d)", subs)
	}
	if !poll(waitTimeout, func() bool { return srv.Calls("session.snapshot") > snaps }) {
		t.Fatal("no full pass after the resubscribe")
	}
	// Nothing else is going on: every pass the watcher asked for has run
	// and every event is triaged, so a second pass would be a wasted one.
	if !poll(waitTimeout, func() bool { return testutil.SubscribePassesDone(d.Log()) }) {
		t.Fatalf("a full pass the watcher asked for never ran\nlog:\n%s", d.Log())
	}
	caughtUp(t, d)
	if extra := srv.Calls("session.snapshot") - snaps; extra != 1 {
		t.Errorf("events_lost cost %d passes, want exactly 1", extra)
	}
	if n := srv.EventsLost(); n != 1 {
		t.Errorf("simulator ended %d streams with events_lost, want 1", n)
	}
	// The new stream works: a title change names the tab without polling.
	srv.SetTitle(pane, "deploy")
	waitLabel(t, srv, tab, "deploy")
}

// When a pane's exit empties its tab, 0.9 announces tab.closed (and
// workspace.closed); older herdr only pane.exited (docs/herdr.md §7).
// Either way the daemon, polling off, must notice that the other tabs
// moved up and renumber them.
func TestPaneExitThatEmptiesATabRenumbersTheRest(t *testing.T) {
	t.Parallel()
	for _, proto := range []int{20, 22} {
		t.Run(fmt.Sprint(proto), func(t *testing.T) {
			srv := startServer(t, herdrsim.WithProtocol(proto))
			sb := newSandbox(t)
			ws, _, p1 := srv.NewWorkspace("work", sb.HomePath("a"))
			t2, _ := srv.NewTab(ws, sb.HomePath("b"))
			t3, _ := srv.NewTab(ws, sb.HomePath("c"))
			startDaemonIn(t, sb, srv, "--poll", "0", "--format", "{index} {dir}")
			waitLabels(t, srv, "1 a", "2 b", "3 c")
			srv.ExitPane(p1)
			waitLabel(t, srv, t2, "1 b")
			waitLabel(t, srv, t3, "2 c")
		})
	}
}
