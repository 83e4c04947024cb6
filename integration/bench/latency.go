//go:build unix

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// logBetween is the lines of a daemon's text log stamped from start to
// end (the stamps have ms precision, so a ms either side is kept).
func logBetween(log string, start, end time.Time) string {
	var b strings.Builder
	for line := range strings.Lines(log) {
		stamp, _, _ := strings.Cut(strings.TrimPrefix(line, "time="), " ")
		t, err := time.Parse(time.RFC3339Nano, stamp)
		if err != nil || t.Before(start.Add(-time.Millisecond)) || t.After(end.Add(time.Millisecond)) {
			continue
		}
		fmt.Fprintf(&b, "  %+8.1f ms  %s", float64(t.Sub(start))/float64(time.Millisecond), strings.TrimPrefix(line, "time="+stamp+" "))
	}
	return b.String()
}

// Targets of the latency rows, the same for herdrsim and real herdr.
const (
	hookStartTarget  = "p50 ≤ 15 ms, p95 ≤ 60 ms"
	hookExitTarget   = "p95 ≤ 80 ms"
	noHookTarget     = "p95 ≤ 250 ms"
	watchTarget      = "p95 ≤ 150 ms"
	watchCdTarget    = "p95 ≤ 250 ms"
	statusPollTarget = "p95 ≤ 1.5 s"
	hookStatusTarget = "p95 ≤ 50 ms"
	// pollFreeTarget: real herdr, requests on io_uring, which herdr reads
	// at its first look.
	pollFreeTarget = "p95 ≤ 20 ms and none over 50 ms, quiet; none over 50 ms beside 2 busy loops"
)

// titleZsh sets the terminal title as most prompt themes do: the command
// at preexec, the directory at precmd.
const titleZsh = "preexec() { print -n \"\\e]2;$1\\a\" }\nprecmd() { print -Pn \"\\e]2;%~\\a\" }\n"

// latency times how long a name takes to follow what happens in a pane,
// from the keystroke (or herdr's status change) to herdr answering the
// rename, with the daemon's default flags (local watch, 400 ms debounce) and
// the format "{icon}{proc|dir}". One simulator holds every pane: shells
// with the hooks of zsh, bash and fish; a zsh without hooks that sets the
// terminal title (preexec: the command, precmd: the directory, as most
// prompt themes do); a sh without hooks or title; an agent pane. Samples
// are taken 0.5 s apart, past the debounce window, as a person's commands
// are.
func (w *world) latency() ([]row, error) {
	r, err := w.latencyShells()
	if err != nil {
		return nil, err
	}
	// -trace reads the daemon's debug log; otherwise warnings go to stderr.
	logTo, level := io.Writer(os.Stderr), "warn"
	if traceOver > 0 {
		logTo, level = r.dlog, "debug"
	}
	d, err := w.startDaemonLog(r.srv, "latency.json", logTo, "--log-level", level, "--format", "{icon}{proc|dir}")
	if err != nil {
		return nil, err
	}
	defer stopProc(d)
	// The agent pane comes after the start-up pass: its tab shows an icon.
	r.agentTab, r.agentPane = r.srv.NewTab(r.srv.Snapshot().Workspaces[0].ID, filepath.Join(w.dir, "home"))
	time.Sleep(time.Second) // past the subscription's replay
	var rows []row
	for _, step := range []func() ([]row, error){r.programRows, r.cdRows, r.agentRows, r.plainRows} {
		got, err := step()
		if err != nil {
			return nil, err
		}
		rows = append(rows, got...)
	}
	return rows, nil
}

// The shells of the latency run, by their index in its simulator.
const (
	zshHooks = iota
	bashHooks
	fishHooks
	zshTitle
	shPlain
)

// latencyWithin is how long a latency sample waits for its rename.
const latencyWithin = 15 * time.Second

// latencyRun is the simulator of the latency run, its shells' panes and
// terminals, the agent pane, and the daemon's log when -trace reads it.
type latencyRun struct {
	w                   *world
	srv                 *herdrsim.Server
	panes               []string
	ttys                []*os.File
	dlog                *testutil.Buffer
	agentTab, agentPane string
}

