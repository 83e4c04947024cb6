package daemon

import (
	"strings"
	"testing"
)

// The leading edge: news after a quiet spell runs at once; news inside the
// window costs one pass at its end; a storm costs one pass per window.
// Steps: n = news arrives, f = the window's timer fires, c = another pass
// ran. Each step's expected outcome: P = a pass runs now, . = none.
func TestEdge(t *testing.T) {
	for _, tc := range []struct {
		name, steps, want string
	}{
		{"lone news runs at once, window closes quietly", "nf", "P."},
		{"news inside the window: one trailing pass", "nnnf", "P..P"},
		{"after the trailing pass the window stays open", "nnfnf", "P.P.P"},
		{"a quiet window ends the spell", "nnff" + "n", "P.P.P"},
		{"storm: one pass per window", "nnnfnnnfnnnff", "P..P...P...P."},
		{"a pass for another reason covers the news", "nncf", "P..."},
		{"after a quiet window news runs at once again", "nfn", "P.P"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e edge
			var got strings.Builder
			for _, s := range tc.steps {
				run := false
				switch s {
				case 'n':
					run = e.news()
				case 'f':
					run = e.fired()
				case 'c':
					e.covered()
				}
				if run {
					got.WriteByte('P')
				} else {
					got.WriteByte('.')
				}
			}
			if got.String() != tc.want {
				t.Errorf("steps %s: got %s, want %s", tc.steps, got.String(), tc.want)
			}
		})
	}
}
