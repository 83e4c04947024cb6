//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Pane names (--pane-format) on a real herdr 0.8.2, in one session of its
// own (paneCase), in three steps: herdr idles alone for restSpans spans of
// paneIdleFor; a daemon naming panes starts, and once past its
// subscription's replay, a program change and a cd in the second pane of
// the last tab are timed to that pane's rename; then, the daemon past its
// first realFirstFor, herdr idles beside it for as many spans. At rest the
// daemon must send no pane.rename and no more snapshots than without pane
// names (its rest poll), which herdr's debug log tells.
//
// herdr emits no event for a pane rename (docs/herdr.md §13), so the bench
// could see a pane's label change only by reading the pane; a client
// polling pane.get goes through herdr's 0-100 ms request-read poll with
// every read, which would add up to a poll to each sample and load herdr
// while it does. Each sample runs instead, as the tab rows do, from
// herdr's answer to the request that types the command (pane.send_input)
// or sends Ctrl-C (pane.send_keys) to the daemon's log line of herdr's
// answer to its pane.rename: herdr stores the label before it answers.
// That holds the shell starting or ending the program, the daemon's local
// watch seeing it, its pass (a snapshot and the pane's process), its
// pane.get of the label right before renaming and the pane.rename itself;
// not herdr drawing the border. Once the samples are done, the pane's
// label is read back from herdr: it must be its name at rest again.

// paneCase is the realpanes session: every tab has two panes in its
// folder, the three first tabs' panes each an agent, the three last
// tabs' plain shells.
var paneCase = restCase{tabs: 6, agents: 6, split: true}

// paneFormat names an agent's pane after its agent, any other after its
// program or folder.
const paneFormat = "{agent|proc|dir}"

// paneIdleFor is the length of each at-rest span of the realpanes part,
// from the command line: shorter than realIdleFor's default, so that the
// part takes about five minutes.
var paneIdleFor time.Duration

// paneSettle is how long the daemon is left after the last sample before
// its spans: past its 400 ms debounce and the pass after it.
const paneSettle = 5 * time.Second

// realPaneRows measures the realpanes part and returns its rows and their
// note.
func (w *world) realPaneRows(bin string) ([]row, string, error) {
	rs, panes, err := w.restServer(bin, paneCase)
	if err != nil {
		return nil, "", err
	}
	defer rs.close()
	pid, err := herdrServerPID(rs)
	if err != nil {
		return nil, "", err
	}
	alone, err := measureRest(rs, pid, 0, paneIdleFor)
	if err != nil {
		return nil, "", fmt.Errorf("no daemon: %w", err)
	}
	fmt.Fprintln(os.Stderr, "bench: real herdr panes: herdr alone done")
	state := filepath.Join(w.dir, "real-panes.json")
	var rows []row
	for _, p := range reqPaths {
		r, err := w.paneLatencyPath(rs, p, state, panes)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", p.name, err)
		}
		rows = append(rows, r...)
	}
	fmt.Fprintln(os.Stderr, "bench: real herdr panes: latency done")
	on, err := w.paneRest(rs, pid, state, panes)
	if err != nil {
		return nil, "", fmt.Errorf("pane names on: %w", err)
	}
	name := fmt.Sprintf("real herdr at rest, %v: our daemon with pane names (--pane-format %s)", paneCase, paneFormat)
	rows = append(rows,
		row{fmt.Sprintf("real herdr at rest, %v: herdr's CPU, no daemon", paneCase), alone.herdr.format(2), "-"},
		daemonRestRow(name, on, alone),
		row{name + ": `pane.rename` sent; snapshots", paneRestCounts(on), "no pane.rename; 2 snapshots a minute"})
	note := fmt.Sprintf("Pane rows: a real herdr of its own, logging at debug level, with %v, each pane a bash with no hooks (the two of a tab in the tab's folder), agents reported with `pane.report_agent`; the daemon runs with default run flags, --format {icon}{proc|dir} and --pane-format %s. Latencies run from herdr's answer to the request that types the command or sends Ctrl-C, in the last tab's second pane, to the daemon's log line of herdr's answer to the pane's rename (herdr tells of no pane rename: a client reading the pane would go through herdr's request-read poll), samples 0.5 s apart past the daemon's replay window, a daemon of its own per request path and round (quiet, then beside %d busy loops). At rest: %d spans of %v with no daemon, then %d once an io_uring daemon is past its first %v; CPU and requests as in the at-rest rows.",
		paneCase, paneFormat, busyLoops, restSpans, paneIdleFor, restSpans, realFirstFor)
	return rows, note, nil
}

