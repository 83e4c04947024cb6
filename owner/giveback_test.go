package owner

import (
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// A person's label goes back over a label of ours alone, never over a
// locked one, nor over our name once a person locked it.
func TestReturnOver(t *testing.T) {
	ret := Return{Back: "notes", Want: "vim", Ours: true, Then: []string{"make"}}
	for _, tt := range []struct {
		name, label string
		m           Memory
		want        bool
	}{
		{"our name", "vim", Memory{}, true},
		{"ours when it began", "make", Memory{}, true},
		{"ours now", "zsh", Labels("zsh"), true},
		{"back already", "notes", Labels("notes"), false},
		{"a person's since", "todo", Memory{}, false},
		{"herdr's number is no one's to replace", "3", Memory{}, false},
		{"a locked label", "zsh", Memory{Labels: []string{"zsh"}, Locked: true, LockedLabel: "zsh"}, false},
		{"our name, locked once it showed", "make", Memory{Locked: true, LockedLabel: "vim"}, false},
	} {
		if got := ReturnOver(state.Tab, tt.label, ret, tt.m); got != tt.want {
			t.Errorf("%s: ReturnOver(%q) = %v, want %v", tt.name, tt.label, got, tt.want)
		}
	}
	// A lock kept "old" and the target shows it: a locked label never
	// changes, whoever asked for it.
	given := Return{Back: "notes", Want: "old", Ours: false}
	if ReturnOver(state.Tab, "old", given, Memory{Labels: []string{"old"}, Locked: true, LockedLabel: "old"}) {
		t.Error("a put-back went over a locked label")
	}
}

// The label a lock kept goes back only while that lock stands, over a
// label of ours that landed after it.
func TestLockKept(t *testing.T) {
	locked := Memory{Labels: []string{"vim"}, Locked: true, LockedLabel: "notes"}
	for _, tt := range []struct {
		name, label string
		m           Memory
		want        bool
	}{
		{"ours landed after the lock", "vim", locked.WithLanding("vim"), true},
		{"ours, no longer landing", "vim", locked, false},
		{"released since", "vim", Memory{Labels: []string{"vim"}, Landing: []string{"vim"}}, false},
		{"locked anew with another label", "vim", Memory{Locked: true, LockedLabel: "todo", Landing: []string{"vim"}}, false},
		{"the lock's label", "notes", locked.WithLanding("notes"), false},
	} {
		if got := LockKept(state.Tab, tt.label, "notes", tt.m); got != tt.want {
			t.Errorf("%s: LockKept(%q) = %v, want %v", tt.name, tt.label, got, tt.want)
		}
	}
	if !LockKept(state.Pane, "vim", "", Memory{Locked: true, Landing: []string{"vim"}}) {
		t.Error("a pane locked with no label did not get none back")
	}
}

// What restore gives back, and why it keeps what it keeps.
func TestRestore(t *testing.T) {
	now := time.Now()
	ours := state.Entry{Label: "vim"}
	prefixed := state.Entry{PersonText: "3 amigos", PrefixedAs: "1 3 amigos"}
	for _, tt := range []struct {
		name, label string
		judged      Verdict
		e           state.Entry
		back, keep  string
	}{
		{"ours by the pass", "api", Ours, state.Entry{}, "2", ""},
		{"ours by the memory", "vim", Human, ours, "2", ""},
		{"a person's text with our prefix", "1 3 amigos", Human, prefixed, "3 amigos", ""},
		{"locked", "vim", Locked, ours, "", "locked"},
		{"herdr's", "2", Herdrs, state.Entry{}, "", "herdr's own label"},
		{"a person's", "notes", Human, ours, "", "a person's name"},
	} {
		back, keep := Restore(tt.label, tt.judged, tt.e, now, 2)
		if back != tt.back || keep != tt.keep {
			t.Errorf("%s: Restore = %q, %q; want %q, %q", tt.name, back, keep, tt.back, tt.keep)
		}
	}
	for _, tt := range []struct {
		name, label string
		judged      Verdict
		e           state.Entry
		keep        string
	}{
		{"ours by the pass", "claude", Ours, state.Entry{}, ""},
		{"ours by the memory", "vim", Human, ours, ""},
		{"locked", "vim", Ours, state.Entry{Label: "vim", Locked: true}, "locked"},
		{"no label", "", Herdrs, ours, "no label"},
		{"a person's", "notes", Human, ours, "a person's name"},
	} {
		if keep := RestorePane(tt.label, tt.judged, tt.e, now); keep != tt.keep {
			t.Errorf("%s: RestorePane = %q, want %q", tt.name, keep, tt.keep)
		}
	}
	if !GiveBackOver("vim", "vim", Memory{}) || GiveBackOver("todo", "vim", Memory{}) || GiveBackOver("vim", "vim", Memory{Locked: true}) {
		t.Error("GiveBackOver: only the label read, unlocked, may be replaced")
	}
}

func TestShows(t *testing.T) {
	snap := &herdr.Snapshot{Tabs: []herdr.Tab{{ID: "w1:t1", Label: "vim"}}, Workspaces: []herdr.Workspace{{ID: "w1", Label: "api"}},
		Panes: []herdr.Pane{{ID: "w1:p1", Label: ""}}}
	got := Shows(snap)
	if got[state.TabTarget("w1:t1")] != "vim" || got[state.WorkspaceTarget("w1")] != "api" || len(got) != 3 {
		t.Errorf("Shows = %v", got)
	}
}
