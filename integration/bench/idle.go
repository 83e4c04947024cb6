//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"
)

// idleDaemon is a daemon left alone with its default flags: its local
// watch follows the 4 shells, and its full poll rests. It runs beside
// every other part, and its CPU is read at the end of each span, so its
// spans see the load of the run.
type idleDaemon struct {
	cmd  *exec.Cmd
	span time.Duration
	stop chan struct{}
	done chan struct{} // closed when sample returns

	mu     sync.Mutex
	shares shares // one per finished span
	err    error  // why sampling ended early
}

// startIdle starts the idle daemon, whose spans last span each.
func (w *world) startIdle(span time.Duration) (*idleDaemon, error) {
	srv, _, _, err := w.shellServer(plainShells(4), noEnv)
	if err != nil {
		return nil, err
	}
	cmd, err := w.startDaemon(srv, "idle.json")
	if err != nil {
		return nil, err
	}
	time.Sleep(time.Second) // past the start-up pass and subscribe
	ticks, err := cpuTicks(cmd.Process.Pid)
	if err != nil {
		return nil, fmt.Errorf("idle daemon: %w", err)
	}
	d := &idleDaemon{cmd: cmd, span: span, stop: make(chan struct{}), done: make(chan struct{})}
	go d.sample(ticks)
	return d, nil
}

// sample reads the daemon's CPU at the end of every span until stop
// closes or a read fails; ticks is its CPU time at the start.
func (d *idleDaemon) sample(ticks uint64) {
	defer close(d.done)
	tick := time.NewTicker(d.span)
	defer tick.Stop()
	start := time.Now()
	for {
		select {
		case <-d.stop:
			return
		case <-tick.C:
		}
		now, err := cpuTicks(d.cmd.Process.Pid)
		at := time.Now()
		d.mu.Lock()
		if err != nil {
			d.err = err
			d.mu.Unlock()
			return
		}
		d.shares = append(d.shares, share(tickTime(now-ticks), at.Sub(start)))
		d.mu.Unlock()
		ticks, start = now, at
	}
}

// spans is the shares so far and why sampling ended, if it did.
func (d *idleDaemon) spans() (shares, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.shares, d.err
}

// rows waits until the idle daemon has n spans, then returns its CPU,
// the median of every span so far, and its memory.
func (d *idleDaemon) rows(n int) ([]row, error) {
	got, err := d.waitSpans(n)
	close(d.stop)
	<-d.done
	if err != nil {
		return nil, fmt.Errorf("idle daemon: %w", err)
	}
	rss, err := vmRSS(d.cmd.Process.Pid)
	if err != nil {
		return nil, fmt.Errorf("idle daemon: %w", err)
	}
	return []row{{fmt.Sprintf("daemon idle CPU, 4 shells followed by the local watch, default flags (spans of %v)", d.span),
		got.format(3), "under 0.2 % of a core (local watch)"},
		{"daemon RSS (VmRSS), herdrsim, 4 shells followed, at the end of the run: " + buildName(), fmt.Sprintf("%.1f MiB", float64(rss)/(1<<20)), "≤ 10 MiB"}}, nil
}

// waitSpans waits until the daemon has n spans and returns them all. It
// looks once a second: a tighter poll would load the machine it measures.
func (d *idleDaemon) waitSpans(n int) (shares, error) {
	if s, _ := d.spans(); len(s) < n {
		fmt.Fprintf(os.Stderr, "bench: idle daemon: waiting for %d more spans of %v\n", n-len(s), d.span)
	}
	deadline := time.Now().Add(time.Duration(n+1)*d.span + 10*time.Second)
	for {
		s, err := d.spans()
		switch {
		case err != nil:
			return nil, err
		case len(s) >= n:
			return s, nil
		case time.Now().After(deadline):
			return nil, fmt.Errorf("%d spans of %v, not %d, by %v", len(s), d.span, n, deadline.Format(time.TimeOnly))
		}
		time.Sleep(time.Second)
	}
}

// buildName says which build of the daemon the run measures.
func buildName() string {
	if prebuilt != "" {
		return "-bin " + prebuilt
	}
	return "go build"
}
