package namer

import "testing"

// One table for the whole rule: whose a label is and what becomes of it.
func TestFate(t *testing.T) {
	ours := Memory{Labels: []string{"vim", "make"}, Landing: []string{"make"}}
	locked := Memory{Labels: ours.Labels, Landing: ours.Landing, Locked: true, LockedLabel: "notes"}
	for _, tt := range []struct {
		name string
		c    Case
		skip bool
		want Fate
	}{
		{"ours, renamed", Case{Label: "vim", Want: "zsh", Memory: ours}, false, Fate{Verdict: Ours, Do: Rename, To: "zsh"}},
		{"ours, already our name", Case{Label: "zsh", Want: "zsh", Memory: Memory{Labels: []string{"zsh"}}}, false, Fate{Verdict: Ours}},
		{"herdr's number", Case{Label: "3", Want: "zsh"}, false, Fate{Verdict: Herdrs, Do: Rename, To: "zsh"}},
		{"herdr's empty label", Case{Label: "", Want: "zsh"}, false, Fate{Verdict: Herdrs, Do: Rename, To: "zsh"}},
		{"a person's", Case{Label: "notes", Want: "zsh", Memory: ours}, false, Fate{Verdict: Human}},
		{"a person's number with a leading zero", Case{Label: "07", Want: "zsh"}, false, Fate{Verdict: Human}},
		{"a person's, forced", Case{Label: "notes", Want: "zsh", Force: true}, false, Fate{Verdict: Forced, Do: Rename, To: "zsh"}},
		{"released", Case{Label: "notes", Want: "zsh", Memory: Memory{Released: true}}, false, Fate{Verdict: Released, Do: Rename, To: "zsh"}},
		{"locked", Case{Label: "notes", Want: "zsh", Memory: locked, Force: true}, false, Fate{Verdict: Locked}},
		{"locked, our rename landed after", Case{Label: "make", Want: "zsh", Memory: locked}, false, Fate{Verdict: Locked, Do: PutBack, To: "notes"}},
		{"locked, an old label of ours chosen since", Case{Label: "vim", Want: "zsh", Memory: locked}, false, Fate{Verdict: Locked}},
		{"skipped outranks a lock", Case{Label: "make", Want: "zsh", Memory: locked}, true, Fate{Verdict: Skipped}},
		{"workspace, herdr's auto label", Case{Label: "api", Want: "ws api", Workspace: true, Auto: []string{"api"}}, false, Fate{Verdict: Herdrs, Do: Rename, To: "ws api"}},
		{"workspace, a number is a person's", Case{Label: "3", Want: "ws api", Workspace: true}, false, Fate{Verdict: Human}},
		{"pane, herdr's empty label", Case{Label: "", Want: "claude", Pane: true}, false, Fate{Verdict: Herdrs, Do: Rename, To: "claude"}},
		{"pane, a number is a person's", Case{Label: "2", Want: "claude", Pane: true}, false, Fate{Verdict: Human}},
		{"pane, ours while it lands", Case{Label: "make", Want: "zsh", Pane: true, Memory: ours}, false, Fate{Verdict: Ours, Do: Rename, To: "zsh"}},
		{"pane, a person's", Case{Label: "reviewer", Want: "zsh", Pane: true, Memory: ours}, false, Fate{Verdict: Human}},
		{"pane, released", Case{Label: "reviewer", Want: "zsh", Pane: true, Memory: Memory{Released: true}}, false, Fate{Verdict: Released, Do: Rename, To: "zsh"}},
		{"pane, locked", Case{Label: "", Want: "zsh", Pane: true, Memory: locked}, false, Fate{Verdict: Locked}},
		{"pane locked with no label, our rename landed after", Case{Label: "make", Pane: true, Memory: Memory{Labels: ours.Labels, Landing: ours.Landing, Locked: true}}, false, Fate{Verdict: Locked, Do: PutBack, To: ""}},
		{"tab locked with no label known, our rename landed after", Case{Label: "make", Memory: Memory{Labels: ours.Labels, Landing: ours.Landing, Locked: true}}, false, Fate{Verdict: Locked}},
		{"workspace, no force, no lock", Case{Label: "shop", Want: "ws api", Workspace: true, Force: true, Memory: Memory{Released: true}}, false, Fate{Verdict: Human}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := Decision{Skip: tt.skip}.Fate(tt.c)
			if got.Verdict != tt.want.Verdict || got.Do != tt.want.Do || got.To != tt.want.To {
				t.Errorf("Fate = %v %v %q, want %v %v %q", got.Verdict, got.Do, got.To, tt.want.Verdict, tt.want.Do, tt.want.To)
			}
			if got.Why == "" {
				t.Error("no why")
			}
		})
	}
}

// A label right before our echo goes back only when it is a person's.
func TestForeign(t *testing.T) {
	ours := []string{"vim", "seen"}
	for _, tt := range []struct {
		label     string
		workspace bool
		want      bool
	}{
		{"notes", false, true}, {"vim", false, false}, {"seen", false, false},
		{"4", false, false}, {"", false, false}, {"4", true, true},
	} {
		if got := Foreign(tt.label, ours, tt.workspace); got != tt.want {
			t.Errorf("Foreign(%q, workspace %v) = %v, want %v", tt.label, tt.workspace, got, tt.want)
		}
	}
}
