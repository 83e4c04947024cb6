//go:build unix

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/daemon"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/realherdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// The real-herdr part measures what herdrsim can only imitate: herdr's own
// request-read and subscription polls, its plugin hooks, and its CPU, with
// a real herdr 0.8.2 (integration/realherdr/build.sh) running headless and
// spawning each pane's shell from $SHELL. One server per shell: zsh, bash
// and fish, each with a tab whose rc file sources the hook snippet; the
// zsh server also holds the tabs without hooks and the agent tab, and then
// serves the idle daemon.

// Settings of the real-herdr part, from the command line.
var (
	// quietFor is the quiet spell before each cold sample: longer than
	// realWarm, so the daemon's warm pool has closed by then.
	quietFor time.Duration
	// realIdleFor is the length of each idle span.
	realIdleFor time.Duration
)

const (
	// realWarm is the daemon's --warm for the latency samples: short, so
	// that a quiet spell past it takes seconds instead of the default 30.
	realWarm = 2 * time.Second
	// sampleGap is the wait after a rename before the next sample, past
	// the 400 ms debounce, as between a person's commands.
	sampleGap = 500 * time.Millisecond
	// realWithin is how long a sample may take before the bench gives up.
	realWithin = 15 * time.Second
	// nudgeEvery spaces the nudges of the idle spans, well inside the
	// default 30 s warm spell that each one extends.
	nudgeEvery = 10 * time.Second
)

// realNote is the table's footnote for the real-herdr rows.
var realNote = fmt.Sprintf("Real herdr rows: herdr 0.8.2 built from source (%s), headless, each pane's shell from $SHELL; latencies run from herdr's answer to the request that types the command (`pane.send_input`), sends Ctrl-C (`pane.send_keys`) or reports the agent's status (`pane.report_agent`) to the daemon's log line of herdr's answer to the rename. Their daemon runs with --warm %v, so a sample after the quiet spell finds no warm connection, and samples start once it is past its subscription's replay window, as a daemon running for more than a minute is; idle rows count the connections the daemon closed unused through a counting relay, and herdr's CPU is utime+stime of the `herdr server` process over the span.", realherdr.BuildCommand, realWarm)

// quietSamples is how many samples are taken after a quiet spell or at the
// pace of the poll: each costs seconds.
func quietSamples() int { return max(1, samples/4) }

// realHerdr measures the real-herdr rows and returns them with the note
// that explains them. Without a built herdr it returns one row naming the
// command that builds one.
func (w *world) realHerdr() ([]row, []string, error) {
	if quietFor <= realWarm {
		return nil, nil, fmt.Errorf("-real-quiet %v: must be longer than the daemon's --warm %v", quietFor, realWarm)
	}
	bin, err := realherdr.Binary()
	if err != nil {
		msg := err.Error()
		if !strings.Contains(msg, realherdr.BuildCommand) {
			msg += "; " + realherdr.BuildCommand + " builds one"
		}
		fmt.Fprintln(os.Stderr, "bench: real herdr rows skipped:", msg)
		return []row{{"real herdr 0.8.2 rows", "not measured: " + msg, "-"}}, nil, nil
	}
	var setups []*realSetup
	defer func() {
		for _, su := range setups {
			su.close()
		}
	}()
	var hooked, rest []row
	for _, sh := range []string{"zsh", "bash", "fish"} {
		su, skipped, err := w.prepareReal(bin, sh)
		if err != nil {
			return nil, nil, fmt.Errorf("%s server: %w", sh, err)
		}
		hooked = append(hooked, skipped...)
		if su != nil {
			setups = append(setups, su)
		}
	}
	if len(setups) > 0 {
		pastReplay(setups[len(setups)-1].started)
	}
	for _, su := range setups {
		h, r, err := w.measureReal(su)
		if err != nil {
			return nil, nil, fmt.Errorf("%s server: %w", su.shell, err)
		}
		hooked, rest = append(hooked, h...), append(rest, r...)
	}
	return append(hooked, rest...), []string{realNote}, nil
}

// pastReplay waits until a daemon started at started is past the longest
// replay of its herdr 0.8.2 subscription: until the replay has ended the
// daemon re-reads each tab before renaming it, which a daemon running for
// more than a minute, as a person's does, no longer does.
func pastReplay(started time.Time) {
	wait := time.Until(started.Add(daemon.ReplayWindow + time.Second))
	if wait > 0 {
		fmt.Fprintf(os.Stderr, "bench: real herdr: waiting %v for the daemons' replay window to pass\n", wait.Round(time.Second))
		time.Sleep(wait)
	}
}

