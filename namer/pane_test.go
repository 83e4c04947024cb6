package namer

import (
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// A pane is named from its own facts: its agent, directory, title and
// status, not the tab's lead pane's; the tab's number stays.
func TestPlanPane(t *testing.T) {
	n, err := New(Config{Format: "{icon}{agent|proc}:{dir} {number}", Panes: true})
	if err != nil {
		t.Fatal(err)
	}
	tab := herdr.Tab{ID: "w1:t2", Number: 2, Label: "2", AgentStatus: herdr.StatusBlocked}
	for _, tt := range []struct {
		name  string
		pane  herdr.Pane
		facts Facts
		want  string
	}{
		{"agent pane", herdr.Pane{ID: "w1:p3", Agent: "claude", Cwd: "/src/api", AgentStatus: herdr.StatusWorking}, Facts{}, "🟡claude:api 2"},
		{"shell pane", herdr.Pane{ID: "w1:p4", Cwd: "/src/web", AgentStatus: herdr.StatusUnknown}, Facts{Proc: "vim"}, "vim:web 2"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := n.PlanPane(tab, herdr.Workspace{ID: "w1"}, tt.pane)
			if p.Lead.ID != tt.pane.ID || p.LeadWhy != "the pane itself" {
				t.Errorf("lead %s (%s), want the pane %s", p.Lead.ID, p.LeadWhy, tt.pane.ID)
			}
			if got := n.Decide(p, tt.facts).Want; got != tt.want {
				t.Errorf("Want = %q, want %q", got, tt.want)
			}
		})
	}
}

// Rules speak of panes through pane-format: a pane namer takes it as the
// format, keeps skip rules, and ignores names and tab formats; a tab namer
// ignores a rule that sets only pane-format.
func TestPaneRules(t *testing.T) {
	rules := []RuleSpec{
		{Dir: "/src/docs", PaneFormat: "doc {agent}"},
		{Dir: "/src/secret", Skip: true},
		{Dir: "/src/fixed", Name: "fixed", PaneFormat: "pane {agent}"},
		{Dir: "/src/tabonly", Format: "tab {dir}"},
		{Dir: "/src/named", Name: "named"},
	}
	tabs, err := New(Config{Format: "{dir}", Rules: rules})
	if err != nil {
		t.Fatal(err)
	}
	panes, err := New(Config{Format: "{agent}", Rules: rules, Panes: true})
	if err != nil {
		t.Fatal(err)
	}
	tab := herdr.Tab{ID: "w1:t1", Number: 1}
	for _, tt := range []struct {
		dir               string
		tabWant, paneWant string
		paneSkip          bool
	}{
		{"/src/docs", "docs", "doc claude", false},
		{"/src/secret", "", "", true},
		{"/src/fixed", "fixed", "pane claude", false},
		{"/src/tabonly", "tab tabonly", "claude", false},
		{"/src/named", "named", "claude", false},
	} {
		pane := herdr.Pane{ID: "w1:p1", Agent: "claude", Cwd: tt.dir}
		tp := tabs.Plan(tab, herdr.Workspace{}, []herdr.Pane{pane})
		if got := tabs.Decide(tp, Facts{}).Want; got != tt.tabWant {
			t.Errorf("%s: tab name %q, want %q", tt.dir, got, tt.tabWant)
		}
		d := panes.Decide(panes.PlanPane(tab, herdr.Workspace{}, pane), Facts{})
		if d.Want != tt.paneWant || d.Skip != tt.paneSkip {
			t.Errorf("%s: pane name %q skip %v, want %q skip %v", tt.dir, d.Want, d.Skip, tt.paneWant, tt.paneSkip)
		}
	}
}

// Panes of one tab that would get the same name are told apart the way
// tabs of a workspace are: Unique groups them by their tab.
func TestUniquePanes(t *testing.T) {
	n, err := New(Config{Format: "{agent}", Panes: true})
	if err != nil {
		t.Fatal(err)
	}
	got := n.Unique([]UniqueItem{
		{TabID: "w1:p1", Workspace: "w1:t1", Name: "claude", Dir: "/src/api"},
		{TabID: "w1:p2", Workspace: "w1:t1", Name: "claude", Dir: "/src/web"},
		{TabID: "w1:p3", Workspace: "w1:t2", Name: "claude", Dir: "/src/api"},
	})
	want := []string{"api/claude", "web/claude", "claude"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("Unique[%d] = %q, want %q", i, got[i], want[i])
		}
	}
}