// latencyShells starts the simulator with the latency run's shells, each
// having sourced its hooks or title setting.
func (w *world) latencyShells() (*latencyRun, error) {
	var hookRC [3]string
	for i, sh := range []string{"zsh", "bash", "fish"} {
		var err error
		if hookRC[i], err = w.hookRC(sh); err != nil {
			return nil, err
		}
	}
	titleRC := filepath.Join(w.dir, "title.zsh")
	if err := os.WriteFile(titleRC, []byte(titleZsh), 0o600); err != nil {
		return nil, err
	}
	shells := []shellSpec{
		zshHooks:  {argv: []string{"zsh", "-f", "-i"}},
		bashHooks: {argv: []string{"bash", "--norc", "--noprofile", "-i"}},
		fishHooks: {argv: []string{"fish", "--no-config", "-i"}},
		zshTitle:  {argv: []string{"zsh", "-f", "-i"}, titles: true},
		shPlain:   {argv: []string{"sh", "-i"}},
	}
	srv, panes, ttys, err := w.shellServer(shells, func(pane, sock string) []string {
		return []string{"HERDR_PANE_ID=" + pane, "HERDR_SOCKET_PATH=" + sock, "PS1=$ ", "TERM=dumb"}
	})
	if err != nil {
		return nil, err
	}
	for i, rc := range []string{hookRC[0], hookRC[1], hookRC[2], titleRC} {
		if _, err := io.WriteString(ttys[i], "source "+rc+"\n"); err != nil {
			return nil, err
		}
	}
	return &latencyRun{w: w, srv: srv, panes: panes, ttys: ttys, dlog: &testutil.Buffer{}}, nil
}

func (r *latencyRun) tabOf(pane string) string {
	p, _ := r.srv.Pane(pane)
	return p.TabID
}

// shellTab is the tab of shell i.
func (r *latencyRun) shellTab(i int) string { return r.tabOf(r.panes[i]) }

// typing types line into shell i.
func (r *latencyRun) typing(i int, line string) func() error {
	return func() error { _, err := io.WriteString(r.ttys[i], line); return err }
}

// dirOf is the folder shell i works in.
func dirOf(i int) string { return fmt.Sprintf("dir%d", i) }

// timed does what and returns how long until tab got a label that has
// want in it.
func (r *latencyRun) timed(tab string, what func() error, want string) (time.Duration, error) {
	before := len(r.srv.Renames())
	start := time.Now()
	if err := what(); err != nil {
		return 0, err
	}
	var at time.Time
	if !testutil.Poll(latencyWithin, func() bool {
		for _, rn := range r.srv.Renames()[before:] {
			if rn.TabID == tab && strings.Contains(rn.Label, want) {
				at = rn.At
				return true
			}
		}
		return false
	}) {
		return 0, r.noRename(tab, want)
	}
	time.Sleep(500 * time.Millisecond)
	if took := at.Sub(start); traceOver > 0 && took > traceOver {
		fmt.Fprintf(os.Stderr, "bench: trace: tab %s to %q took %s\n%s", tab, want, ms(took), logBetween(r.dlog.String(), start, at))
	}
	return at.Sub(start), nil
}

// noRename reports a sample whose rename never came, with the terminal of
// the tab's shell.
func (r *latencyRun) noRename(tab, want string) error {
	t, _ := r.srv.Tab(tab)
	term := ""
	for i, p := range r.panes {
		if r.tabOf(p) == tab {
			term = "; " + r.w.terminal(r.ttys[i])
		}
	}
	return fmt.Errorf("tab %s: no rename to %q within %v (label %q)%s", tab, want, latencyWithin, t.Label, term)
}

// startsAndExits times samples of `sleep 30` starting and then ending
// (Ctrl-C) in shell i; startErr and exitErr lead the errors of each.
func (r *latencyRun) startsAndExits(i int, startErr, exitErr string) (starts, exits []time.Duration, err error) {
	tab := r.shellTab(i)
	for range samples {
		st, err := r.timed(tab, r.typing(i, "sleep 30\n"), "sleep")
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", startErr, err)
		}
		ex, err := r.timed(tab, r.typing(i, "\x03"), dirOf(i))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", exitErr, err)
		}
		starts, exits = append(starts, st), append(exits, ex)
	}
	return starts, exits, nil
}

// programRows times program start and exit in every shell that tells the
// daemon by a hook or a title.
func (r *latencyRun) programRows() ([]row, error) {
	var rows []row
	for _, sh := range []struct {
		name string
		i    int
		how  string
	}{{"zsh", zshHooks, "hooks"}, {"bash", bashHooks, "hooks"}, {"fish", fishHooks, "hooks"}, {"zsh", zshTitle, "no hooks, title-setting shell"}} {
		what := fmt.Sprintf("%s (%s)", sh.name, sh.how)
		starts, exits, err := r.startsAndExits(sh.i, what+", start", what+", exit")
		if err != nil {
			return nil, err
		}
		startTarget, exitTarget := hookStartTarget, hookExitTarget
		if sh.i == zshTitle {
			startTarget, exitTarget = noHookTarget, noHookTarget
		}
		rows = append(rows,
			row{fmt.Sprintf("program start -> tab renamed, %s %s (%d starts)", sh.name, sh.how, len(starts)), pcts(starts), startTarget},
			row{fmt.Sprintf("program exit -> tab renamed, %s %s (%d exits)", sh.name, sh.how, len(exits)), pcts(exits), exitTarget})
		fmt.Fprintf(os.Stderr, "bench: %s %s done\n", sh.name, sh.how)
	}
	return rows, nil
}

