//go:build unix

// Only Unix: it runs shells in ptys and reads getrusage.

// Command bench measures herdrtabrenamer's figures (the table
// in docs/figures.md) in one run against the herdrsim simulator and
// prints them as one markdown table:
//
//	go run ./integration/bench
//
// With -write docs/figures.md it also puts the table, with its notes,
// between that page's figures markers.
//
// It builds the binary, runs real shells in ptys inside simulated panes,
// then the same shells in a real herdr 0.8.2 when one is built
// (realherdr.go), and takes about an hour, most of it at rest: each
// at-rest CPU figure is the median of -rest-spans spans of a minute.
// Figures from one run share one machine and one load, so the baselines
// beside them are comparable; -only runs some parts.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"
)

func main() {
	if len(os.Args) == 2 && os.Args[1] == spinArg {
		spin()
	}
	if len(os.Args) == 3 && os.Args[1] == serveArg {
		if err := serveSim(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	flag.IntVar(&samples, "samples", 20, "samples per latency figure")
	idleSpan := flag.Duration("idle", time.Minute, "herdrsim: length of each span measuring the idle daemon's CPU")
	flag.IntVar(&restSpans, "rest-spans", 3, "spans per at-rest CPU figure (herdrsim and real herdr); the figure is their median")
	nudgeRuns := flag.Int("nudge-runs", 200, "runs of the nudge command (and of /bin/true)")
	flag.StringVar(&prebuilt, "bin", "", "measure this herdrtabrenamer binary instead of building one (an older build, for before/after figures)")
	flag.DurationVar(&traceOver, "trace", 0, "run the latency daemons (herdrsim and real herdr) at debug level and print their log around every sample slower than this (0: off)")
	flag.DurationVar(&realIdleFor, "real-idle", time.Minute, "real herdr: length of each at-rest span measuring CPU (our daemon's, herdr's, with and without agent.wait)")
	flag.DurationVar(&realFirstFor, "real-first", time.Minute, "real herdr: how long a daemon runs before its at-rest spans")
	flag.DurationVar(&paneIdleFor, "pane-idle", 30*time.Second, "real herdr, realpanes: length of each at-rest span (herdr alone, then beside a daemon naming panes)")
	flag.DurationVar(&sessionSpan, "session-span", 30*time.Second, "sessions: length of each span measuring the daemon beside six OpenCode panes, one agent committing")
	flag.DurationVar(&chattyFor, "chatty-span", time.Minute, "real herdr, realchatty: length of each span (herdr alone, then beside a daemon) while a pane titles itself 20 times a second")
	only := flag.String("only", "", "comma-separated parts to run: idle, latency, realherdr (its latencies on each request path, quiet and beside busy loops, and at rest), realrest (real herdr at rest only), agentwait, reads (snapshot reads on each request path, hedged and not), memory (the daemon's memory at rest, go build and release build, about 5 minutes), realpanes (pane names on real herdr: latencies on each request path and at rest, about 12 minutes), realchatty (a pane titling itself 20 times a second on real herdr: another pane's title-driven name and herdr's CPU, about 8 minutes), cpu (pass CPU, nudge and the idle daemon), idlecpu (the idle daemon only), nudge, sessions (six OpenCode panes, one agent committing) (default: all)")
	flag.IntVar(&busyLoops, "busy", 2, "busy loops beside the second round of each real-herdr latency row")
	flag.StringVar(&writeTo, "write", "", "also write the table between the figures markers of this markdown page (docs/figures.md)")
	flag.Parse()
	if writeTo != "" {
		if err := checkPage(writeTo); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(2)
		}
	}
	parts = map[string]bool{}
	for _, p := range strings.Split(*only, ",") {
		if p = strings.TrimSpace(p); p != "" {
			parts[p] = true
		}
	}
	if restSpans < 1 {
		fmt.Fprintln(os.Stderr, "bench: -rest-spans must be at least 1")
		os.Exit(2)
	}
	if err := run(*idleSpan, *nudgeRuns); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// Settings from the command line.
var (
	samples  int
	prebuilt string
	// traceOver: print the daemon's log around samples slower than this.
	traceOver time.Duration
	parts     map[string]bool // empty: every part
	// writeTo: the markdown page whose figures markers get the table.
	writeTo string
)

func want(part string) bool { return len(parts) == 0 || parts[part] }

func run(idleSpan time.Duration, nudgeRuns int) error {
	started := time.Now()
	w, err := newWorld()
	if err != nil {
		return err
	}
	defer w.close()
	fmt.Fprintln(os.Stderr, "bench: built", w.bin)

	// The idle daemon runs alongside everything else on its own server;
	// its spans are read at the end.
	var idle *idleDaemon
	if want("cpu") || want("idlecpu") {
		if idle, err = w.startIdle(idleSpan); err != nil {
			return err
		}
	}

	rows, notes, err := w.serverRows()
	if err != nil {
		return err
	}
	if want("cpu") || want("nudge") {
		cpuRows, err := passCPURows()
		if err != nil {
			return err
		}
		nudge, err := w.nudgeRow(nudgeRuns)
		if err != nil {
			return err
		}
		rows = append(append(rows, cpuRows...), nudge)
	}

	if idle != nil {
		idleRows, err := idle.rows(restSpans)
		if err != nil {
			return err
		}
		rows = append(rows, idleRows...)
	}
	var table strings.Builder
	printTable(&table, rows, time.Since(started), notes...)
	fmt.Print(table.String())
	if writeTo != "" {
		return writePage(writeTo, table.String())
	}
	return nil
}

// serverRows are the figures of the parts that talk to a server: the
// idle pass, rename latency and the real herdr's parts, each when wanted.
func (w *world) serverRows() (rows []row, notes []string, err error) {
	if want("idle") {
		ip, err := w.idlePass()
		if err != nil {
			return nil, nil, fmt.Errorf("idle pass: %w", err)
		}
		rows = append(rows,
			row{fmt.Sprintf("socket connections per idle pass (protocol %d, read poll on)", ip.protocol), fmt.Sprintf("%.2f (%d passes)", ip.conns, ip.passes), "1"},
			row{"`pane.process_info` calls per idle pass", fmt.Sprintf("%.2f (%d passes)", ip.procCalls, ip.passes), "0"},
			row{"hedged reads per idle pass", fmt.Sprintf("%.2f (%d passes)", ip.hedges, ip.passes), "≈ 0"})
		fmt.Fprintln(os.Stderr, "bench: idle pass done")
	}

	if want("latency") {
		lat, err := w.latency()
		if err != nil {
			return nil, nil, fmt.Errorf("rename latency: %w", err)
		}
		rows = append(rows, lat...)
		fmt.Fprintln(os.Stderr, "bench: latency done")
	}
	if want("sessions") {
		sessions, err := w.sessionRows()
		if err != nil {
			return nil, nil, fmt.Errorf("sessions: %w", err)
		}
		rows = append(rows, sessions...)
	}
	if want("realherdr") || want("realrest") || want("agentwait") || want("realpanes") || want("realchatty") || want("reads") || want("memory") {
		real, realNotes, err := w.realHerdr()
		if err != nil {
			return nil, nil, fmt.Errorf("real herdr: %w", err)
		}
		rows, notes = append(rows, real...), append(notes, realNotes...)
		fmt.Fprintln(os.Stderr, "bench: real herdr done")
	}
	return rows, notes, nil
}
