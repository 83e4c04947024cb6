package mark

import (
	"strings"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// What lock and release mark: the pane of --pane, else the tab TAB_ID,
// else the tab the command runs in; two things, or none, are refused.
func TestTarget(t *testing.T) {
	env := map[string]string{"HERDR_TAB_ID": "w1:t3"}
	getenv := func(k string) string { return env[k] }
	for _, tt := range []struct {
		tab, pane string
		want      state.Target
		err       string
	}{
		{"w1:t2", "", state.TabTarget("w1:t2"), ""},
		{"", "w1:p4", state.PaneTarget("w1:p4"), ""},
		{"", "", state.TabTarget("w1:t3"), ""},
		{"w1:t2", "w1:p4", state.Target{}, "name two things"},
		{"", "t4", state.Target{}, "--pane: "},
		{"x", "", state.Target{}, "x"},
	} {
		got, err := Target(tt.tab, tt.pane, getenv)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Target(%q, %q): %v, want an error with %q", tt.tab, tt.pane, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Target(%q, %q) = %v, %v; want %v", tt.tab, tt.pane, got, err, tt.want)
		}
	}
	if _, err := Target("", "", func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "$HERDR_TAB_ID") {
		t.Errorf("no tab and no $HERDR_TAB_ID: %v", err)
	}
	if Named(state.PaneTarget("w1:p4")) != "pane w1:p4" || Named(state.TabTarget("w1:t2")) != "w1:t2" {
		t.Error("Named")
	}
}
