package herdrtest

import (
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// While the person's terminal is away, an agent that finishes in the
// focused tab is "done"; when the person comes back it is idle, and the
// event ring holds nothing new for it: herdr tells no one.
func TestOuterFocusSeesDoneSilently(t *testing.T) {
	s := start(t)
	_, _, p := s.NewWorkspace("w", "/tmp")
	report := func(state string) {
		t.Helper()
		if r := result(t, call(t, s, "pane.report_agent", map[string]any{
			"pane_id": p, "source": "test", "agent": "claude", "state": state})); r["type"] != "ok" {
			t.Fatalf("pane.report_agent %s answered %v", state, r)
		}
	}
	status := func() herdr.AgentStatus {
		for _, x := range s.Snapshot().Panes {
			if x.ID == p {
				return x.AgentStatus
			}
		}
		t.Fatalf("pane %s is gone", p)
		return ""
	}
	report("working")
	report("idle")
	if got := status(); got != herdr.StatusIdle {
		t.Fatalf("finished in the focused tab with the person there: %s, want idle", got)
	}
	s.OuterFocus(false)
	report("working")
	report("idle")
	if got := status(); got != herdr.StatusDone {
		t.Fatalf("finished in the focused tab while the person is away: %s, want done", got)
	}
	ring := len(s.Ring())
	s.OuterFocus(true)
	if got := status(); got != herdr.StatusIdle {
		t.Fatalf("after the person came back: %s, want idle", got)
	}
	if got := s.Ring(); len(got) != ring {
		t.Fatalf("coming back emitted %v", got[ring:])
	}
}
