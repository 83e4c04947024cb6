package herdrtest

import (
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
)

// pane.move as a real 0.8.2 answered it: to another workspace a pane gets
// that workspace's next number, a new id, and keeps its terminal and its
// label; within its workspace it keeps its id; the tab it empties closes.
// Every line is checked against herdr's schemas.
func TestPaneMove(t *testing.T) {
	s := start(t, herdrsim.WithProtocol(20))
	_, _, p1 := s.NewWorkspace("a", "/tmp")
	p2 := s.Split(p1, "/tmp")
	ws2, _, _ := s.NewWorkspace("b", "/tmp")
	call(t, s, "pane.rename", map[string]any{"pane_id": p2, "label": "build"})
	before, _ := s.Pane(p2)
	st := subscribe(t, s, map[string]any{"type": "pane.moved"}, map[string]any{"type": "tab.created"}, map[string]any{"type": "tab.closed"})
	if l := st.next(t); l != ack {
		t.Fatalf("ack %q", l)
	}
	for range 2 { // the backlog: the two workspaces' tabs
		st.next(t)
	}
	res := result(t, call(t, s, "pane.move", map[string]any{"pane_id": p2, "destination": map[string]any{"type": "new_tab", "workspace_id": ws2}}))
	mv := res["move_result"].(map[string]any)
	pane := mv["pane"].(map[string]any)
	moved := pane["pane_id"].(string)
	if moved != "w2:p2" || pane["terminal_id"] != before.TerminalID || pane["label"] != "build" || mv["previous_pane_id"] != p2 {
		t.Fatalf("moved to another workspace: %v", mv)
	}
	if _, ok := s.Pane(p2); ok {
		t.Fatalf("%s is still there after its move", p2)
	}
	if got := kinds(t, []string{st.next(t), st.next(t)}); got[0] != "pane_moved" || got[1] != "tab_created" {
		t.Fatalf("events %v, want pane_moved, tab_created", got)
	}
	res = result(t, call(t, s, "pane.move", map[string]any{"pane_id": moved, "destination": map[string]any{"type": "new_tab"}}))
	if id := res["move_result"].(map[string]any)["pane"].(map[string]any)["pane_id"]; id != moved {
		t.Fatalf("moved within its workspace, %s became %v", moved, id)
	}
	if got := kinds(t, []string{st.next(t), st.next(t), st.next(t)}); got[0] != "pane_moved" || got[1] != "tab_created" || got[2] != "tab_closed" {
		t.Fatalf("events %v, want pane_moved, tab_created, tab_closed", got)
	}
}

// An agent's hook saying it left (pane.release_agent) clears the agent,
// and herdr's pane.agent_detected names the agent that left, released.
func TestPaneReleaseAgent(t *testing.T) {
	s := start(t, herdrsim.WithProtocol(20))
	_, _, p := s.NewWorkspace("a", "/tmp")
	call(t, s, "pane.report_agent", map[string]any{"pane_id": p, "source": "hook", "agent": "claude", "state": "idle"})
	st := subscribe(t, s, map[string]any{"type": "pane.agent_detected"})
	if l := st.next(t); l != ack {
		t.Fatalf("ack %q", l)
	}
	st.next(t) // the agent's arrival
	call(t, s, "pane.release_agent", map[string]any{"pane_id": p, "source": "hook", "agent": "claude"})
	var ev struct {
		Data map[string]any
	}
	mustJSON(t, st.next(t), &ev)
	if ev.Data["agent"] != "claude" || ev.Data["released"] != true {
		t.Fatalf("the release said %v", ev.Data)
	}
	if pn, _ := s.Pane(p); pn.Agent != "" {
		t.Fatalf("the agent stayed: %q", pn.Agent)
	}
}
