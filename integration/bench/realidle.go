//go:build unix

package main

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/realherdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// herdr's CPU at rest. For each session (restCases), a real herdr of its
// own idles three times, each for restSpans spans of realIdleFor: with no
// daemon; with our daemon as a service runs it (standalone); and with our
// daemon as the plugin runs it (the environment herdr gives its
// [[startup]] command, the plugin linked so that its event hook runs).
// Each daemon idles a first minute before its spans, past its
// subscription's replay and its start-up passes: what a person's daemon
// does all day is the figure. Both name tabs {icon}{proc|dir} (a config
// file), so that agents' statuses matter to them. herdr logs every
// request at debug level (HERDR_LOG=herdr=debug, its herdr-server.log),
// and the requests of each span are counted by method from that log.

// restCase is one session herdr idles with: tabs tabs, each one shell
// (two with split), the first agents of the panes with an agent reported.
type restCase struct {
	tabs, agents int
	// split: each tab holds two panes, its first and one split off it.
	split bool
}

var restCases = []restCase{{tabs: 6}, {tabs: 6, agents: 6}, {tabs: 40}}

func (c restCase) String() string {
	tabs := fmt.Sprintf("%d tabs", c.tabs)
	if c.tabs == 1 {
		tabs = "1 tab"
	}
	if c.split {
		tabs += " of 2 panes"
	}
	return fmt.Sprintf("%s, %d agents", tabs, c.agents)
}

// realIdleRows measures every rest case and returns its rows and their
// note.
func (w *world) realIdleRows(bin string) ([]row, string, error) {
	var rows []row
	for _, c := range restCases {
		r, err := w.restCase(bin, c)
		if err != nil {
			return nil, "", fmt.Errorf("%v: %w", c, err)
		}
		rows = append(rows, r...)
		fmt.Fprintf(os.Stderr, "bench: real herdr at rest, %v done\n", c)
	}
	note := fmt.Sprintf("At rest: a real herdr of its own per session, each pane a bash with no hooks, agents reported with `pane.report_agent`; each CPU figure is the median of %d spans of %v (their range beside it), the spans with no daemon first, then each daemon's once it is past its first %v; CPU is utime+stime of the process over a span (herdr's `herdr server`, our daemon), a share of one core; points are the medians' difference; requests are herdr's own log lines of them (HERDR_LOG=herdr=debug); standalone is `run --apply`, the plugin is the same with the environment herdr gives the plugin's startup command and the plugin linked, its event hook on; both name tabs {icon}{proc|dir}.", restSpans, realIdleFor, realFirstFor)
	return rows, note, nil
}

// restCase runs c's session with no daemon, then with each kind of daemon.
func (w *world) restCase(bin string, c restCase) ([]row, error) {
	rs, _, err := w.restServer(bin, c)
	if err != nil {
		return nil, err
	}
	defer rs.close()
	pid, err := herdrServerPID(rs)
	if err != nil {
		return nil, err
	}
	alone, err := measureRest(rs, pid, 0, realIdleFor)
	if err != nil {
		return nil, fmt.Errorf("no daemon: %w", err)
	}
	rows := []row{{fmt.Sprintf("real herdr at rest, %v: herdr's CPU, no daemon", c), alone.herdr.format(2), "-"}}
	for _, kind := range []string{"standalone", "plugin"} {
		f, err := w.restDaemon(rs, pid, kind)
		if err != nil {
			return nil, fmt.Errorf("%s daemon: %w", kind, err)
		}
		rows = append(rows, daemonRestRow(fmt.Sprintf("real herdr at rest, %v: our daemon %s", c, kind), f, alone))
	}
	return rows, nil
}

// daemonRestRow is the row of a daemon's spans f against herdr's alone.
func daemonRestRow(name string, f, alone restFigures) row {
	return row{name + ": herdr's CPU (against none); our daemon's CPU; herdr's requests",
		fmt.Sprintf("%s (%+.2f points); %s; %s", f.herdr.format(2), points(f, alone), f.daemon.format(2), f.perMinute()),
		"within 0.15 points; daemon under 0.2 %"}
}

