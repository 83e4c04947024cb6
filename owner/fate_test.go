package owner

import (
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// One table for the whole rule: whose a label is and what becomes of it,
// for each kind of target.
func TestFate(t *testing.T) {
	ours := Memory{Labels: []string{"vim", "make"}, Landing: []string{"make"}}
	locked := Memory{Labels: ours.Labels, Landing: ours.Landing, Locked: true, LockedLabel: "notes"}
	tab, ws, pane := state.Tab, state.Workspace, state.Pane
	for _, tt := range []struct {
		name string
		kind state.Kind
		c    Case
		want Fate
	}{
		{"ours, renamed", tab, Case{Label: "vim", Want: "zsh", Memory: ours}, Fate{Verdict: Ours, Do: Rename, To: "zsh"}},
		{"ours, already our name", tab, Case{Label: "zsh", Want: "zsh", Memory: Labels("zsh")}, Fate{Verdict: Ours}},
		{"herdr's number", tab, Case{Label: "3", Want: "zsh"}, Fate{Verdict: Herdrs, Do: Rename, To: "zsh"}},
		{"herdr's empty label", tab, Case{Label: "", Want: "zsh"}, Fate{Verdict: Herdrs, Do: Rename, To: "zsh"}},
		{"a person's", tab, Case{Label: "notes", Want: "zsh", Memory: ours}, Fate{Verdict: Human}},
		{"a person's number with a leading zero", tab, Case{Label: "07", Want: "zsh"}, Fate{Verdict: Human}},
		{"a person's, forced", tab, Case{Label: "notes", Want: "zsh", Force: true}, Fate{Verdict: Forced, Do: Rename, To: "zsh"}},
		{"released", tab, Case{Label: "notes", Want: "zsh", Memory: Memory{Released: true, ReleasedFrom: ptr("notes")}}, Fate{Verdict: Released, Do: Rename, To: "zsh"}},
		{"released, a person named it since", tab, Case{Label: "mine", Want: "zsh", Memory: Memory{Released: true, ReleasedFrom: ptr("notes")}}, Fate{Verdict: Human}},
		{"released, herdr's number since", tab, Case{Label: "2", Want: "zsh", Memory: Memory{Released: true, ReleasedFrom: ptr("notes")}}, Fate{Verdict: Released, Do: Rename, To: "zsh"}},
		{"released, a rename of ours landing since", tab, Case{Label: "vim", Want: "zsh", Memory: Memory{Released: true, ReleasedFrom: ptr("notes"), Labels: []string{"vim"}}}, Fate{Verdict: Released, Do: Rename, To: "zsh"}},
		{"locked", tab, Case{Label: "notes", Want: "zsh", Memory: locked, Force: true}, Fate{Verdict: Locked}},
		{"locked, our rename landed after", tab, Case{Label: "make", Want: "zsh", Memory: locked}, Fate{Verdict: Locked, Do: PutBack, To: "notes"}},
		{"locked, an old label of ours chosen since", tab, Case{Label: "vim", Want: "zsh", Memory: locked}, Fate{Verdict: Locked}},
		{"locked, a rename of ours still recorded landed", tab, Case{Label: "vim", Want: "zsh", Memory: Memory{Labels: locked.Labels, Locked: true, LockedLabel: "notes", Recorded: []string{"vim"}}}, Fate{Verdict: Locked, Do: PutBack, To: "notes"}},
		{"skipped outranks a lock", tab, Case{Label: "make", Want: "zsh", Memory: locked, Skip: true}, Fate{Verdict: Skipped}},
		{"a variant is ours", tab, Case{Label: "⚪ api", Want: "🟡 api", Variants: []string{"🟡 api", "⚪ api"}}, Fate{Verdict: Ours, Do: Rename, To: "🟡 api"}},
		{"workspace, herdr's auto label", ws, Case{Label: "api", Want: "ws api", Auto: []string{"api"}}, Fate{Verdict: Herdrs, Do: Rename, To: "ws api"}},
		{"workspace, a number is a person's", ws, Case{Label: "3", Want: "ws api"}, Fate{Verdict: Human}},
		{"workspace, no force, no lock", ws, Case{Label: "shop", Want: "ws api", Force: true, Memory: Memory{Released: true, Locked: true}}, Fate{Verdict: Human}},
		{"workspace, remembered", ws, Case{Label: "3 old", Want: "ws api", Memory: Memory{Labels: []string{"3 old"}, Locked: true}}, Fate{Verdict: Ours, Do: Rename, To: "ws api"}},
		{"workspace, skipped", ws, Case{Label: "api", Want: "ws api", Auto: []string{"api"}, Skip: true}, Fate{Verdict: Skipped}},
		{"pane, herdr's empty label", pane, Case{Label: "", Want: "claude"}, Fate{Verdict: Herdrs, Do: Rename, To: "claude"}},
		{"pane, a number is a person's", pane, Case{Label: "2", Want: "claude"}, Fate{Verdict: Human}},
		{"pane, ours while it lands", pane, Case{Label: "make", Want: "zsh", Memory: ours}, Fate{Verdict: Ours, Do: Rename, To: "zsh"}},
		{"pane, a person's", pane, Case{Label: "reviewer", Want: "zsh", Memory: ours}, Fate{Verdict: Human}},
		{"pane, released", pane, Case{Label: "reviewer", Want: "zsh", Memory: Memory{Released: true}}, Fate{Verdict: Released, Do: Rename, To: "zsh"}},
		{"pane, locked", pane, Case{Label: "", Want: "zsh", Memory: locked}, Fate{Verdict: Locked}},
		{"pane locked with no label, our rename landed after", pane, Case{Label: "make", Memory: Memory{Labels: ours.Labels, Landing: ours.Landing, Locked: true}}, Fate{Verdict: Locked, Do: PutBack, To: ""}},
		{"pane, a render is a person's", pane, Case{Label: "api", Want: "claude", Variants: []string{"api", "claude"}}, Fate{Verdict: Human}},
		{"pane, a render we set is ours", pane, Case{Label: "api", Want: "claude", Variants: []string{"api"}, Memory: Labels("api")}, Fate{Verdict: Ours, Do: Rename, To: "claude"}},
		{"pane released showing nothing, named since", pane, Case{Label: "notes", Want: "claude", Memory: Memory{Released: true, ReleasedFrom: new(string)}}, Fate{Verdict: Human}},
		{"pane released, still showing its label", pane, Case{Label: "", Want: "claude", Memory: Memory{Released: true, ReleasedFrom: new(string)}}, Fate{Verdict: Released, Do: Rename, To: "claude"}},
		{"pane released showing a person's label", pane, Case{Label: "mine", Want: "claude", Memory: Memory{Released: true, ReleasedFrom: ptr("mine")}}, Fate{Verdict: Released, Do: Rename, To: "claude"}},
		{"pane released, a label of ours since", pane, Case{Label: "vim", Want: "claude", Memory: Memory{Released: true, ReleasedFrom: new(string), Labels: []string{"vim"}}}, Fate{Verdict: Released, Do: Rename, To: "claude"}},
		{"pane released before releases kept their label", pane, Case{Label: "mine", Want: "claude", Memory: Memory{Released: true}}, Fate{Verdict: Released, Do: Rename, To: "claude"}},
		{"tab locked with no label known, our rename landed after", tab, Case{Label: "make", Memory: Memory{Labels: ours.Labels, Landing: ours.Landing, Locked: true}}, Fate{Verdict: Locked}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := For(tt.kind)(tt.c)
			if got.Verdict != tt.want.Verdict || got.Do != tt.want.Do || got.To != tt.want.To {
				t.Errorf("Fate = %v %v %q, want %v %v %q", got.Verdict, got.Do, got.To, tt.want.Verdict, tt.want.Do, tt.want.To)
			}
			if got.Why == "" {
				t.Error("no why")
			}
		})
	}
}

