package pass

import (
	"context"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/owner"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// panePlanner names panes {agent|proc|dir}.
func panePlanner(t *testing.T) *Planner {
	t.Helper()
	p := planner(t, "{dir}", &asker{progs: map[string]string{"w1:p1": "", "w2:p4": ""}})
	nm, err := namer.New(namer.Config{Format: "{agent|proc|dir}", Panes: true})
	if err != nil {
		t.Fatal(err)
	}
	p.cfg.PaneNamer = nm
	return p
}

// passOnce plans and applies what the memory learns, as the renamer's
// record does, and returns the one pane's row.
func passOnce(t *testing.T, p *Planner, mem *state.State, snap *herdr.Snapshot) *PaneRow {
	t.Helper()
	pl := p.Plan(context.Background(), Input{Snap: snap, SnapAt: p.now()}, mem)
	if err := mem.Update(pl.Edits.Apply); err != nil {
		t.Fatal(err)
	}
	if len(pl.Panes) != 1 {
		t.Fatalf("%d pane rows, want 1", len(pl.Panes))
	}
	return pl.Panes[0]
}

// A person's pane label that equals what the template renders is theirs:
// herdr names no pane, so only a person (or a client) does.
func TestAPanesRenderIsAPersons(t *testing.T) {
	p, mem := panePlanner(t), memory(t)
	snap := session(map[string][]herdr.Pane{"w1:t1": {{ID: "w1:p1", Cwd: "/src/api", Label: "api", TerminalID: "term_1"}}}, nil)
	if pr := passOnce(t, p, mem, snap); pr.Report.Judged != owner.Human || pr.Rename != nil {
		t.Fatalf("a person's %q read %v, rename %v", "api", pr.Report.Judged, pr.Rename)
	}
}

// A pane released with no name to take ends its release once a person
// names it: the label they type later is theirs.
func TestAPaneReleaseEndsWhenAPersonNamesIt(t *testing.T) {
	p, mem := panePlanner(t), memory(t)
	pt := state.PaneTarget("w1:p1")
	if err := mem.Update(func(tx *state.Tx) { tx.Release(pt, "") }); err != nil {
		t.Fatal(err)
	}
	snap := session(map[string][]herdr.Pane{"w1:t1": {{ID: "w1:p1", Label: "notes", TerminalID: "term_1"}}}, nil)
	if pr := passOnce(t, p, mem, snap); pr.Report.Judged != owner.Human {
		t.Fatalf("named %q after its release: %v", "notes", pr.Report.Judged)
	}
	if mem.Entry(pt).Released {
		t.Fatal("the release outlived the person's name")
	}
	snap.Panes[0].Agent = "claude"
	if pr := passOnce(t, p, mem, snap); pr.Rename != nil {
		t.Fatalf("an agent's start took the person's name: %v", pr.Rename.Want)
	}
}

// A pane that herdr gives a new id (moved to another workspace) keeps
// its memory, found by its terminal: our name on it is still ours, and a
// lock still holds.
func TestAPanesMemoryFollowsItsNewID(t *testing.T) {
	for _, locked := range []bool{false, true} {
		p, mem := panePlanner(t), memory(t)
		old, moved := state.PaneTarget("w1:p1"), state.PaneTarget("w2:p4")
		if err := mem.Update(func(tx *state.Tx) {
			tx.Named(old, "build")
			tx.Seat(old, "term_7")
			if locked {
				tx.Lock(old, "build")
			}
		}); err != nil {
			t.Fatal(err)
		}
		snap := &herdr.Snapshot{Protocol: 20, Workspaces: []herdr.Workspace{{ID: "w2", Number: 2}},
			Tabs:  []herdr.Tab{{ID: "w2:t1", WorkspaceID: "w2", Number: 1, Label: "1", PaneCount: 1}},
			Panes: []herdr.Pane{{ID: "w2:p4", TabID: "w2:t1", WorkspaceID: "w2", Focused: true, Cwd: "/src/web", Label: "build", TerminalID: "term_7"}}}
		pr := passOnce(t, p, mem, snap)
		switch {
		case locked && (pr.Report.Judged != owner.Locked || pr.Rename != nil):
			t.Fatalf("locked, moved: %v, rename %v", pr.Report.Judged, pr.Rename)
		case !locked && (pr.Report.Judged != owner.Ours || pr.Rename == nil || pr.Rename.Want != "web"):
			t.Fatalf("ours, moved: %v, rename %v", pr.Report.Judged, pr.Rename)
		}
		if mem.Has(old) || mem.Entry(moved).Terminal != "term_7" || mem.Entry(moved).Locked != locked {
			t.Fatalf("the memory did not move: old %v, new %+v", mem.Has(old), mem.Entry(moved))
		}
	}
}
