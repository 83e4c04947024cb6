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