// realSetup is one herdr server whose panes run shell, with its tabs named
// by a running daemon.
type realSetup struct {
	shell   string
	rs      *realServer
	d       *realDaemon
	tabs    []realTab
	state   string
	started time.Time // when its daemon started
}

func (su *realSetup) close() {
	su.d.stop()
	su.rs.close()
}

// prepareReal starts a herdr server whose panes run shell, opens its tabs
// and starts the daemon that names them: the hooked tab, and on the zsh
// server the tabs without hooks and the agent tab. A shell not on PATH
// gives a row saying so instead.
func (w *world) prepareReal(bin, shell string) (*realSetup, []row, error) {
	path, err := exec.LookPath(shell)
	if err != nil {
		return nil, []row{{"real herdr: program start -> tab renamed, " + shell + " hooks", "not measured: " + shell + " is not on PATH", "-"}}, nil
	}
	rs, err := startReal(bin, path)
	if err != nil {
		return nil, nil, err
	}
	su := &realSetup{shell: shell, rs: rs, state: filepath.Join(w.dir, "real-"+shell+".json")}
	if err := w.writeRealRC(rs, shell); err != nil {
		rs.close()
		return nil, nil, err
	}
	names := []string{"hooked"}
	if shell == "zsh" {
		names = append(names, "title", "plain", "agent")
	}
	if su.tabs, err = rs.openTabs(names); err != nil {
		rs.close()
		return nil, nil, err
	}
	su.started = time.Now()
	if su.d, err = w.startRealDaemon(rs, rs.srv.Socket, su.state, "--warm", realWarm.String()); err != nil {
		rs.close()
		return nil, nil, err
	}
	if err := (realRun{rs: rs, d: su.d}).waitNamed(su.tabs); err != nil {
		su.close()
		return nil, nil, err
	}
	return su, nil, nil
}

// measureReal returns the rows of su's hooked tab; on the zsh server also
// those of the tabs without hooks, of the agent tab and of the idle
// daemon.
func (w *world) measureReal(su *realSetup) (hooked, rest []row, err error) {
	r := realRun{rs: su.rs, d: su.d}
	if hooked, err = r.hookedRows(su.shell, su.tabs[0]); err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(os.Stderr, "bench: real herdr %s hooks done\n", su.shell)
	if su.shell != "zsh" {
		return hooked, nil, nil
	}
	if rest, err = r.zshRest(w, su.tabs[1], su.tabs[2], su.tabs[3]); err != nil {
		return nil, nil, err
	}
	su.d.stop()
	idle, err := w.realIdleRows(su.rs, su.state, su.tabs[0].pane)
	return hooked, append(rest, idle...), err
}

// realServer is one real herdr server with a client of the bench's own,
// which types into panes and reads labels.
type realServer struct {
	srv    *realherdr.Server
	client *herdr.Client
	ws     string // the workspace that holds every tab
}

func startReal(bin, shell string) (*realServer, error) {
	srv, err := realherdr.Start(bin, realherdr.Options{Shell: shell})
	if err != nil {
		return nil, err
	}
	return &realServer{srv: srv, client: herdr.New(srv.Socket, herdr.WithTimeout(10*time.Second))}, nil
}

// close stops the server; one that leaves processes behind is reported,
// not fatal, since the figures are taken by then.
func (rs *realServer) close() {
	if err := rs.srv.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "bench: real herdr:", err)
	}
}

// writeRealRC writes shell's rc file in the server's home. The hook
// snippet is sourced in hooked/ only; zsh in title/ sets the terminal
// title instead (titleZsh), and in plain/ and agent/ does nothing more.
func (w *world) writeRealRC(rs *realServer, shell string) error {
	hook, err := w.hookRC(shell)
	if err != nil {
		return err
	}
	source := "source '" + hook + "'\n"
	var path, body string
	switch shell {
	case "zsh":
		path = filepath.Join(rs.srv.Home, ".zshrc")
		body = "PROMPT='$ '\ncase $PWD in\n*/hooked) " + source + ";;\n*/title)\n" + titleZsh + ";;\nesac\n"
	case "bash":
		path, body = filepath.Join(rs.srv.Home, ".bashrc"), "PS1='$ '\n"+source
	case "fish":
		path, body = filepath.Join(rs.srv.ConfigHome, "fish", "config.fish"), source
	default:
		return fmt.Errorf("no rc file known for %s", shell)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(body), 0o600)
}

