package integration

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
)

// TestRealHerdrDoneTurnsIdleWhenThePersonComesBack: herdr's own TUI
// client is attached in a pty, showing the tab of an agent (reported by
// its hook, pane.report_agent). The person's terminal loses the focus
// (the client reads ESC [ O), the agent works and finishes: herdr shows
// it done. The person comes back (ESC [ I): herdr turns done into idle
// and tells no one. The daemon runs no poll that could read it (--poll
// and --rest-poll an hour, --agent-poll 0; the statuses come from the
// hook's nudges), so only its watch of the client's terminal can: the
// tab's icon turns idle within a second or so. Each trial's delay is
// logged; only a generous bound fails the test.
func TestRealHerdrDoneTurnsIdleWhenThePersonComesBack(t *testing.T) {
	t.Parallel()
	const trials, bound = 6, 5 * time.Second
	w := newRealWorld(t, worldOptions{})
	dirs := mkdirs(t, w.Sandbox(), "projects/rmk")
	ws, tab, pane := w.NewWorkspace(t, dirs[0])
	c := attachClient(t, w)
	k := &tuiKeyboard{w: w, c: c}
	k.must(t, c.FocusWorkspace(ws))
	k.FocusTab(t, tab)
	d := startWorldDaemon(t, w, "--format", "{icon}{proc|dir}", "--poll", "1h", "--rest-poll", "1h", "--agent-poll", "0")
	waitWorldLabel(t, w, tab, "rmk", d.Log)
	settled(t, d)
	report := func(state, want string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := w.client.Call(ctx, "pane.report_agent", map[string]any{
			"pane_id": pane, "source": "herdrtabrenamer-test", "agent": "claude", "state": state}, nil); err != nil {
			t.Fatalf("pane.report_agent %s: %v", state, err)
		}
		if err := nudge.Send(w.Sandbox().NudgeSocket(w.Socket()), pane, nudge.WhenAgent); err != nil {
			t.Fatal(err)
		}
		waitWorldLabel(t, w, tab, want, d.Log)
	}
	var delays []time.Duration
	for range trials {
		k.must(t, c.Press("\x1b[O")) // the person's terminal loses the focus
		// The client hands the focus-out to the server on a path of its
		// own; give it the time a person takes before the agent is done.
		time.Sleep(300 * time.Millisecond)
		report("working", "🟡rmk")
		report("idle", "🟢rmk")
		if got := paneStatus(t, w, pane); got != herdr.StatusDone {
			t.Fatalf("the agent finished while the person was away: %s, want done", got)
		}
		if !poll(waitTimeout, func() bool { return seenClients(d.Log()) > 0 }) {
			t.Fatalf("the daemon watches no client's terminal while the agent is done in the focused tab\n%s", d.Log())
		}
		back := time.Now()
		k.must(t, c.Press("\x1b[I")) // the person comes back
		if !poll(waitTimeout, func() bool { return worldLabel(t, w, tab) == "⚪rmk" }) {
			t.Fatalf("the icon stayed %q after the person came back (herdr says %s)\n%s",
				worldLabel(t, w, tab), paneStatus(t, w, pane), d.Log())
		}
		delays = append(delays, time.Since(back))
	}
	slices.Sort(delays)
	t.Logf("done -> idle icon after the person came back, %d trials: min %v, median %v, max %v (all %v)",
		trials, delays[0], delays[len(delays)/2], delays[len(delays)-1], delays)
	if delays[len(delays)-1] > bound {
		t.Errorf("the slowest trial took %v, over %v", delays[len(delays)-1], bound)
	}
	if !poll(waitTimeout, func() bool { return seenClients(d.Log()) == 0 }) {
		t.Errorf("the daemon still watches a client's terminal with no done agent in the focused tab\n%s", d.Log())
	}
	for _, p := range jsonLogLines(d.Log(), "trace", "polls") {
		if p["agent_poll"] != float64(0) {
			t.Errorf("a status poll was planned: %v", p)
		}
	}
}

// paneStatus is the pane's agent status as herdr reports it.
func paneStatus(t *testing.T, w world, pane string) herdr.AgentStatus {
	t.Helper()
	for _, p := range w.Snapshot(t).Panes {
		if p.ID == pane {
			return p.AgentStatus
		}
	}
	return ""
}

// seenClients is how many terminals of herdr's clients the daemon's seen
// watch follows, as its last seen_watch trace says (0 before any).
func seenClients(log string) int {
	lines := jsonLogLines(log, "trace", "seen_watch")
	if len(lines) == 0 {
		return 0
	}
	n, _ := lines[len(lines)-1]["clients"].(float64)
	return int(n)
}
