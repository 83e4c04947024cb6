package pass

import (
	"context"
	"fmt"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/sidebar"
)

// TestSidebarValues: with sidebar tokens on, every pane of the tabs in
// scope gets what its sidebar should show: an agent's pane its own
// facts, any other pane nothing; a read-only pass plans none.
func TestSidebarValues(t *testing.T) {
	names := []string{"agent", "task", "dir", "status"}
	side, err := namer.New(namer.Config{Format: sidebar.Format(names), MaxLen: 80, Panes: true})
	if err != nil {
		t.Fatal(err)
	}
	claude := herdr.Pane{ID: "w1:p1", Cwd: "/src/api", Agent: "claude", AgentStatus: herdr.StatusWorking, Title: "fix the login"}
	shell := herdr.Pane{ID: "w1:p2", Cwd: "/src/web", Tokens: map[string]string{"htr_task": "old"}}
	codex := herdr.Pane{ID: "w1:p3", Cwd: "/src/doc", Agent: "codex", AgentStatus: herdr.StatusIdle}
	snap := session(map[string][]herdr.Pane{"w1:t1": {claude, shell}, "w1:t2": {codex}}, nil)
	for _, tt := range []struct {
		name     string
		readOnly bool
		want     string
	}{
		{"a pass", false, `[{w1:p1 map[agent:claude dir:api status:working task:fix the login]} {w1:p2 map[]} {w1:p3 map[agent:codex dir:doc status:idle task:]}]`},
		{"explain", true, `[]`},
	} {
		p := planner(t, "{dir}", &asker{progs: map[string]string{"w1:p2": ""}})
		cfg := p.Config()
		cfg.Sidebar, cfg.SidebarTokens = side, names
		p.Reconfigure(cfg)
		pl := p.Plan(context.Background(), Input{Snap: snap, ReadOnly: tt.readOnly}, memory(t))
		got := "["
		for i, sp := range pl.Sidebar {
			if i > 0 {
				got += " "
			}
			got += fmt.Sprintf("{%s %v}", sp.ID, sp.Values)
			if sp.ID == shell.ID && sp.Shows["htr_task"] != "old" {
				t.Errorf("%s: the shell's pane shows %v, want herdr's tokens", tt.name, sp.Shows)
			}
		}
		if got += "]"; got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

// TestSidebarOff: with sidebar tokens off, the panes that still show
// tokens of ours (a list emptied, a daemon before us) are planned with
// nothing to show, so ours are cleared; others' tokens are no reason.
func TestSidebarOff(t *testing.T) {
	stale := herdr.Pane{ID: "w1:p1", Agent: "codex", Tokens: map[string]string{"htr_agent": "claude", "model": "m"}}
	others := herdr.Pane{ID: "w1:p2", Tokens: map[string]string{"model": "m"}}
	snap := session(map[string][]herdr.Pane{"w1:t1": {stale, others}}, nil)
	p := planner(t, "{dir}", &asker{progs: map[string]string{}})
	pl := p.Plan(context.Background(), Input{Snap: snap}, memory(t))
	if len(pl.Sidebar) != 1 || pl.Sidebar[0].ID != stale.ID || pl.Sidebar[0].Values != nil {
		t.Fatalf("tokens off: %+v, want the stale pane with nothing to show", pl.Sidebar)
	}
	if reps := sidebar.New(nil).Plan(pl.Sidebar, true); len(reps) != 1 || reps[0].String() != "w1:p1 htr_agent=null" {
		t.Fatalf("tokens off: reports %v", reps)
	}
	if pl := p.Plan(context.Background(), Input{Snap: snap, ReadOnly: true}, memory(t)); len(pl.Sidebar) != 0 {
		t.Fatalf("explain planned %+v", pl.Sidebar)
	}
}