// realTab is a tab of one pane whose shell starts in the folder dir of the
// server's home; at the prompt the daemon names it dir.
type realTab struct{ dir, tab, pane string }

// openTabs opens a tab per name, in one workspace, each in its own folder
// with a sub/ to cd into.
func (rs *realServer) openTabs(names []string) ([]realTab, error) {
	var tabs []realTab
	for _, name := range names {
		dir := filepath.Join(rs.srv.Home, name)
		if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o700); err != nil {
			return nil, err
		}
		args := []string{"tab", "create", "--workspace", rs.ws, "--cwd", dir, "--no-focus"}
		if rs.ws == "" {
			args = []string{"workspace", "create", "--cwd", dir, "--no-focus"}
		}
		out, err := rs.srv.CLI(args...)
		if err != nil {
			return nil, err
		}
		var r struct {
			Result struct {
				Workspace herdr.Workspace `json:"workspace"`
				Tab       herdr.Tab       `json:"tab"`
				Pane      herdr.Pane      `json:"root_pane"`
			} `json:"result"`
		}
		if err := json.Unmarshal(out, &r); err != nil || r.Result.Tab.ID == "" || r.Result.Pane.ID == "" {
			return nil, fmt.Errorf("herdr %s answered %s (%v)", strings.Join(args[:2], " "), out, err)
		}
		if rs.ws == "" {
			rs.ws = r.Result.Workspace.ID
		}
		tabs = append(tabs, realTab{dir: name, tab: r.Result.Tab.ID, pane: r.Result.Pane.ID})
	}
	return tabs, nil
}

// call sends one request on the bench's own client.
func (rs *realServer) call(method string, params map[string]any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return rs.client.Call(ctx, method, params, nil)
}

// typeLine types text and Enter into pane, as `herdr pane run` does.
func (rs *realServer) typeLine(pane, text string) func() error {
	return func() error {
		return rs.call("pane.send_input", map[string]any{"pane_id": pane, "text": text, "keys": []string{"Enter"}})
	}
}

// key presses one key in pane, as `herdr pane send-keys` does.
func (rs *realServer) key(pane, key string) func() error {
	return func() error { return rs.call("pane.send_keys", map[string]any{"pane_id": pane, "keys": []string{key}}) }
}

// report reports an agent's status in pane, as `herdr pane report-agent`
// does for an agent's own hooks.
func (rs *realServer) report(pane string, status herdr.AgentStatus) func() error {
	return func() error {
		return rs.call("pane.report_agent", map[string]any{"pane_id": pane, "source": "herdrtabrenamer-bench", "agent": "claude", "state": string(status)})
	}
}

// label is tab's label now ("" when herdr does not answer).
func (rs *realServer) label(tab string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	snap, err := rs.client.Snapshot(ctx)
	if err != nil {
		return ""
	}
	for _, t := range snap.Tabs {
		if t.ID == tab {
			return t.Label
		}
	}
	return ""
}

