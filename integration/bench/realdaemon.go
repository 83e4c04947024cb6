//go:build unix

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// logLine is what the bench reads of a line of the daemon's JSON log.
type logLine struct {
	Time time.Time `json:"time"`
	Msg  string    `json:"msg"`
	Tab  string    `json:"tab"`
	Pane string    `json:"pane"`
	New  string    `json:"new"`
}

// target is what a sample waits for the daemon to rename: a tab, or a
// pane (named with --pane-format). The daemon's "renamed" line names it
// under its kind: "tab" or "pane".
type target struct {
	id   string
	pane bool
}

func (t target) String() string {
	if t.pane {
		return "pane " + t.id
	}
	return "tab " + t.id
}

// of tells whether e is a line about t.
func (t target) of(e logLine) bool {
	if t.pane {
		return e.Pane == t.id
	}
	return e.Tab == t.id
}

// realDaemon is `herdrtabrenamer run --apply` against a real herdr, with
// its JSON log read as it is written.
type realDaemon struct {
	cmd     *exec.Cmd
	out     *io.PipeWriter
	read    chan struct{} // closed once the whole log is read
	stopped bool

	mu      sync.Mutex
	lines   []string  // the log so far
	renames []logLine // its "renamed" lines
}

// startRealDaemon starts a daemon against socket with herdr's environment
// (so that its nudge socket is where the panes' hooks look), its requests
// on path p, naming tabs "{icon}{proc|dir}" as the herdrsim latency
// daemon does.
func (w *world) startRealDaemon(rs *realServer, p reqPath, socket, state string, args ...string) (*realDaemon, error) {
	level := "info"
	if traceOver > 0 {
		level = "debug"
	}
	full := append([]string{"run", "--apply", "--socket", socket, "--state", state,
		"--format", "{icon}{proc|dir}", "--log-format", "json", "--log-level", level}, args...)
	cmd := exec.Command(w.bin, full...)
	cmd.Env = rs.srv.Env(p.env...)
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	d := &realDaemon{cmd: cmd, out: pw, read: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	w.procs = append(w.procs, cmd)
	go d.readLog(pr)
	return d, nil
}

func (d *realDaemon) readLog(r io.Reader) {
	defer close(d.read)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		var e logLine
		renamed := strings.Contains(line, `"msg":"renamed"`) && json.Unmarshal([]byte(line), &e) == nil && e.Msg == "renamed"
		d.mu.Lock()
		d.lines = append(d.lines, line)
		if renamed {
			d.renames = append(d.renames, e)
		}
		d.mu.Unlock()
	}
	// A line too long for the scanner ends it; the daemon must not block
	// on a full pipe for that.
	_, _ = io.Copy(io.Discard, r)
}

// stop ends the daemon and passes its warnings and errors on to stderr.
func (d *realDaemon) stop() {
	if d.stopped {
		return
	}
	d.stopped = true
	stopProc(d.cmd)
	d.out.Close()
	<-d.read
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, l := range d.lines {
		if strings.Contains(l, `"level":"WARN"`) || strings.Contains(l, `"level":"ERROR"`) {
			fmt.Fprintln(os.Stderr, "bench: real herdr daemon:", l)
		}
	}
}

// renameCount is how many renames the daemon has logged so far.
func (d *realDaemon) renameCount() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.renames)
}

// renamedAt waits until one of the daemon's renames after the first from
// gave t a label holding want, and returns when the daemon logged herdr's
// answer to it.
func (d *realDaemon) renamedAt(t target, want string, from int) (time.Time, bool) {
	var at time.Time
	ok := testutil.Poll(realWithin, func() bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		for _, e := range d.renames[from:] {
			if t.of(e) && strings.Contains(e.New, want) {
				at = e.Time
				return true
			}
		}
		return false
	})
	return at, ok
}

// between is the daemon's log lines stamped from start to end, for -trace.
func (d *realDaemon) between(start, end time.Time) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var b strings.Builder
	for _, l := range d.lines {
		var e logLine
		if json.Unmarshal([]byte(l), &e) != nil || e.Time.Before(start.Add(-time.Millisecond)) || e.Time.After(end) {
			continue
		}
		fmt.Fprintf(&b, "  %+8.1f ms  %s\n", float64(e.Time.Sub(start))/float64(time.Millisecond), l)
	}
	return b.String()
}
