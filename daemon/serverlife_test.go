package daemon

import (
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// A new server keeps the memory of tabs and workspaces that show what is
// remembered of them (a restored session), and drops the rest (ids
// counted again from 1).
func TestRevalidateKeepsOnlyWhatStillShows(t *testing.T) {
	st := &state.State{
		Tabs: map[string]state.TabMemory{
			"w1:t1": {Label: "vim"},
			"w1:t2": {Locked: true, LockedLabel: "notes"},
			"w1:t3": {PersonText: "todo", PrefixedAs: "3 todo"},
			"w1:t4": {Label: "vim"},
			"w1:t5": {Locked: true, LockedLabel: "notes"},
			"w1:t6": {Label: "gone"},
		},
		Workspaces: map[string]state.WorkspaceMemory{"w1": {Label: "api"}, "w2": {Label: "web"}},
	}
	snap := &herdr.Snapshot{
		Tabs: []herdr.Tab{
			{ID: "w1:t1", Label: "vim"}, {ID: "w1:t2", Label: "notes"}, {ID: "w1:t3", Label: "3 todo"},
			{ID: "w1:t4", Label: "4"}, {ID: "w1:t5", Label: "5"},
		},
		Workspaces: []herdr.Workspace{{ID: "w1", Label: "api"}, {ID: "w2", Label: "src"}},
	}
	kept, dropped := revalidate(st, snap)
	if kept != 4 || dropped != 4 {
		t.Errorf("kept %d, dropped %d; want 4 and 4", kept, dropped)
	}
	for _, id := range []string{"w1:t1", "w1:t2", "w1:t3"} {
		if _, ok := st.Tabs[id]; !ok {
			t.Errorf("tab %s forgotten though it shows what is remembered", id)
		}
	}
	for _, id := range []string{"w1:t4", "w1:t5", "w1:t6"} {
		if _, ok := st.Tabs[id]; ok {
			t.Errorf("tab %s remembered though the new server shows another label", id)
		}
	}
	if _, ok := st.Workspaces["w2"]; ok {
		t.Error("workspace w2 remembered though it shows another label")
	}
}

// A state file written for another server process (the old one before a
// restart without its session) does not lock the new server's tab that
// reuses a locked tab's id; once records the new server.
func TestStateOfAnEarlierServerDoesNotHoldItsReusedIds(t *testing.T) {
	f := newFixture(t, "{dir}", nil)
	_, tab, _ := f.srv.NewWorkspace("main", home+"/a")
	loadState(t, f, map[string]any{"instance": "1@1",
		"tabs": map[string]any{tab: map[string]any{"locked": true, "locked_label": "notes"}}})
	f.once()
	f.wantLabels("a")
	st, _ := state.Load(f.d.opt.StatePath, f.d.opt.Socket)
	if st.Instance == "1@1" || st.Instance == "" {
		t.Errorf("the state still names instance %q", st.Instance)
	}
}