// logLine is what the bench reads of a line of the daemon's JSON log.
type logLine struct {
	Time time.Time `json:"time"`
	Msg  string    `json:"msg"`
	Tab  string    `json:"tab"`
	New  string    `json:"new"`
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
// (so that its nudge socket is where the panes' hooks look), naming tabs
// "{icon}{proc|dir}" as the herdrsim latency daemon does.
func (w *world) startRealDaemon(rs *realServer, socket, state string, args ...string) (*realDaemon, error) {
	level := "info"
	if traceOver > 0 {
		level = "debug"
	}
	full := append([]string{"run", "--apply", "--socket", socket, "--state", state,
		"--format", "{icon}{proc|dir}", "--log-format", "json", "--log-level", level}, args...)
	cmd := exec.Command(w.bin, full...)
	cmd.Env = rs.srv.Env()
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
// gave tab a label holding want, and returns when the daemon logged
// herdr's answer to it.
func (d *realDaemon) renamedAt(tab, want string, from int) (time.Time, bool) {
	var at time.Time
	ok := testutil.Poll(realWithin, func() bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		for _, e := range d.renames[from:] {
			if e.Tab == tab && strings.Contains(e.New, want) {
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

// realRun is a daemon at work on a real herdr server.
type realRun struct {
	rs *realServer
	d  *realDaemon
}

// waitNamed waits until the daemon has named every tab after its folder.
func (r realRun) waitNamed(tabs []realTab) error {
	for _, t := range tabs {
		var got string
		if !testutil.Poll(realWithin, func() bool {
			if got = r.rs.label(t.tab); got == t.dir {
				return true
			}
			time.Sleep(20 * time.Millisecond)
			return false
		}) {
			return fmt.Errorf("tab %s is %q, not %q, %v after the daemon started", t.tab, got, t.dir, realWithin)
		}
	}
	return nil
}

// timed does act, which returns once herdr has answered the request that
// makes something happen in t's pane, and returns how long from that
// answer until the daemon had herdr's answer to renaming t to a label
// holding want.
func (r realRun) timed(t realTab, want string, act func() error) (time.Duration, error) {
	from := r.d.renameCount()
	if err := act(); err != nil {
		return 0, err
	}
	start := time.Now()
	at, ok := r.d.renamedAt(t.tab, want, from)
	if !ok {
		return 0, fmt.Errorf("tab %s (%s/): no rename to %q within %v (label %q)", t.tab, t.dir, want, realWithin, r.rs.label(t.tab))
	}
	took := at.Sub(start)
	if traceOver > 0 && took > traceOver {
		fmt.Fprintf(os.Stderr, "bench: trace: real herdr tab %s to %q took %s\n%s", t.tab, want, ms(took), r.d.between(start, at))
	}
	return took, nil
}

// startsAndExits types `sleep 30` into t's shell and then Ctrl-C, n times,
// each after gap with no rename, and times the renames they bring.
func (r realRun) startsAndExits(t realTab, n int, gap time.Duration) (starts, exits []time.Duration, err error) {
	for range n {
		time.Sleep(gap)
		st, err := r.timed(t, "sleep", r.rs.typeLine(t.pane, "sleep 30"))
		if err != nil {
			return nil, nil, fmt.Errorf("start: %w", err)
		}
		time.Sleep(gap)
		ex, err := r.timed(t, t.dir, r.rs.key(t.pane, "ctrl+c"))
		if err != nil {
			return nil, nil, fmt.Errorf("exit: %w", err)
		}
		starts, exits = append(starts, st), append(exits, ex)
	}
	return starts, exits, nil
}

// cds types `cd sub` and `cd ..` into t's shell n times and times the
// renames to sub.
func (r realRun) cds(t realTab, n int) ([]time.Duration, error) {
	var took []time.Duration
	for range n {
		time.Sleep(sampleGap)
		c, err := r.timed(t, "sub", r.rs.typeLine(t.pane, "cd sub"))
		if err != nil {
			return nil, fmt.Errorf("cd: %w", err)
		}
		time.Sleep(sampleGap)
		if _, err := r.timed(t, t.dir, r.rs.typeLine(t.pane, "cd ..")); err != nil {
			return nil, fmt.Errorf("cd back: %w", err)
		}
		took = append(took, c)
	}
	return took, nil
}

// hookedRows times program starts and exits in the hooked tab of shell:
// first after quiet spells, which the warm pool does not outlast, then at
// a person's pace, which keeps it warm.
func (r realRun) hookedRows(shell string, t realTab) ([]row, error) {
	qs, qe, err := r.startsAndExits(t, quietSamples(), quietFor)
	if err != nil {
		return nil, fmt.Errorf("%s hooks after a quiet spell, %w", shell, err)
	}
	ss, se, err := r.startsAndExits(t, samples, sampleGap)
	if err != nil {
		return nil, fmt.Errorf("%s hooks, %w", shell, err)
	}
	quiet := fmt.Sprintf("after %v quiet (daemon --warm %v)", quietFor, realWarm)
	return []row{
		{fmt.Sprintf("real herdr: program start -> tab renamed, %s hooks (%d starts)", shell, len(ss)), pcts(ss), hookStartTarget},
		{fmt.Sprintf("real herdr: program exit -> tab renamed, %s hooks (%d exits)", shell, len(se)), pcts(se), hookExitTarget},
		{fmt.Sprintf("real herdr: program start %s -> tab renamed, %s hooks (%d starts)", quiet, shell, len(qs)), pcts(qs), hookStartTarget},
		{fmt.Sprintf("real herdr: program exit %s -> tab renamed, %s hooks (%d exits)", quiet, shell, len(qe)), pcts(qe), hookExitTarget},
	}, nil
}

// zshRest times the zsh tabs without the hook snippet (title/ sets the
// terminal title, which herdr turns into a pane.updated event; plain/ is
// left to the 3 s poll) and the agent tab.
func (r realRun) zshRest(w *world, title, plain, agent realTab) ([]row, error) {
	// Without hooks nothing warms the pool: let the hooked samples' warm
	// spell end first.
	time.Sleep(quietFor)
	var rows []row
	for _, c := range []struct {
		t           realTab
		n           int
		how, target string
	}{
		{title, samples, "zsh no hooks, title-setting shell", noHookTarget},
		{plain, quietSamples(), "zsh without hooks or title, default 3 s poll", pollTarget},
	} {
		starts, exits, err := r.startsAndExits(c.t, c.n, sampleGap)
		if err != nil {
			return nil, fmt.Errorf("%s, %w", c.how, err)
		}
		cds, err := r.cds(c.t, c.n)
		if err != nil {
			return nil, fmt.Errorf("%s, %w", c.how, err)
		}
		rows = append(rows,
			row{fmt.Sprintf("real herdr: program start -> tab renamed, %s (%d starts)", c.how, len(starts)), pcts(starts), c.target},
			row{fmt.Sprintf("real herdr: program exit -> tab renamed, %s (%d exits)", c.how, len(exits)), pcts(exits), c.target},
			row{fmt.Sprintf("real herdr: cd -> tab renamed, %s (%d cds)", c.how, len(cds)), pcts(cds), c.target})
		fmt.Fprintf(os.Stderr, "bench: real herdr %s done\n", c.how)
	}
	agentRows, err := r.agentRows(w, agent)
	return append(rows, agentRows...), err
}

// agentRows times agent status reports to the tab's icon: first through
// the daemon's subscription alone, then with the plugin's event hook.
func (r realRun) agentRows(w *world, t realTab) ([]row, error) {
	// The tab shows an icon once herdr knows an agent in it; the daemon's
	// subscription for that pane follows.
	if _, err := r.timed(t, "⚪", r.rs.report(t.pane, herdr.StatusIdle)); err != nil {
		return nil, fmt.Errorf("agent: first report: %w", err)
	}
	time.Sleep(time.Second)
	took, err := r.statusChanges(t)
	if err != nil {
		return nil, err
	}
	plugin, err := r.pluginRow(w, t)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(os.Stderr, "bench: real herdr agent done")
	return []row{{fmt.Sprintf("real herdr: agent status -> icon (%d changes)", len(took)), pcts(took), "p95 ≤ 300 ms"}, plugin}, nil
}

// statusChanges times samples status reports in t's pane, alternating
// working and idle from the status the tab does not show. herdr shows an
// agent that went idle while nobody looked at its pane as done, and in a
// headless server nobody looks: the icon after idle is done's.
func (r realRun) statusChanges(t realTab) ([]time.Duration, error) {
	var took []time.Duration
	first := 0
	if strings.Contains(r.rs.label(t.tab), "🟡") {
		first = 1
	}
	for i := first; i < first+samples; i++ {
		status, icon := herdr.StatusWorking, "🟡"
		if i%2 == 1 {
			status, icon = herdr.StatusIdle, "🟢"
		}
		time.Sleep(sampleGap)
		d, err := r.timed(t, icon, r.rs.report(t.pane, status))
		if err != nil {
			return nil, fmt.Errorf("agent status %s: %w", status, err)
		}
		took = append(took, d)
	}
	return took, nil
}

// pluginRow links the plugin `init herdr-plugin` writes, whose event hook
// herdr runs on pane.agent_status_changed (`nudge --quiet`, the pane in
// HERDR_PANE_ID), and times status reports with it. The subscription
// alone also brings the icon, so the row holds a figure only when herdr's
// plugin log shows the hook run for every report.
func (r realRun) pluginRow(w *world, t realTab) (row, error) {
	const target = "p95 ≤ 150 ms"
	name := "real herdr: agent status -> icon, herdr plugin's event hook installed"
	dir := filepath.Join(r.rs.srv.Base, "plugin")
	if out, err := exec.Command(w.bin, "init", "herdr-plugin", dir).CombinedOutput(); err != nil {
		return row{}, fmt.Errorf("init herdr-plugin: %w: %s", err, out)
	}
	if _, err := r.rs.srv.CLI("plugin", "link", dir); err != nil {
		return row{name, "not measurable: " + err.Error(), target}, nil
	}
	took, err := r.statusChanges(t)
	if err != nil {
		return row{}, err
	}
	name = fmt.Sprintf("%s (%d changes)", name, len(took))
	ran, err := r.rs.hookRuns()
	if err != nil {
		return row{}, err
	}
	// herdr keeps the last 200 plugin command logs.
	if want := min(len(took), 200); ran < want {
		return row{name, fmt.Sprintf("not measurable: herdr ran the event hook %d times for %d status reports", ran, want), target}, nil
	}
	return row{name, pcts(took), target}, nil
}

// hookRuns counts the runs of our plugin's event hook that herdr logged as
// succeeded.
func (rs *realServer) hookRuns() (int, error) {
	out, err := rs.srv.CLI("plugin", "log", "list", "--plugin", "herdrtabrenamer")
	if err != nil {
		return 0, err
	}
	var r struct {
		Result struct {
			Logs []struct {
				Event  string `json:"event"`
				Status string `json:"status"`
			} `json:"logs"`
		} `json:"result"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return 0, fmt.Errorf("herdr plugin log list answered %s: %w", out, err)
	}
	n := 0
	for _, l := range r.Result.Logs {
		if l.Event == "pane.agent_status_changed" && l.Status == "succeeded" {
			n++
		}
	}
	return n, nil
}

// realIdleFigures are what one idle span measured.
type realIdleFigures struct {
	idle, opened int64         // connections closed unused, and all opened
	cpu          time.Duration // herdr server's utime+stime
	span         time.Duration
}

// realIdleRows measures herdr's CPU time with no daemon, then runs the
// daemon idle on the zsh server twice, with the default --warm and with
// --warm 0, nudged alike, and counts the connections it opened and closed
// unused beside herdr's CPU time.
func (w *world) realIdleRows(rs *realServer, state, pane string) ([]row, error) {
	pid, err := herdrServerPID(rs)
	if err != nil {
		return nil, err
	}
	cpu, span, err := herdrCPU(pid, func() error { time.Sleep(realIdleFor); return nil })
	if err != nil {
		return nil, err
	}
	rows := []row{{fmt.Sprintf("real herdr: no daemon, %v: herdr server CPU", span.Round(time.Second)), pctOfCore(cpu, span), "-"}}
	for _, c := range []struct {
		how  string
		args []string
	}{{"warm pool on (default --warm)", nil}, {"--warm 0", []string{"--warm", "0"}}} {
		f, err := w.realIdleSpan(rs, pid, state, pane, c.args)
		if err != nil {
			return nil, fmt.Errorf("idle daemon, %s: %w", c.how, err)
		}
		perMin := func(n int64) float64 { return float64(n) / f.span.Minutes() }
		rows = append(rows, row{
			fmt.Sprintf("real herdr: daemon idle %v, nudged every %v, %s: idle connections opened; herdr server CPU", f.span.Round(time.Second), nudgeEvery, c.how),
			fmt.Sprintf("%.0f/min (of %.0f/min opened); %s", perMin(f.idle), perMin(f.opened), pctOfCore(f.cpu, f.span)),
			"-"})
	}
	fmt.Fprintln(os.Stderr, "bench: real herdr idle done")
	return rows, nil
}

// pctOfCore shows cpu used over span as a share of one core.
func pctOfCore(cpu, span time.Duration) string {
	return fmt.Sprintf("%.2f %% of a core (%s)", 100*float64(cpu)/float64(span), ms(cpu))
}

// realIdleSpan runs a daemon with args through a counting relay for
// realIdleFor, nudging it at the start and every nudgeEvery as a shell
// hook would. The relay's counts are read once the daemon has stopped,
// so that the warm connections still open at the end count too: all of
// them were opened after the first nudge.
func (w *world) realIdleSpan(rs *realServer, pid int, state, pane string, args []string) (realIdleFigures, error) {
	var f realIdleFigures
	relay, err := newConnCounter(filepath.Join(rs.srv.Base, "count.sock"), rs.srv.Socket)
	if err != nil {
		return f, err
	}
	defer relay.close()
	// The state file names the server it belongs to, by its socket: a
	// daemon through the relay has its own (its labels are the same
	// renders of the format, so it renames nothing).
	d, err := w.startRealDaemon(rs, relay.path, state+".relay", args...)
	if err != nil {
		return f, err
	}
	defer d.stop()
	time.Sleep(2 * time.Second) // past the start-up pass and the subscription
	if relay.opened.Load() == 0 {
		return f, fmt.Errorf("the daemon through the relay at %s never connected", relay.path)
	}
	nudge := func() error {
		cmd := exec.Command(w.bin, "nudge", "--quiet", pane)
		cmd.Env = rs.srv.Env("HERDR_SOCKET_PATH=" + relay.path)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("nudge: %w: %s", err, out)
		}
		return nil
	}
	idle0, opened0 := relay.idle.Load(), relay.opened.Load()
	f.cpu, f.span, err = herdrCPU(pid, func() error {
		start := time.Now()
		for next := start; next.Before(start.Add(realIdleFor)); next = next.Add(nudgeEvery) {
			time.Sleep(time.Until(next))
			if err := nudge(); err != nil {
				return err
			}
		}
		time.Sleep(time.Until(start.Add(realIdleFor)))
		return nil
	})
	if err != nil {
		return f, err
	}
	d.stop()
	relay.close()
	f.idle, f.opened = relay.idle.Load()-idle0, relay.opened.Load()-opened0
	return f, nil
}

// herdrCPU runs span and returns the CPU time the herdr server process pid
// used meanwhile, and how long span took.
func herdrCPU(pid int, span func() error) (cpu, took time.Duration, err error) {
	ticks0, err := cpuTicks(pid)
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	if err := span(); err != nil {
		return 0, 0, err
	}
	took = time.Since(start)
	ticks, err := cpuTicks(pid)
	if err != nil {
		return 0, 0, err
	}
	// USER_HZ is 100, as in idleDaemon.read.
	return time.Duration(ticks-ticks0) * 10 * time.Millisecond, took, nil
}

// herdrServerPID finds rs's `herdr server` process among those that carry
// its socket in their environment.
func herdrServerPID(rs *realServer) (int, error) {
	for _, p := range realherdr.Leftovers(rs.srv.Socket) {
		argv, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.PID))
		if err != nil {
			continue
		}
		if a := strings.Split(string(argv), "\x00"); len(a) >= 2 && a[0] == rs.srv.Bin && a[1] == "server" {
			return p.PID, nil
		}
	}
	return 0, fmt.Errorf("no `%s server` process found for %s (needs /proc)", rs.srv.Bin, rs.srv.Socket)
}

// connCounter is a socket the idle daemon talks to in herdr's place: it
// passes each connection on to herdr as it comes, so herdr sees what the
// daemon does, and counts those the daemon closed without sending a byte,
// which only its warm pool does.
type connCounter struct {
	path, upstream string
	ln             net.Listener
	idle, opened   atomic.Int64
	relays         sync.WaitGroup
}

func newConnCounter(path, upstream string) (*connCounter, error) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	c := &connCounter{path: path, upstream: upstream, ln: ln}
	go c.serve()
	return c, nil
}

func (c *connCounter) serve() {
	for {
		down, err := c.ln.Accept()
		if err != nil {
			return
		}
		c.relays.Add(1)
		go func() { defer c.relays.Done(); c.relay(down) }()
	}
}

// relay joins one connection to herdr until either end closes it.
func (c *connCounter) relay(down net.Conn) {
	c.opened.Add(1)
	up, err := net.Dial("unix", c.upstream)
	if err != nil {
		down.Close()
		return
	}
	go func() {
		_, _ = io.Copy(down, up)
		down.Close()
		up.Close()
	}()
	n, _ := io.Copy(up, down)
	if n == 0 {
		c.idle.Add(1)
	}
	up.Close()
	down.Close()
}

// close stops taking connections and waits for those open to end, as
// they do once the daemon has stopped: every connection is counted then.
func (c *connCounter) close() {
	_ = c.ln.Close()
	c.relays.Wait()
}