func ptr(s string) *string { return &s }

// The precedence of the verdicts, and what herdr's own tab label is.
func TestVerdict(t *testing.T) {
	variants := []string{"🟡 api", "⚪ api", "api"}
	for _, tt := range []struct {
		name  string
		label string
		mem   Memory
		force bool
		want  Verdict
	}{
		{"remembered", "old name", Labels("x", "old name"), false, Ours},
		{"variant", "⚪ api", Memory{}, false, Ours},
		{"herdr position", "3", Memory{}, false, Herdrs},
		{"herdr big position", "120", Memory{}, false, Herdrs},
		{"empty", "", Memory{}, false, Herdrs},
		{"leading zero is a person's", "007", Memory{}, false, Human},
		{"zero is a person's", "0", Memory{}, false, Human},
		{"signed number is a person's", "-1", Memory{}, false, Human},
		{"person", "my tab", Memory{}, false, Human},
		{"person, near miss of a variant", "api ", Memory{}, false, Human},
		{"force", "my tab", Memory{}, true, Forced},
		{"force keeps ours ours", "api", Memory{}, true, Ours},
		{"released beats a person", "my tab", Memory{Released: true, ReleasedFrom: ptr("my tab")}, false, Released},
		{"a person's since the release", "my tab", Memory{Released: true, ReleasedFrom: ptr("notes")}, false, Human},
		{"locked beats ours", "api", Memory{Locked: true}, false, Locked},
		{"locked beats force", "my tab", Memory{Locked: true}, true, Locked},
		{"locked beats released", "x", Memory{Locked: true, Released: true}, false, Locked},
	} {
		if got := Tab(Case{Label: tt.label, Memory: tt.mem, Force: tt.force, Variants: variants}).Verdict; got != tt.want {
			t.Errorf("%s: verdict of %q = %v, want %v", tt.name, tt.label, got, tt.want)
		}
	}
}

