package testutil

import (
	"math"
	"time"
)

// NearestRank is the p-th quantile (0 < p <= 1) of sorted by the nearest
// rank: the p95 of 20 samples is the 19th, of 200 the 190th. Benchmarks
// that report percentiles use it, so that every figure means the same.
func NearestRank(sorted []time.Duration, p float64) time.Duration {
	return sorted[max(0, int(math.Ceil(p*float64(len(sorted))))-1)]
}
