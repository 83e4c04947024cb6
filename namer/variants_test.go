package namer

import (
	"slices"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

func TestVariants(t *testing.T) {
	n := mustNew(t, Config{Format: "{icon} {proc|agent}:{dir}"})
	// Without proc the glue on both sides of the empty group goes: "🟡api".
	d := (scene{cwd: "/x/api", proc: "vim", status: herdr.StatusWorking}).decide(n)
	if d.Want != "🟡 vim:api" || d.Variants[0] != d.Want {
		t.Fatalf("Want %q, Variants %q", d.Want, d.Variants)
	}
	for _, v := range []string{"🔴 vim:api", "🟢 vim:api", "⚪ vim:api", "vim:api", "🟡api", "api", "🔴api"} {
		if !slices.Contains(d.Variants, v) {
			t.Errorf("Variants %q lack %q", d.Variants, v)
		}
	}
	if len(d.Variants) != 10 {
		t.Errorf("want 5 statuses x with/without proc = 10 distinct variants, got %d: %q", len(d.Variants), d.Variants)
	}

	d = (scene{cwd: "/x/api", agent: "claude", status: herdr.StatusBlocked}).decide(n)
	for _, v := range []string{"🔴 claude:api", "🟡 claude:api", "claude:api", "api", "🟢api"} {
		if !slices.Contains(d.Variants, v) {
			t.Errorf("agent Variants %q lack %q", d.Variants, v)
		}
	}

	// A template without status, proc or agent has one variant.
	n = mustNew(t, Config{Format: "{dir}"})
	if d := (scene{cwd: "/x/api", proc: "vim", status: herdr.StatusIdle}).decide(n); !slices.Equal(d.Variants, []string{"api"}) {
		t.Errorf("Variants = %q", d.Variants)
	}
	// Variants are cut like the name is.
	n = mustNew(t, Config{Format: "{status} {dir}", MaxLen: 6})
	d = (scene{cwd: "/x/api", status: herdr.StatusIdle}).decide(n)
	if d.Want != "idle…" || !slices.Contains(d.Variants, "worki…") || !slices.Contains(d.Variants, "api") {
		t.Errorf("Want %q Variants %q", d.Want, d.Variants)
	}
	// Nothing to say, no variants.
	if d := (scene{}).decide(mustNew(t, Config{Format: "{dir}"})); d.Want != "" || len(d.Variants) != 0 {
		t.Errorf("empty: %q %q", d.Want, d.Variants)
	}
}

func TestUnique(t *testing.T) {
	tests := []struct {
		name  string
		items []UniqueItem
		want  []string
	}{
		{"already unique", []UniqueItem{
			{TabID: "w1:t1", Name: "api", Dir: "/p/api"}, {TabID: "w1:t2", Name: "web", Dir: "/p/web"},
		}, []string{"api", "web"}},
		{"one parent", []UniqueItem{
			{TabID: "w1:t1", Name: "src", Dir: "/p/api/src"}, {TabID: "w1:t2", Name: "src", Dir: "/p/web/src"}, {TabID: "w1:t3", Name: "x", Dir: "/p/web/src"},
		}, []string{"api/src", "web/src", "x"}},
		{"other workspaces do not clash", []UniqueItem{
			{TabID: "w1:t1", Name: "src", Dir: "/p/api/src"}, {TabID: "w2:t1", Name: "src", Dir: "/p/web/src"},
		}, []string{"src", "src"}},
		{"each tab gets its own shortest path", []UniqueItem{
			{TabID: "w1:t1", Name: "src", Dir: "/a/x/src"}, {TabID: "w1:t2", Name: "src", Dir: "/b/x/src"}, {TabID: "w1:t3", Name: "src", Dir: "/c/y/src"},
		}, []string{"a/x/src", "b/x/src", "y/src"}},
		{"home shows as ~", []UniqueItem{
			{TabID: "w1:t1", Name: "src", Dir: home + "/src"}, {TabID: "w1:t2", Name: "src", Dir: "/opt/src"},
		}, []string{"~/src", "opt/src"}},
		{"prefix before a name that is not the dir", []UniqueItem{
			{TabID: "w1:t1", Name: "btop", Dir: "/p/api"}, {TabID: "w1:t2", Name: "btop", Dir: "/p/web"},
		}, []string{"api/btop", "web/btop"}},
		{"parents go before the basename inside the name", []UniqueItem{
			{TabID: "w1:t1", Name: "🟡 src", Dir: "/p/api/src"}, {TabID: "w1:t2", Name: "🟡 src", Dir: "/p/web/src"},
		}, []string{"🟡 api/src", "🟡 web/src"}},
		{"same dir cannot be told apart", []UniqueItem{
			{TabID: "w1:t1", Name: "src", Dir: "/p/src"}, {TabID: "w1:t2", Name: "src", Dir: "/p/src"},
		}, []string{"src", "src"}},
		{"a shallower dir keeps its name", []UniqueItem{
			{TabID: "w1:t1", Name: "src", Dir: "/a/src"}, {TabID: "w1:t2", Name: "src", Dir: "/x/a/src"},
		}, []string{"src", "x/a/src"}},
		{"empty names are left alone", []UniqueItem{
			{TabID: "w1:t1", Name: "", Dir: "/a"}, {TabID: "w1:t2", Name: "", Dir: "/b"},
		}, []string{"", ""}},
	}
	n := mustNew(t, Config{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := n.Unique(tt.items)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Unique = %q, want %q", got, tt.want)
			}
			// Stable: the order of the items does not matter.
			rev := slices.Clone(tt.items)
			slices.Reverse(rev)
			gotRev := n.Unique(rev)
			slices.Reverse(gotRev)
			if !slices.Equal(gotRev, got) {
				t.Errorf("reversed input gives %q", gotRev)
			}
		})
	}
	// An explicit workspace wins over the one in the tab id.
	if got := n.Unique([]UniqueItem{{TabID: "w1:t1", Workspace: "w9", Name: "src", Dir: "/p/api/src"}, {TabID: "w2:t1", Workspace: "w9", Name: "src", Dir: "/p/web/src"}}); !slices.Equal(got, []string{"api/src", "web/src"}) {
		t.Errorf("explicit workspace: %q", got)
	}
	n = mustNew(t, Config{MaxLen: 6})
	if got := n.Unique([]UniqueItem{{TabID: "w1:t1", Name: "src", Dir: "/p/api/src"}, {TabID: "w1:t2", Name: "src", Dir: "/p/web/src"}}); !slices.Equal(got, []string{"api/s…", "web/s…"}) {
		t.Errorf("MaxLen: %q", got)
	}
}