func TestVerdictStrings(t *testing.T) {
	want := map[Verdict]struct {
		s      string
		rename bool
	}{
		Ours: {"ours", true}, Herdrs: {"herdr's", true}, Human: {"person's", false},
		Locked: {"locked", false}, Released: {"released", true}, Forced: {"person's, forced", true},
		Skipped: {"skipped by rule", false}, Verdict(99): {"verdict(?)", false},
	}
	for v, w := range want {
		if v.String() != w.s || v.MayRename() != w.rename {
			t.Errorf("%d: %q %v, want %q %v", v, v.String(), v.MayRename(), w.s, w.rename)
		}
	}
}

// A label right before our echo goes back only when it is a person's.
func TestForeign(t *testing.T) {
	ours := []string{"vim", "seen"}
	for _, tt := range []struct {
		label string
		kind  state.Kind
		want  bool
	}{
		{"notes", state.Tab, true}, {"vim", state.Tab, false}, {"seen", state.Tab, false},
		{"4", state.Tab, false}, {"", state.Tab, false}, {"4", state.Workspace, true},
	} {
		if got := Foreign(tt.kind, tt.label, ours); got != tt.want {
			t.Errorf("Foreign(%v, %q) = %v, want %v", tt.kind, tt.label, got, tt.want)
		}
	}
}

// Of reads what the rule needs of a memory entry: labels of ours (the
// last set, and what may still land), the lock and its label, a release.
func TestOf(t *testing.T) {
	now := time.Now()
	e := state.Entry{Label: "vim", Locked: true, LockedLabel: "notes", Released: true,
		Pending: []state.Pending{{Label: "make", Until: now.Add(time.Second)}, {Label: "old", Until: now.Add(-time.Second)}}}
	m := Of(e, now)
	if !m.Locked || m.LockedLabel != "notes" || !m.Released {
		t.Errorf("Of lost the lock or release: %+v", m)
	}
	if len(m.Labels) != 2 || len(m.Landing) != 1 || m.Landing[0] != "make" {
		t.Errorf("Of labels %q landing %q, want vim and make, make landing", m.Labels, m.Landing)
	}
	if w := m.With("x"); len(w.Labels) != 3 || len(m.Labels) != 2 {
		t.Errorf("With changed its receiver or lost the label: %q %q", m.Labels, w.Labels)
	}
}

// What herdr's rename events tell: a report of herdr's own label shows
// what a look saw as herdr's; a label chosen again comes after another
// than the one our rename to it replaced.
func TestHeardLabels(t *testing.T) {
	for _, tt := range []struct {
		k              state.Kind
		reported, seen string
		want           bool
	}{
		{state.Tab, "vim", "vim", true}, {state.Tab, "", "3", true}, {state.Tab, "", "notes", false},
		{state.Tab, "3", "", false}, {state.Workspace, "", "api", true}, {state.Workspace, "web", "api", false},
	} {
		if got := Shown(tt.k, tt.reported, tt.seen); got != tt.want {
			t.Errorf("Shown(%v, %q, %q) = %v, want %v", tt.k, tt.reported, tt.seen, got, tt.want)
		}
	}
	for _, tt := range []struct {
		prior, over string
		want        bool
	}{
		{"notes", "src", true}, {"src", "src", false}, {"", "2", false}, {"2", "", false},
		{"vim", "src", false}, // a label of ours: a late rename of ours, not a person
		{"mine", "", false},   // not known what our rename replaced
	} {
		if got := ChosenAgain(state.Tab, tt.prior, tt.over, []string{"vim"}); got != tt.want {
			t.Errorf("ChosenAgain(%q, %q) = %v, want %v", tt.prior, tt.over, got, tt.want)
		}
	}
}
