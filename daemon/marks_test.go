package daemon

import (
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// A release ends when a person names the tab: released showing "notes",
// then named "mine" before the daemon looked, the tab keeps "mine", and
// later "notes" again, the person's too.
func TestAReleaseEndsWhenAPersonNamesTheTab(t *testing.T) {
	f := newFixture(t, "{dir}", nil)
	f.srv.NewWorkspace("main", home+"/rmk")
	tab := f.srv.Snapshot().Tabs[0].ID
	f.srv.HumanRename(tab, "notes")
	f.once()
	f.wantLabels("notes")
	releaseTab(t, f, tab, false)
	f.srv.HumanRename(tab, "mine")
	f.once()
	f.wantLabels("mine")
	f.srv.HumanRename(tab, "notes")
	f.once()
	f.wantLabels("notes")
}

// A daemon killed as its rename landed over a lock leaves the locked
// label to the next daemon, which puts it back however long after: the
// memory still follows that rename.
func TestALockOvertakenByAKilledDaemonsRenameGoesBack(t *testing.T) {
	f := newFixture(t, "{dir}", nil)
	f.srv.NewWorkspace("main", home+"/rmk")
	tab := f.srv.Snapshot().Tabs[0].ID
	st, _ := state.Load(f.d.opt.StatePath, f.d.opt.Socket)
	sent := time.Now().Add(-2 * time.Minute)
	if err := st.Edit(func(tx *state.Tx) {
		tx.Pend(state.TabTarget(tab), state.Flight{Want: "rmk", Seen: "1", Sent: sent})
		tx.Lock(state.TabTarget(tab), "1")
	}); err != nil {
		t.Fatal(err)
	}
	f.srv.HumanRename(tab, "rmk") // the killed daemon's rename, landing
	f.once()
	f.wantLabels("1")
}
