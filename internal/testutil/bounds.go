package testutil

import (
	"flag"
	"runtime"
	"testing"
	"time"
)

// The bounds every reader of a file others write holds, whatever the
// file holds (the fuzz targets of the facts packages check them): an
// input of up to MaxFuzzInput bytes allocates at most MaxFuzzAlloc and,
// while fuzzing, takes at most MaxFuzzTime.
const (
	MaxFuzzInput = 1 << 20
	MaxFuzzAlloc = 4 << 20
	MaxFuzzTime  = 100 * time.Millisecond
)

// Fuzzing reports whether the test binary runs a fuzz target (-fuzz).
func Fuzzing() bool {
	f := flag.Lookup("test.fuzz")
	return f != nil && f.Value.String() != ""
}

// WithinBounds runs read (which must do the same work each time it is
// called) and fails t when it allocates over MaxFuzzAlloc or, fuzzing,
// takes over MaxFuzzTime at its best of three reads: a fuzzer's workers
// share the machine, and one read slowed by them is no finding, while a
// read that is slow by its input is slow every time. The seeds run with
// the normal tests, where no time is asserted.
func WithinBounds(t testing.TB, what string, size int, read func()) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	read()
	best := time.Since(start)
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > MaxFuzzAlloc {
		t.Errorf("%s of %d bytes allocated %d bytes, bound %d", what, size, n, MaxFuzzAlloc)
	}
	if !Fuzzing() {
		return
	}
	for range 2 {
		if best <= MaxFuzzTime {
			return
		}
		start = time.Now()
		read()
		best = min(best, time.Since(start))
	}
	if best > MaxFuzzTime {
		t.Errorf("%s of %d bytes took %v at best of three, bound %v", what, size, best, MaxFuzzTime)
	}
}
