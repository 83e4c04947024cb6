//go:build unix

package main

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// row is one line of the table.
type row struct{ figure, measured, target string }

// printTable prints the table, the notes every run has, then notes, one
// line each.
func printTable(out io.Writer, rows []row, took time.Duration, notes ...string) {
	fmt.Fprintf(out, "Figures measured by `go run ./integration/bench` in one run of %v on %s/%s, %d CPUs, %s.\n\n",
		took.Round(time.Second), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
	fmt.Fprintln(out, "| figure | measured | target |")
	fmt.Fprintln(out, "|---|---|---|")
	for _, r := range rows {
		fmt.Fprintf(out, "| %s | %s | %s |\n", r.figure, r.measured, r.target)
	}
	fmt.Fprintln(out)
	fmt.Fprintln(out, "Latencies are p50 / p95 / max from the keystroke (`sleep 30`, Ctrl-C, `cd sub`) or herdr's agent status change to herdr answering the rename, against herdrsim with herdr's 0-100 ms request-read poll, default run flags, samples 0.5 s apart.")
	fmt.Fprintln(out, "Pass CPU is the daemon's own CPU time per idle pass (the simulator runs in another process); a /proc read of a single-threaded `sleep` stands in for each shell's foreground check.")
	fmt.Fprintln(out, kernelNote())
	for _, n := range notes {
		fmt.Fprintln(out, n)
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

// pcts formats p50 / p95 / max.
func pcts(ds []time.Duration) string {
	if len(ds) == 0 {
		return "no samples"
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return fmt.Sprintf("%s / %s / %s", ms(testutil.NearestRank(s, 0.5)), ms(testutil.NearestRank(s, 0.95)), ms(s[len(s)-1]))
}