// restServer starts a herdr logging at debug level with c's session:
// c.tabs tabs in one workspace, each a bash at its prompt (two with
// c.split), the first c.agents panes with an agent reported idle. It
// returns the server and every pane, tab by tab, the agents' first.
func (w *world) restServer(bin string, c restCase) (*realServer, []string, error) {
	shell, err := exec.LookPath("bash")
	if err != nil {
		return nil, nil, err
	}
	srv, err := realherdr.Start(bin, realherdr.Options{Shell: shell, Env: []string{"HERDR_LOG=herdr=debug"}})
	if err != nil {
		return nil, nil, err
	}
	rs := &realServer{srv: srv, client: herdr.New(srv.Socket, herdr.WithTimeout(10*time.Second))}
	panes, err := w.restSession(rs, c)
	if err != nil {
		rs.close()
		return nil, nil, err
	}
	time.Sleep(3 * time.Second) // the shells' start-up
	return rs, panes, nil
}

// restSession opens c's tabs on rs and reports its agents; it returns
// every pane, tab by tab.
func (w *world) restSession(rs *realServer, c restCase) ([]string, error) {
	if err := w.restFiles(rs); err != nil {
		return nil, err
	}
	names := make([]string, c.tabs)
	for i := range names {
		names[i] = fmt.Sprintf("tab%d", i+1)
	}
	tabs, err := rs.openTabs(names)
	if err != nil {
		return nil, err
	}
	var panes []string
	for _, t := range tabs {
		panes = append(panes, t.pane)
		if c.split {
			p, err := rs.split(t.pane, filepath.Join(rs.srv.Home, t.dir))
			if err != nil {
				return nil, err
			}
			panes = append(panes, p)
		}
	}
	if c.agents > len(panes) {
		return nil, fmt.Errorf("%d agents for %d panes", c.agents, len(panes))
	}
	for _, p := range panes[:c.agents] {
		if err := rs.report(p, herdr.StatusIdle)(); err != nil {
			return nil, fmt.Errorf("report an agent in %s: %w", p, err)
		}
	}
	return panes, nil
}

// restFiles writes the shells' rc file and the daemons' config file.
func (w *world) restFiles(rs *realServer) error {
	if err := os.WriteFile(filepath.Join(rs.srv.Home, ".bashrc"), []byte("PS1='$ '\n"), 0o600); err != nil {
		return err
	}
	cfg := filepath.Join(rs.srv.ConfigHome, "herdrtabrenamer", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		return err
	}
	return os.WriteFile(cfg, []byte("format = \"{icon}{proc|dir}\"\n"), 0o600)
}

// restDaemon runs a daemon of kind (standalone, plugin) on rs for its
// first minute and then measures its spans.
func (w *world) restDaemon(rs *realServer, pid int, kind string) (restFigures, error) {
	env := rs.srv.Env("XDG_STATE_HOME=" + filepath.Join(w.dir, "state-"+kind))
	if kind == "plugin" {
		dir := filepath.Join(rs.srv.Base, "plugin")
		if out, err := exec.Command(w.bin, "init", "herdr-plugin", dir).CombinedOutput(); err != nil {
			return restFigures{}, fmt.Errorf("init herdr-plugin: %w: %s", err, out)
		}
		if _, err := rs.srv.CLI("plugin", "link", dir); err != nil {
			return restFigures{}, err
		}
		defer func() { _, _ = rs.srv.CLI("plugin", "unlink", "herdrtabrenamer") }()
		env = append(env, "HERDR_PLUGIN_EVENT=startup", "HERDR_PLUGIN_ID=herdrtabrenamer", "HERDR_PLUGIN_ROOT="+dir,
			"HERDR_PLUGIN_CONFIG_DIR="+filepath.Join(rs.srv.ConfigHome, "herdr", "plugins", "config", "herdrtabrenamer"))
	}
	cmd, stop, err := startRestDaemon(w.bin, kind, env)
	if err != nil {
		return restFigures{}, err
	}
	defer stop()
	time.Sleep(realFirstFor)
	return measureRest(rs, pid, cmd.Process.Pid, realIdleFor)
}