// cdRows times cd in the title-setting shell.
func (r *latencyRun) cdRows() ([]row, error) {
	cds, err := r.cds(zshTitle)
	if err != nil {
		return nil, err
	}
	return []row{{fmt.Sprintf("cd -> tab renamed, zsh no hooks, title-setting shell (%d cds)", len(cds)), pcts(cds), noHookTarget}}, nil
}

// cds times samples of `cd sub` in shell i, each followed by `cd ..`.
func (r *latencyRun) cds(i int) ([]time.Duration, error) {
	tab := r.shellTab(i)
	var cds []time.Duration
	for range samples {
		c, err := r.timed(tab, r.typing(i, "cd sub\n"), "sub")
		if err != nil {
			return nil, fmt.Errorf("cd: %w", err)
		}
		if _, err := r.timed(tab, r.typing(i, "cd ..\n"), dirOf(i)); err != nil {
			return nil, fmt.Errorf("cd back: %w", err)
		}
		cds = append(cds, c)
	}
	return cds, nil
}

// agentRows times agent status changes (herdr's
// pane.agent_status_changed), without and then with the herdr plugin's
// event hook.
func (r *latencyRun) agentRows() ([]row, error) {
	r.srv.SetAgent(r.agentPane, "claude", herdr.StatusIdle)
	if !testutil.Poll(latencyWithin, func() bool { t, _ := r.srv.Tab(r.agentTab); return strings.HasPrefix(t.Label, "⚪") }) {
		return nil, errors.New("agent pane never got its idle icon")
	}
	icons, err := r.statusChanges("agent status", func(st herdr.AgentStatus) error {
		r.srv.SetAgent(r.agentPane, "claude", st)
		return nil
	})
	if err != nil {
		return nil, err
	}
	rows := []row{{fmt.Sprintf("agent status -> icon, no plugin: the status poll (--agent-poll 1s) (%d changes)", len(icons)), pcts(icons), statusPollTarget}}
	hooked, err := r.hookedStatusChanges()
	if err != nil {
		return nil, err
	}
	return append(rows, row{fmt.Sprintf("agent status -> icon, herdr plugin's event hook installed (%d changes)", len(hooked)), pcts(hooked), hookStatusTarget}), nil
}

// statusChanges times samples status changes of the agent pane, each made
// by change, alternating working and idle from the status the tab does
// not show (an odd -samples leaves it working).
func (r *latencyRun) statusChanges(name string, change func(herdr.AgentStatus) error) ([]time.Duration, error) {
	var took []time.Duration
	first := 0
	if t, _ := r.srv.Tab(r.agentTab); strings.HasPrefix(t.Label, "🟡") {
		first = 1
	}
	for i := first; i < first+samples; i++ {
		status, icon := herdr.StatusWorking, "🟡"
		if i%2 == 1 {
			status, icon = herdr.StatusIdle, "⚪"
		}
		d, err := r.timed(r.agentTab, func() error { return change(status) }, icon)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		took = append(took, d)
	}
	return took, nil
}

// hookedStatusChanges is statusChanges with the herdr plugin's event
// hook, which herdr starts on pane.agent_status_changed: `nudge --quiet`
// with the pane in HERDR_PANE_ID (herdr-plugin.toml). herdr does not wait
// for it.
func (r *latencyRun) hookedStatusChanges() ([]time.Duration, error) {
	hookEnv := r.w.env("HERDR_PANE_ID="+r.agentPane, "HERDR_SOCKET_PATH="+r.srv.SocketPath())
	var hooks sync.WaitGroup
	defer hooks.Wait()
	return r.statusChanges("agent status, plugin hook", func(st herdr.AgentStatus) error {
		r.srv.SetAgent(r.agentPane, "claude", st)
		hook := exec.Command(r.w.bin, "nudge", "--quiet", "--when", "agent")
		hook.Env = hookEnv
		if err := hook.Start(); err != nil {
			return err
		}
		hooks.Go(func() { _ = hook.Wait() })
		return nil
	})
}

// plainRows times a shell that neither nudges nor sets a title: the
// kernel tells the daemon (--local-watch).
func (r *latencyRun) plainRows() ([]row, error) {
	starts, exits, err := r.startsAndExits(shPlain, "titleless sh", "titleless sh, exit")
	if err != nil {
		return nil, err
	}
	cds, err := r.cds(shPlain)
	if err != nil {
		return nil, err
	}
	const how = "sh without hooks or title (local watch)"
	return []row{
		{fmt.Sprintf("program start -> tab renamed, %s (%d starts)", how, len(starts)), pcts(starts), watchTarget},
		{fmt.Sprintf("program exit -> tab renamed, %s (%d exits)", how, len(exits)), pcts(exits), watchTarget},
		{fmt.Sprintf("cd -> tab renamed, %s (%d cds)", how, len(cds)), pcts(cds), watchCdTarget},
	}, nil
}
