package testutil

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestBufferConcurrentWritesAndLines(t *testing.T) {
	var b Buffer
	if got := b.Lines(); got != nil {
		t.Fatalf("empty buffer lines = %q", got)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fmt.Fprintf(&b, "line %d\n", i)
			_ = b.String()
		}()
	}
	wg.Wait()
	if n := len(b.Lines()); n != 8 {
		t.Fatalf("%d lines, want 8: %q", n, b.String())
	}
}

// fatalTB records Fatal instead of stopping the test, so WaitFor's failure
// can be checked.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper()           {}
func (f *fatalTB) Fatal(args ...any) { f.msg = fmt.Sprint(args...) }

func TestWaitFor(t *testing.T) {
	tests := []struct {
		name    string
		cond    func() func() bool
		wantMsg string // "" = must pass
	}{
		{"already true", func() func() bool { return func() bool { return true } }, ""},
		{"true on the third look", func() func() bool {
			n := 0
			return func() bool { n++; return n >= 3 }
		}, ""},
		{"never true", func() func() bool { return func() bool { return false } },
			"gave up after 30ms waiting for the thing\nlast seen: nothing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &fatalTB{TB: t}
			start := time.Now()
			WaitForWithin(rec, 30*time.Millisecond, "the thing", tt.cond(), func() string { return "last seen: nothing" })
			if rec.msg != tt.wantMsg {
				t.Errorf("failure message %q, want %q", rec.msg, tt.wantMsg)
			}
			if tt.wantMsg != "" && time.Since(start) < 30*time.Millisecond {
				t.Errorf("gave up after %v, before the timeout", time.Since(start))
			}
		})
	}
}

func TestNearestRank(t *testing.T) {
	samples := func(n int) []time.Duration {
		s := make([]time.Duration, n)
		for i := range s {
			s[i] = time.Duration(i + 1)
		}
		return s
	}
	for _, tc := range []struct {
		n    int
		p    float64
		want time.Duration
	}{
		{1, 0.5, 1}, {1, 0.95, 1},
		{20, 0.5, 10}, {20, 0.95, 19}, {20, 1, 20},
		{200, 0.5, 100}, {200, 0.95, 190},
	} {
		if got := NearestRank(samples(tc.n), tc.p); got != tc.want {
			t.Errorf("NearestRank(1..%d, %v) = %d, want the %dth", tc.n, tc.p, got, tc.want)
		}
	}
}
