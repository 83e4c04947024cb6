package herdr

import (
	"slices"
	"time"
)

// recentTimes keeps the last n durations seen, for their median: the
// hedge's usual answer time per method. A median, not a mean: the late
// answers the hedge exists for would drag a mean up to them.
type recentTimes struct {
	n int             // how many to keep (0: all)
	d []time.Duration // oldest first
}

func (r *recentTimes) add(d time.Duration) {
	if r.n > 0 && len(r.d) >= r.n {
		r.d = append(r.d[:0], r.d[1:]...)
	}
	r.d = append(r.d, d)
}

func (r *recentTimes) len() int { return len(r.d) }

// median is the lower median, 0 before any duration.
func (r *recentTimes) median() time.Duration {
	if len(r.d) == 0 {
		return 0
	}
	s := slices.Clone(r.d)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}
