package namer

import (
	"slices"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

func TestPlanWorkspace(t *testing.T) {
	n := mustNew(t, Config{Format: "{index} {status} {number} {repo|dir} {workspace}", Home: "/home/u"})
	ws := herdr.Workspace{ID: "w1", Number: 3, Label: "old", ActiveTabID: "w1:t2", AgentStatus: herdr.StatusWorking}
	tabs := []herdr.Tab{
		{ID: "w1:t1", WorkspaceID: "w1", Number: 1, AgentStatus: herdr.StatusIdle},
		{ID: "w1:t2", WorkspaceID: "w1", Number: 7, AgentStatus: herdr.StatusIdle},
	}
	panes := map[string][]herdr.Pane{
		"w1:t1": {{ID: "w1:p1", TabID: "w1:t1", Cwd: "/home/u/src/api", Focused: true}},
		"w1:t2": {{ID: "w1:p2", TabID: "w1:t2", Cwd: "/home/u/notes"}, {ID: "w1:p3", TabID: "w1:t2", Cwd: "/home/u/src/web", Focused: true}},
	}
	tests := []struct {
		name   string
		active string
		panes  map[string][]herdr.Pane
		want   string
		ok     bool
	}{
		{"active tab's focused pane", "w1:t2", panes, "3 working 3 web", true},
		{"no active tab id: the first", "", panes, "3 working 3 api", true},
		{"active tab without panes: another", "w1:t2", map[string][]herdr.Pane{"w1:t1": panes["w1:t1"]}, "3 working 3 api", true},
		{"no panes at all", "w1:t2", nil, "", false},
	}
	for _, tt := range tests {
		w := ws
		w.ActiveTabID = tt.active
		p, ok := n.PlanWorkspace(w, tabs, tt.panes)
		if ok != tt.ok {
			t.Fatalf("%s: ok = %v", tt.name, ok)
		}
		if !ok {
			continue
		}
		d := n.Decide(p, Facts{Index: w.Number})
		if d.Want != tt.want {
			t.Errorf("%s: want %q, got %q", tt.name, tt.want, d.Want)
		}
		if d.Values["workspace"] != "" {
			t.Errorf("%s: {workspace} = %q: a workspace name must not be made of itself", tt.name, d.Values["workspace"])
		}
		// The same name at another sidebar position was ours too.
		if !slices.Contains(d.Variants, "1 working 3 "+tt.want[len("3 working 3 "):]) {
			t.Errorf("%s: variants %q lack other positions", tt.name, d.Variants)
		}
	}
}
