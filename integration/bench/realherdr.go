//go:build unix

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/realherdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// The real-herdr part measures what herdrsim can only imitate: herdr's own
// request-read and subscription polls, its plugin hooks, and its CPU, with
// a real herdr 0.8.2 (integration/realherdr/build.sh) running headless and
// spawning each pane's shell from $SHELL. One server per shell: zsh, bash
// and fish, each with a tab whose rc file sources the hook snippet; the
// zsh and bash servers also hold a tab without hooks or title, and the
// zsh server the agent tab. Then, on servers of their own, herdr's CPU at
// rest (realidle.go).

// Settings of the real-herdr part, from the command line.
var (
	// realIdleFor is the length of each idle span; realFirstFor is how
	// long a daemon runs before its idle span.
	realIdleFor, realFirstFor time.Duration
)

const (
	// sampleGap is the wait after a rename before the next sample, past
	// the 400 ms debounce, as between a person's commands.
	sampleGap = 500 * time.Millisecond
	// realWithin is how long a sample may take before the bench gives up.
	realWithin = 15 * time.Second
)

// realNote is the table's footnote for the real-herdr rows.
var realNote = fmt.Sprintf("Real herdr rows: herdr 0.8.2 built from source (%s), headless, each pane's shell from $SHELL; latencies run from herdr's answer to the request that types the command (`pane.send_input`), sends Ctrl-C (`pane.send_keys`) or reports the agent's status (`pane.report_agent`) to the daemon's log line of herdr's answer to the rename, with default run flags and the format {icon}{proc|dir}; samples start once the daemon is past its subscription's replay window, as a daemon running for more than a minute is.", realherdr.BuildCommand)

// realHerdr measures the real-herdr rows and returns them with the notes
// that explain them. Without a built herdr it returns one row naming the
// command that builds one.
func (w *world) realHerdr() ([]row, []string, error) {
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
	for _, sh := range []string{"zsh", "bash", "fish"} {
		su, err := w.prepareReal(bin, sh)
		if err != nil {
			return nil, nil, fmt.Errorf("%s server: %w", sh, err)
		}
		if su != nil {
			setups = append(setups, su)
		}
	}
	if len(setups) > 0 {
		pastReplay(setups[len(setups)-1].started)
	}
	var hooked, rest []row
	for _, su := range setups {
		h, r, err := w.measureReal(su)
		if err != nil {
			return nil, nil, fmt.Errorf("%s server: %w", su.shell, err)
		}
		hooked, rest = append(hooked, h...), append(rest, r...)
		su.close()
	}
	setups = nil
	idle, idleNote, err := w.realIdleRows(bin)
	if err != nil {
		return nil, nil, fmt.Errorf("idle: %w", err)
	}
	return append(append(hooked, rest...), idle...), []string{realNote, idleNote}, nil
}

// pastReplay waits until a daemon started at started is past the longest
// replay of its herdr 0.8.2 subscription: until the replay has ended the
// daemon re-reads each tab before renaming it, which a daemon running for
// more than a minute, as a person's does, no longer does.
func pastReplay(started time.Time) {
	wait := time.Until(started.Add(herdr.ReplayWindow + time.Second))
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
	tabs    map[string]realTab // by name: hooked, plain, agent
	started time.Time          // when its daemon started
}

func (su *realSetup) close() {
	su.d.stop()
	su.rs.close()
}

// realTabs are the tabs of each shell's server: the hooked one always;
// one without hooks or title where the shell sets none by itself (fish
// titles its terminal); the agent tab on zsh's.
var realTabs = map[string][]string{"zsh": {"hooked", "plain", "agent"}, "bash": {"hooked", "plain"}, "fish": {"hooked"}}

// prepareReal starts a herdr server whose panes run shell, opens its tabs
// and starts the daemon that names them. A shell not on PATH is left out,
// with a line on stderr.
func (w *world) prepareReal(bin, shell string) (*realSetup, error) {
	path, err := exec.LookPath(shell)
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench: real herdr: %s is not on PATH: its rows are left out\n", shell)
		return nil, nil
	}
	rs, err := startReal(bin, path)
	if err != nil {
		return nil, err
	}
	su := &realSetup{shell: shell, rs: rs, tabs: map[string]realTab{}}
	if err := w.writeRealRC(rs, shell); err != nil {
		rs.close()
		return nil, err
	}
	tabs, err := rs.openTabs(realTabs[shell])
	if err != nil {
		rs.close()
		return nil, err
	}
	for _, t := range tabs {
		su.tabs[t.dir] = t
	}
	su.started = time.Now()
	state := filepath.Join(w.dir, "real-"+shell+".json")
	if su.d, err = w.startRealDaemon(rs, rs.srv.Socket, state, "--format", "{icon}{proc|dir}"); err != nil {
		rs.close()
		return nil, err
	}
	if err := (realRun{rs: rs, d: su.d}).waitNamed(tabs); err != nil {
		su.close()
		return nil, err
	}
	return su, nil
}

