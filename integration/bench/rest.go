//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// At rest, CPU is counted in spans: one span alone is at the mercy of
// whatever else the machine did meanwhile, so each at-rest figure is the
// median of restSpans spans, shown with their range.

// restSpans is how many spans each at-rest CPU figure takes, from the
// command line.
var restSpans int

// shares are one at-rest CPU figure: the share of a core used in each
// span, in %.
type shares []float64

// median is the middle span's share, or the mean of the middle two.
func (s shares) median() float64 {
	if len(s) == 0 {
		return 0
	}
	c := slices.Sorted(slices.Values(s))
	m := len(c) / 2
	if len(c)%2 == 0 {
		return (c[m-1] + c[m]) / 2
	}
	return c[m]
}

// format shows the median with prec decimals, then how many spans and
// their range.
func (s shares) format(prec int) string {
	if len(s) == 0 {
		return "no spans"
	}
	return fmt.Sprintf("%.*f %% of a core (median of %d spans, %.*f–%.*f)",
		prec, s.median(), len(s), prec, slices.Min(s), prec, slices.Max(s))
}

// share is cpu used over span as a percentage of one core.
func share(cpu, span time.Duration) float64 { return 100 * float64(cpu) / float64(span) }

// tickTime turns clock ticks into CPU time. USER_HZ is 100 on every Linux
// this runs on (sysconf is not in the standard library).
func tickTime(ticks uint64) time.Duration { return time.Duration(ticks) * 10 * time.Millisecond }

// cpuTicks reads utime+stime of pid from /proc/<pid>/stat.
func cpuTicks(pid int) (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name, which may hold spaces: state is 3,
	// utime 14, stime 15.
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields after the name", pid, len(f))
	}
	u, err1 := strconv.ParseUint(f[11], 10, 64)
	s, err2 := strconv.ParseUint(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return u + s, nil
}

// vmRSS is pid's resident set in bytes (VmRSS of /proc/<pid>/status).
func vmRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for l := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0, fmt.Errorf("/proc/%d/status: VmRSS: %w", pid, err)
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no VmRSS", pid)
}
