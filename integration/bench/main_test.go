//go:build unix

package main

import (
	"testing"
	"time"
)

func TestPctsNearestRank(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	var twenty []time.Duration
	for i := 20; i >= 1; i-- { // unsorted on purpose
		twenty = append(twenty, ms(i))
	}
	for _, tc := range []struct {
		name string
		in   []time.Duration
		want string
	}{
		{"none", nil, "no samples"},
		{"one", []time.Duration{ms(7)}, "7.00 ms / 7.00 ms / 7.00 ms"},
		{"twenty: p50 the 10th, p95 the 19th", twenty, "10.00 ms / 19.00 ms / 20.00 ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := pcts(tc.in); got != tc.want {
				t.Errorf("pcts = %q, want %q", got, tc.want)
			}
		})
	}
}

// -trace prints the daemon's log lines stamped within a sample, with
// their offset from its start; lines outside it, and lines without a
// stamp, are left out.
func TestLogBetween(t *testing.T) {
	start := time.Date(2026, 12, 3, 15, 0, 0, 0, time.UTC)
	log := "time=2026-12-03T14:59:59.990Z level=DEBUG msg=before\n" +
		"time=2026-12-03T15:00:00.006Z level=DEBUG msg=\"herdr: reply\" method=session.snapshot\n" +
		"not a log line\n" +
		"time=2026-12-03T15:00:00.110Z level=INFO msg=renamed\n" +
		"time=2026-12-03T15:00:00.200Z level=DEBUG msg=after\n"
	got := logBetween(log, start, start.Add(110*time.Millisecond))
	want := "      +6.0 ms  level=DEBUG msg=\"herdr: reply\" method=session.snapshot\n" +
		"    +110.0 ms  level=INFO msg=renamed\n"
	if got != want {
		t.Errorf("logBetween =\n%s\nwant\n%s", got, want)
	}
}

// An at-rest figure is the median of its spans, shown with their range:
// the middle span of an odd count, the mean of the middle two of an even
// one.
func TestSharesFormat(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   shares
		want string
	}{
		{"none", nil, "no spans"},
		{"three, unsorted", shares{0.5, 0.3, 0.4}, "0.40 % of a core (median of 3 spans, 0.30–0.50)"},
		{"four", shares{0.2, 0.6, 0.4, 0.3}, "0.35 % of a core (median of 4 spans, 0.20–0.60)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.in.format(2); got != tc.want {
				t.Errorf("format = %q, want %q", got, tc.want)
			}
		})
	}
}

// herdr's CPU against its baseline is the difference of the medians, so
// one odd span on either side does not move it.
func TestPointsOfMedians(t *testing.T) {
	base := restFigures{herdr: shares{0.4, 2.0, 0.4}}
	f := restFigures{herdr: shares{0.5, 0.5, 0.1}}
	if got := points(f, base); got < 0.0999 || got > 0.1001 {
		t.Errorf("points = %.4f, want 0.10", got)
	}
}

// The pane rows' rest figures are what pane names could add at rest:
// pane.rename sent (none when herdr's log has none) and snapshots a
// minute over every span together.
func TestPaneRestCounts(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   restFigures
		want string
	}{
		{"no spans", restFigures{}, "no spans"},
		{"none sent", restFigures{span: 90 * time.Second, requests: map[string]int{"session.snapshot": 3}},
			"`pane.rename` 0; `session.snapshot` 3 in 1.5 min (2.0/min)"},
		{"some sent", restFigures{span: 2 * time.Minute, requests: map[string]int{"session.snapshot": 5, "pane.rename": 2, "pane.get": 2}},
			"`pane.rename` 2; `session.snapshot` 5 in 2.0 min (2.5/min)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := paneRestCounts(tc.in); got != tc.want {
				t.Errorf("paneRestCounts = %q, want %q", got, tc.want)
			}
		})
	}
}

// A sample waits for its target's own "renamed" line: a pane's under
// "pane", a tab's under "tab", never one of the other kind with the same
// id.
func TestTargetOf(t *testing.T) {
	tab, pane := target{id: "w1:t1"}, target{id: "w1:t1", pane: true}
	tabLine, paneLine := logLine{Msg: "renamed", Tab: "w1:t1"}, logLine{Msg: "renamed", Pane: "w1:t1"}
	for _, tc := range []struct {
		t    target
		e    logLine
		want bool
	}{
		{tab, tabLine, true}, {tab, paneLine, false},
		{pane, paneLine, true}, {pane, tabLine, false},
		{target{id: "w1:t2", pane: true}, paneLine, false},
	} {
		if got := tc.t.of(tc.e); got != tc.want {
			t.Errorf("%v.of(%+v) = %v, want %v", tc.t, tc.e, got, tc.want)
		}
	}
}
