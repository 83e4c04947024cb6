package daemon

import (
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

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
	if peer := st.Server().Peer; peer == "1@1" || peer == "" {
		t.Errorf("the state still names instance %q", peer)
	}
}