// paneLatencyPath times pane renames with daemons whose requests take
// path p: one quiet round and one beside busy loops, each with a daemon
// of its own, started on rs after the one before stopped.
func (w *world) paneLatencyPath(rs *realServer, p reqPath, state string, panes []string) ([]row, error) {
	var rounds [2][]row
	for i, busy := range []int{0, busyLoops} {
		started := time.Now()
		d, err := w.startRealDaemon(rs, p, rs.srv.Socket, state, "--pane-format", paneFormat)
		if err != nil {
			return nil, err
		}
		rounds[i], err = paneLatencyRows(realRun{rs: rs, d: d}, started, panes, busy)
		d.stop()
		if err != nil {
			return nil, err
		}
	}
	return pathRows(p, rounds[0], rounds[1]), nil
}

// paneRest runs an io_uring daemon naming panes past its first
// realFirstFor, then measures herdr beside it at rest.
func (w *world) paneRest(rs *realServer, pid int, state string, panes []string) (restFigures, error) {
	started := time.Now()
	d, err := w.startRealDaemon(rs, ringPath, rs.srv.Socket, state, "--pane-format", paneFormat)
	if err != nil {
		return restFigures{}, err
	}
	defer d.stop()
	want := map[target]string{}
	for _, p := range panes {
		want[target{id: p, pane: true}] = ""
	}
	if err := (realRun{rs: rs, d: d}).waitLabels(want); err != nil {
		return restFigures{}, err
	}
	time.Sleep(max(paneSettle, time.Until(started.Add(realFirstFor))))
	return measureRest(rs, pid, d.cmd.Process.Pid, paneIdleFor)
}

// paneLatencyRows waits until the daemon has named every one of panes and
// is past its replay, starts busy busy loops, then times a program's
// start and exit and a cd in the last pane to that pane's rename.
func paneLatencyRows(r realRun, started time.Time, panes []string, busy int) ([]row, error) {
	want := map[target]string{}
	for _, p := range panes {
		want[target{id: p, pane: true}] = ""
	}
	if err := r.waitLabels(want); err != nil {
		return nil, err
	}
	pastReplay(started)
	if busy > 0 {
		stop, err := startBusy(busy)
		if err != nil {
			return nil, err
		}
		defer stop()
		time.Sleep(2 * time.Second)
	}
	t := target{id: panes[len(panes)-1], pane: true}
	s := subject{pane: t.id, target: t, atRest: r.rs.label(t)}
	starts, exits, err := r.startsAndExits(s, samples, sampleGap)
	if err != nil {
		return nil, fmt.Errorf("pane names, %w", err)
	}
	cds, err := r.cds(s, samples)
	if err != nil {
		return nil, fmt.Errorf("pane names, %w", err)
	}
	if err := r.waitLabels(map[target]string{t: s.atRest}); err != nil {
		return nil, fmt.Errorf("pane names, after the samples: %w", err)
	}
	how := fmt.Sprintf("bash without hooks or title (local watch), the second pane of a tab of 2, --pane-format %s", paneFormat)
	return []row{
		{fmt.Sprintf("real herdr: program start -> pane renamed, %s (%d starts)", how, len(starts)), pcts(starts), watchTarget},
		{fmt.Sprintf("real herdr: program exit -> pane renamed, %s (%d exits)", how, len(exits)), pcts(exits), watchTarget},
		{fmt.Sprintf("real herdr: cd -> pane renamed, %s (%d cds)", how, len(cds)), pcts(cds), watchCdTarget},
	}, nil
}

// paneRestCounts tells what pane names could add to a daemon's requests
// at rest, from herdr's log of its spans f: how many pane.rename, and how
// many snapshots a minute.
func paneRestCounts(f restFigures) string {
	if f.span <= 0 {
		return "no spans"
	}
	snaps := f.requests["session.snapshot"]
	return fmt.Sprintf("`pane.rename` %d; `session.snapshot` %d in %.1f min (%.1f/min)",
		f.requests["pane.rename"], snaps, f.span.Minutes(), float64(snaps)/f.span.Minutes())
}
