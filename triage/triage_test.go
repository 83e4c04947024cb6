package triage

import (
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// names gives every tab and pane the name of its first pane's agent.
type names struct{}

func (names) Want(_ herdr.Tab, _ herdr.Workspace, panes []herdr.Pane) string { return panes[0].Agent }
func (names) PaneNames(_ herdr.Tab, _ herdr.Workspace, panes []herdr.Pane) []string {
	out := make([]string, len(panes))
	for i, p := range panes {
		out[i] = p.Agent
	}
	return out
}
func (names) SidebarValues(herdr.Tab, herdr.Workspace, herdr.Pane) map[string]string { return nil }
func (names) Forced() bool                                                           { return false }

type noMemory struct{}

func (noMemory) Tab(string) state.Entry { return state.Entry{} }

type noEcho struct{}

func (noEcho) Echo(old, upd herdr.Pane) bool { return false }
func (noEcho) Retry(upd herdr.Pane) bool     { return false }

// triageOf is a Triage whose view holds one tab whose one pane runs
// agent.
func triageOf(agent string) Triage {
	v := &View{}
	v.Set(&herdr.Snapshot{Workspaces: []herdr.Workspace{{ID: "w1"}}, Tabs: []herdr.Tab{{ID: "w1:t1", WorkspaceID: "w1", Label: agent}},
		Panes: []herdr.Pane{{ID: "w1:p1", TabID: "w1:t1", WorkspaceID: "w1", Agent: agent}}})
	return Triage{View: v, Mem: noMemory{}, Names: names{}, Now: time.Now, Sidebar: noEcho{}}
}

// An agent's arrival and its leaving are news; herdr's release names the
// agent that left, which the pane still shows in the last snapshot.
func TestAnAgentsLeavingIsNews(t *testing.T) {
	for _, tt := range []struct {
		name string
		now  string // the agent the snapshot shows
		ev   herdr.Event
		want News
	}{
		{"an agent came", "", herdr.Event{Kind: herdr.PaneAgentDetected, PaneID: "w1:p1", Agent: "claude"}, Is},
		{"the agent it shows, again", "claude", herdr.Event{Kind: herdr.PaneAgentDetected, PaneID: "w1:p1", Agent: "claude"}, Old},
		{"the agent left", "claude", herdr.Event{Kind: herdr.PaneAgentDetected, PaneID: "w1:p1", Agent: "claude", Released: true}, Is},
		{"an agent left, unnamed", "claude", herdr.Event{Kind: herdr.PaneAgentDetected, PaneID: "w1:p1", Released: true}, Is},
		{"a release seen already", "", herdr.Event{Kind: herdr.PaneAgentDetected, PaneID: "w1:p1", Agent: "claude", Released: true}, Old},
		{"a replayed release of an agent replaced since", "codex", herdr.Event{Kind: herdr.PaneAgentDetected, PaneID: "w1:p1", Agent: "claude", Released: true}, Old},
	} {
		if got := triageOf(tt.now).Judge(tt.ev, true); got != tt.want {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
