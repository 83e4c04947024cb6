//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// realRun is a daemon at work on a real herdr server.
type realRun struct {
	rs *realServer
	d  *realDaemon
}

// waitNamed waits until the daemon has named every tab after its folder.
func (r realRun) waitNamed(tabs []realTab) error {
	want := map[target]string{}
	for _, t := range tabs {
		want[t.target()] = t.dir
	}
	return r.waitLabels(want)
}

// waitLabels waits until every target of want shows its label there, or
// any label at all where that is "".
func (r realRun) waitLabels(want map[target]string) error {
	var got map[target]string
	shows := func() bool {
		for t, l := range want {
			if g := got[t]; g == "" || l != "" && g != l {
				return false
			}
		}
		return true
	}
	if testutil.Poll(realWithin, func() bool {
		if got = r.rs.labels(); shows() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
		return false
	}) {
		return nil
	}
	seen := map[target]string{}
	for t := range want {
		seen[t] = got[t]
	}
	return fmt.Errorf("labels %v, want %v (\"\": any), %v after the daemon started", seen, want, realWithin)
}

// timed does act, which returns once herdr has answered the request that
// makes something happen in a pane, and returns how long from that answer
// until the daemon had herdr's answer to renaming t to a label holding
// want.
func (r realRun) timed(t target, want string, act func() error) (time.Duration, error) {
	from := r.d.renameCount()
	if err := act(); err != nil {
		return 0, err
	}
	start := time.Now()
	at, ok := r.d.renamedAt(t, want, from)
	if !ok {
		return 0, fmt.Errorf("%v: no rename to %q within %v (label %q)", t, want, realWithin, r.rs.label(t))
	}
	took := at.Sub(start)
	if traceOver > 0 && took > traceOver {
		fmt.Fprintf(os.Stderr, "bench: trace: real herdr %v to %q took %s\n%s", t, want, ms(took), r.d.between(start, at))
	}
	return took, nil
}

// subject is where samples are taken: the pane typed into, what its
// changes rename (its tab, or the pane itself), and that one's name with
// the pane's shell at its prompt in its own folder.
type subject struct {
	pane   string
	target target
	atRest string
}

// subject is t's pane, renaming t, named after t's folder at rest.
func (t realTab) subject() subject { return subject{t.pane, t.target(), t.dir} }

// startsAndExits types `sleep 30` into s's shell and then Ctrl-C, n times,
// each after gap with no rename, and times the renames they bring.
func (r realRun) startsAndExits(s subject, n int, gap time.Duration) (starts, exits []time.Duration, err error) {
	for range n {
		time.Sleep(gap)
		st, err := r.timed(s.target, "sleep", r.rs.typeLine(s.pane, "sleep 30"))
		if err != nil {
			return nil, nil, fmt.Errorf("start: %w", err)
		}
		time.Sleep(gap)
		ex, err := r.timed(s.target, s.atRest, r.rs.key(s.pane, "ctrl+c"))
		if err != nil {
			return nil, nil, fmt.Errorf("exit: %w", err)
		}
		starts, exits = append(starts, st), append(exits, ex)
	}
	return starts, exits, nil
}

// cds types `cd sub` and `cd ..` into s's shell n times and times the
// renames to sub.
func (r realRun) cds(s subject, n int) ([]time.Duration, error) {
	var took []time.Duration
	for range n {
		time.Sleep(sampleGap)
		c, err := r.timed(s.target, "sub", r.rs.typeLine(s.pane, "cd sub"))
		if err != nil {
			return nil, fmt.Errorf("cd: %w", err)
		}
		time.Sleep(sampleGap)
		if _, err := r.timed(s.target, s.atRest, r.rs.typeLine(s.pane, "cd ..")); err != nil {
			return nil, fmt.Errorf("cd back: %w", err)
		}
		took = append(took, c)
	}
	return took, nil
}

// hookedRows times program starts and exits in the hooked tab of shell,
// at a person's pace.
func (r realRun) hookedRows(shell string, t realTab) ([]row, error) {
	ss, se, err := r.startsAndExits(t.subject(), samples, sampleGap)
	if err != nil {
		return nil, fmt.Errorf("%s hooks, %w", shell, err)
	}
	return []row{
		{fmt.Sprintf("real herdr: program start -> tab renamed, %s hooks (%d starts)", shell, len(ss)), pcts(ss), hookStartTarget},
		{fmt.Sprintf("real herdr: program exit -> tab renamed, %s hooks (%d exits)", shell, len(se)), pcts(se), hookExitTarget},
	}, nil
}

// noHookRows times a tab whose shell sends no nudge: a shell that sets
// no title, of whose programs the kernel tells the daemon (its local
// watch), or one that titles its terminal, which herdr tells of too. how
// says which.
func (r realRun) noHookRows(how string, t realTab) ([]row, error) {
	starts, exits, err := r.startsAndExits(t.subject(), samples, sampleGap)
	if err != nil {
		return nil, fmt.Errorf("%s, %w", how, err)
	}
	cds, err := r.cds(t.subject(), samples)
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
	if _, err := r.timed(t.target(), "⚪", r.rs.report(t.pane, herdr.StatusIdle)); err != nil {
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
	if strings.Contains(r.rs.label(t.target()), "🟡") {
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
		d, err := r.timed(t.target(), icon, r.rs.report(t.pane, status))
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
