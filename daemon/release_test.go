package daemon

import "testing"

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