// startRestDaemon starts bin as a daemon at rest runs, with env, and
// returns it with what stops it and passes on its warnings, if it said
// any, under kind.
func startRestDaemon(bin, kind string, env []string) (*exec.Cmd, func(), error) {
	cmd := exec.Command(bin, "run", "--apply", "--if-not-running")
	cmd.Env = env
	var log testutil.Buffer
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	return cmd, func() {
		stopProc(cmd)
		if l := log.String(); strings.Contains(l, "level=WARN") || strings.Contains(l, "level=ERROR") {
			fmt.Fprintf(os.Stderr, "bench: %s daemon at rest said:\n%s", kind, l)
		}
	}, nil
}

// restFigures are what at-rest spans measured.
type restFigures struct {
	herdr, daemon shares         // CPU, one share per span
	span          time.Duration  // every span together
	requests      map[string]int // herdr's log lines of requests, by method
}

// add counts span g in f.
func (f *restFigures) add(g restFigures) {
	f.herdr, f.daemon = append(f.herdr, g.herdr...), append(f.daemon, g.daemon...)
	f.span += g.span
	if f.requests == nil {
		f.requests = map[string]int{}
	}
	for m, n := range g.requests {
		f.requests[m] += n
	}
}

// perMinute lists the requests of the spans per minute, by method.
func (f restFigures) perMinute() string {
	if len(f.requests) == 0 {
		return "none"
	}
	var parts []string
	for _, m := range slices.Sorted(maps.Keys(f.requests)) {
		parts = append(parts, fmt.Sprintf("%s %.1f/min", m, float64(f.requests[m])/f.span.Minutes()))
	}
	return strings.Join(parts, ", ")
}

// points is f's median herdr CPU less base's, in points of a core.
func points(f, base restFigures) float64 { return f.herdr.median() - base.herdr.median() }

// measureRest idles for restSpans spans of span and returns the CPU herdr
// (pid) and the daemon (daemonPID, 0: none) used in each, and herdr's
// requests.
func measureRest(rs *realServer, pid, daemonPID int, span time.Duration) (restFigures, error) {
	var f restFigures
	for i := range restSpans {
		g, err := measureSpan(rs, pid, daemonPID, span)
		if err != nil {
			return f, fmt.Errorf("span %d: %w", i+1, err)
		}
		f.add(g)
	}
	return f, nil
}

// measureSpan idles for span and returns what one span measured.
func measureSpan(rs *realServer, pid, daemonPID int, span time.Duration) (restFigures, error) {
	var f restFigures
	pids := []int{pid}
	if daemonPID > 0 {
		pids = append(pids, daemonPID)
	}
	before, err := ticksOf(pids)
	if err != nil {
		return f, err
	}
	start := time.Now()
	time.Sleep(span)
	after, err := ticksOf(pids)
	if err != nil {
		return f, err
	}
	f.span = time.Since(start)
	f.herdr = shares{share(tickTime(after[0]-before[0]), f.span)}
	if daemonPID > 0 {
		f.daemon = shares{share(tickTime(after[1]-before[1]), f.span)}
	}
	f.requests, err = herdrRequests(filepath.Join(rs.srv.ConfigHome, "herdr", "herdr-server.log"), start, start.Add(f.span))
	return f, err
}

// ticksOf reads the CPU ticks of each of pids.
func ticksOf(pids []int) ([]uint64, error) {
	ticks := make([]uint64, len(pids))
	for i, pid := range pids {
		t, err := cpuTicks(pid)
		if err != nil {
			return nil, err
		}
		ticks[i] = t
	}
	return ticks, nil
}

// herdrRequests counts, by method, the requests herdr's log says it
// received from start to end.
func herdrRequests(path string, start, end time.Time) (map[string]int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("herdr's log (HERDR_LOG=herdr=debug): %w", err)
	}
	defer f.Close()
	counts := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.Contains(line, "api request received") {
			continue
		}
		stamp, _, _ := strings.Cut(line, " ")
		t, err := time.Parse(time.RFC3339Nano, stamp)
		if err != nil || t.Before(start) || t.After(end) {
			continue
		}
		_, rest, ok := strings.Cut(line, ` method="`)
		if method, _, ok2 := strings.Cut(rest, `"`); ok && ok2 {
			counts[method]++
		}
	}
	return counts, sc.Err()
}
