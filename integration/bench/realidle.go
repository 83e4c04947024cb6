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
// own idles three times, each for realIdleFor: with no daemon; with our
// daemon as a service runs it (standalone); and with our daemon as the
// plugin runs it (the environment herdr gives its [[startup]] command,
// the plugin linked so that its event hook runs). Each daemon idles a
// first minute before its span, past its subscription's replay and its
// start-up passes: what a person's daemon does all day is the figure.
// Both name tabs {icon}{proc|dir} (a config file), so that agents'
// statuses matter to them. herdr logs every request at debug level
// (HERDR_LOG=herdr=debug, its herdr-server.log), and the requests of each
// span are counted by method from that log.

// restCase is one session herdr idles with: tabs tabs, each one shell,
// the first agents of them with an agent reported.
type restCase struct{ tabs, agents int }

var restCases = []restCase{{6, 0}, {6, 6}, {40, 0}}

// realIdleRows measures every rest case and returns its rows and their
// note.
func (w *world) realIdleRows(bin string) ([]row, string, error) {
	var rows []row
	for _, c := range restCases {
		r, err := w.restCase(bin, c)
		if err != nil {
			return nil, "", fmt.Errorf("%d tabs, %d agents: %w", c.tabs, c.agents, err)
		}
		rows = append(rows, r...)
		fmt.Fprintf(os.Stderr, "bench: real herdr at rest, %d tabs, %d agents done\n", c.tabs, c.agents)
	}
	note := fmt.Sprintf("At rest: a real herdr of its own per session, each pane a bash with no hooks, agents reported with `pane.report_agent`; spans of %v, each daemon's past its first %v; CPU is utime+stime of the process over the span (herdr's `herdr server`, our daemon), a share of one core; requests are herdr's own log lines of them (HERDR_LOG=herdr=debug); standalone is `run --apply`, the plugin is the same with the environment herdr gives the plugin's startup command and the plugin linked, its event hook on; both name tabs {icon}{proc|dir}.", realIdleFor, realFirstFor)
	return rows, note, nil
}

// restCase runs c's session with no daemon, then with each kind of daemon.
func (w *world) restCase(bin string, c restCase) ([]row, error) {
	rs, err := w.restServer(bin, c)
	if err != nil {
		return nil, err
	}
	defer rs.close()
	pid, err := herdrServerPID(rs)
	if err != nil {
		return nil, err
	}
	session := fmt.Sprintf("%d tabs, %d agents", c.tabs, c.agents)
	alone, err := measureRest(rs, pid, 0)
	if err != nil {
		return nil, err
	}
	rows := []row{{fmt.Sprintf("real herdr at rest, %s: herdr's CPU, no daemon", session), pctOfCore(alone.herdr, alone.span), "-"}}
	for _, kind := range []string{"standalone", "plugin"} {
		f, err := w.restDaemon(rs, pid, kind)
		if err != nil {
			return nil, fmt.Errorf("%s daemon: %w", kind, err)
		}
		rows = append(rows, row{
			fmt.Sprintf("real herdr at rest, %s: our daemon %s: herdr's CPU (against none); our daemon's CPU; herdr's requests", session, kind),
			fmt.Sprintf("%s (%+.2f points); %s; %s", pctOfCore(f.herdr, f.span), points(f, alone), pctOfCore(f.daemon, f.span), f.perMinute()),
			"within 0.15 points; daemon under 0.2 %"})
	}
	return rows, nil
}

// restServer starts a herdr with c's session: c.tabs tabs in one
// workspace, each a bash at its prompt, the first c.agents with an agent.
func (w *world) restServer(bin string, c restCase) (*realServer, error) {
	shell, err := exec.LookPath("bash")
	if err != nil {
		return nil, err
	}
	srv, err := realherdr.Start(bin, realherdr.Options{Shell: shell, Env: []string{"HERDR_LOG=herdr=debug"}})
	if err != nil {
		return nil, err
	}
	rs := &realServer{srv: srv, client: herdr.New(srv.Socket, herdr.WithTimeout(10*time.Second))}
	if err := w.restFiles(rs); err != nil {
		rs.close()
		return nil, err
	}
	names := make([]string, c.tabs)
	for i := range names {
		names[i] = fmt.Sprintf("tab%d", i+1)
	}
	tabs, err := rs.openTabs(names)
	if err != nil {
		rs.close()
		return nil, err
	}
	for _, t := range tabs[:c.agents] {
		if err := rs.report(t.pane, herdr.StatusIdle)(); err != nil {
			rs.close()
			return nil, err
		}
	}
	time.Sleep(3 * time.Second) // the shells' start-up
	return rs, nil
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
// first minute and then measures its span.
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
	cmd := exec.Command(w.bin, "run", "--apply", "--if-not-running")
	cmd.Env = env
	var log testutil.Buffer
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		return restFigures{}, err
	}
	defer func() {
		stopProc(cmd)
		if l := log.String(); strings.Contains(l, "level=WARN") || strings.Contains(l, "level=ERROR") {
			fmt.Fprintf(os.Stderr, "bench: %s daemon at rest said:\n%s", kind, l)
		}
	}()
	time.Sleep(realFirstFor)
	return measureRest(rs, pid, cmd.Process.Pid)
}

// restFigures are what one idle span measured.
type restFigures struct {
	herdr, daemon time.Duration // CPU
	span          time.Duration
	requests      map[string]int // herdr's log lines of requests, by method
}

// perMinute lists the requests of the span per minute, by method.
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

// points is f's herdr CPU less base's, in points of a core.
func points(f, base restFigures) float64 {
	return 100 * (float64(f.herdr)/float64(f.span) - float64(base.herdr)/float64(base.span))
}

// measureRest idles for realIdleFor and returns the CPU herdr (pid) and
// the daemon (daemonPID, 0: none) used meanwhile, and herdr's requests.
func measureRest(rs *realServer, pid, daemonPID int) (restFigures, error) {
	var f restFigures
	h0, err := cpuTicks(pid)
	if err != nil {
		return f, err
	}
	var d0 uint64
	if daemonPID > 0 {
		if d0, err = cpuTicks(daemonPID); err != nil {
			return f, err
		}
	}
	start := time.Now()
	time.Sleep(realIdleFor)
	f.span = time.Since(start)
	h1, err := cpuTicks(pid)
	if err != nil {
		return f, err
	}
	// USER_HZ is 100, as in idleDaemon.read.
	f.herdr = time.Duration(h1-h0) * 10 * time.Millisecond
	if daemonPID > 0 {
		d1, err := cpuTicks(daemonPID)
		if err != nil {
			return f, err
		}
		f.daemon = time.Duration(d1-d0) * 10 * time.Millisecond
	}
	f.requests, err = herdrRequests(filepath.Join(rs.srv.ConfigHome, "herdr", "herdr-server.log"), start, start.Add(f.span))
	return f, err
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

// pctOfCore shows cpu used over span as a share of one core.
func pctOfCore(cpu, span time.Duration) string {
	return fmt.Sprintf("%.2f %% of a core (%s)", 100*float64(cpu)/float64(span), ms(cpu))
}