// measureReal returns the rows of su's hooked tab, and those of its tab
// without hooks and its agent tab where it has them.
func (w *world) measureReal(su *realSetup) (hooked, rest []row, err error) {
	r := realRun{rs: su.rs, d: su.d}
	if hooked, err = r.hookedRows(su.shell, su.tabs["hooked"]); err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(os.Stderr, "bench: real herdr %s hooks done\n", su.shell)
	if t, ok := su.tabs["plain"]; ok {
		plain, err := r.plainRows(su.shell, t)
		if err != nil {
			return nil, nil, err
		}
		rest = append(rest, plain...)
	}
	if t, ok := su.tabs["agent"]; ok {
		agent, err := r.agentRows(w, t)
		if err != nil {
			return nil, nil, err
		}
		rest = append(rest, agent...)
	}
	return hooked, rest, nil
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

// writeRealRC writes shell's rc file in the server's home: a plain
// prompt, and the hook snippet in hooked/ only. Neither zsh nor bash sets
// a terminal title by itself.
func (w *world) writeRealRC(rs *realServer, shell string) error {
	hook, err := w.hookRC(shell)
	if err != nil {
		return err
	}
	var path, body string
	switch shell {
	case "zsh":
		path = filepath.Join(rs.srv.Home, ".zshrc")
		body = "PROMPT='$ '\ncase $PWD in */hooked) source '" + hook + "';; esac\n"
	case "bash":
		path = filepath.Join(rs.srv.Home, ".bashrc")
		body = "PS1='$ '\ncase $PWD in */hooked) source '" + hook + "';; esac\n"
	case "fish":
		path = filepath.Join(rs.srv.ConfigHome, "fish", "config.fish")
		body = "if string match -q '*/hooked' $PWD\n  source '" + hook + "'\nend\n"
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

// hookedRows times program starts and exits in the hooked tab of shell,
// at a person's pace.
func (r realRun) hookedRows(shell string, t realTab) ([]row, error) {
	ss, se, err := r.startsAndExits(t, samples, sampleGap)
	if err != nil {
		return nil, fmt.Errorf("%s hooks, %w", shell, err)
	}
	return []row{
		{fmt.Sprintf("real herdr: program start -> tab renamed, %s hooks (%d starts)", shell, len(ss)), pcts(ss), hookStartTarget},
		{fmt.Sprintf("real herdr: program exit -> tab renamed, %s hooks (%d exits)", shell, len(se)), pcts(se), hookExitTarget},
	}, nil
}

// plainRows times the tab whose shell neither nudges nor sets a title:
// the kernel tells the daemon (--local-watch).
func (r realRun) plainRows(shell string, t realTab) ([]row, error) {
	how := shell + " without hooks or title (local watch)"
	starts, exits, err := r.startsAndExits(t, samples, sampleGap)
	if err != nil {
		return nil, fmt.Errorf("%s, %w", how, err)
	}
	cds, err := r.cds(t, samples)
	if err != nil {
		return nil, fmt.Errorf("%s, %w", how, err)
	}
	fmt.Fprintf(os.Stderr, "bench: real herdr %s done\n", how)
	return []row{
		{fmt.Sprintf("real herdr: program start -> tab renamed, %s (%d starts)", how, len(starts)), pcts(starts), watchTarget},
		{fmt.Sprintf("real herdr: program exit -> tab renamed, %s (%d exits)", how, len(exits)), pcts(exits), watchTarget},
		{fmt.Sprintf("real herdr: cd -> tab renamed, %s (%d cds)", how, len(cds)), pcts(cds), watchCdTarget},
	}, nil
}

// agentRows times agent status reports to the tab's icon: first with no
// plugin, when the daemon's status poll finds them (it polls while the
// agent works, and after the agent's terminal read a prompt), then with
// the plugin's event hook.
func (r realRun) agentRows(w *world, t realTab) ([]row, error) {
	// The tab shows an icon once herdr knows an agent in it
	// (pane.agent_detected); its statuses come from then on.
	if _, err := r.timed(t, "⚪", r.rs.report(t.pane, herdr.StatusIdle)); err != nil {
		return nil, fmt.Errorf("agent: first report: %w", err)
	}
	took, err := r.statusChanges(t, true)
	if err != nil {
		return nil, err
	}
	plugin, err := r.pluginRow(w, t)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(os.Stderr, "bench: real herdr agent done")
	return []row{{fmt.Sprintf("real herdr: agent status -> icon, no plugin: the status poll (--agent-poll 1s) after a prompt and while working (%d changes)", len(took)), pcts(took), statusPollTarget}, plugin}, nil
}

// statusChanges times samples status reports in t's pane, alternating
// working and idle from the status the tab does not show. herdr shows an
// agent that went idle while nobody looked at its pane as done, and in a
// headless server nobody looks: the icon after idle is done's. prompt:
// before each report of working, a prompt is typed into the pane (here
// its shell reads `true`), as an agent at rest starts working on one.
func (r realRun) statusChanges(t realTab, prompt bool) ([]time.Duration, error) {
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
		if prompt && status == herdr.StatusWorking {
			if err := r.rs.typeLine(t.pane, "true")(); err != nil {
				return nil, fmt.Errorf("agent prompt: %w", err)
			}
		}
		d, err := r.timed(t, icon, r.rs.report(t.pane, status))
		if err != nil {
			return nil, fmt.Errorf("agent status %s: %w", status, err)
		}
		took = append(took, d)
	}
	return took, nil
}

// pluginRow links the plugin `init herdr-plugin` writes, whose event hook
// herdr runs on pane.agent_status_changed (`nudge --quiet --when agent`,
// the pane in HERDR_PANE_ID), and times status reports with it. The first
// hook's nudge turns the daemon's status poll off, and the row holds a
// figure only when herdr's plugin log shows the hook run for every report.
func (r realRun) pluginRow(w *world, t realTab) (row, error) {
	const target = hookStatusTarget
	name := "real herdr: agent status -> icon, herdr plugin's event hook installed"
	dir := filepath.Join(r.rs.srv.Base, "plugin")
	if out, err := exec.Command(w.bin, "init", "herdr-plugin", dir).CombinedOutput(); err != nil {
		return row{}, fmt.Errorf("init herdr-plugin: %w: %s", err, out)
	}
	if _, err := r.rs.srv.CLI("plugin", "link", dir); err != nil {
		return row{name, "not measurable: " + err.Error(), target}, nil
	}
	took, err := r.statusChanges(t, false)
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
