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
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/realherdr"
)

// The real-herdr part measures what herdrsim can only imitate: herdr's own
// request-read and subscription polls, its plugin hooks, and its CPU, with
// a real herdr 0.8.2 (integration/realherdr/build.sh) running headless and
// spawning each pane's shell from $SHELL. One server per shell: zsh, bash
// and fish, each with a tab whose rc file sources the hook snippet; the
// zsh and bash servers also hold a tab without hooks or title, and the
// zsh server the agent tab. Then, on servers of their own, herdr's CPU at
// rest (realidle.go), what agent.wait costs it (agentwait.go), and pane
// names' latency and cost at rest (realpanes.go).

// Settings of the real-herdr part, from the command line.
var (
	// realIdleFor is the length of each at-rest span; realFirstFor is
	// how long a daemon runs before its at-rest spans.
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

// realHerdr measures the wanted real-herdr parts and returns their rows
// with the notes that explain them: latencies and herdr at rest
// (realherdr), herdr at rest alone (realrest), agent.wait (agentwait),
// reads on each request path (reads), the daemon's memory per build
// (memory), pane names (realpanes), a chatty pane (realchatty).
// Without a built herdr it returns one row naming the command that builds
// one.
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
	var rows []row
	var notes []string
	if want("realherdr") {
		lat, load, err := w.realLatencyRows(bin)
		if err != nil {
			return nil, nil, err
		}
		rows, notes = append(rows, lat...), append(notes, realNote, load)
	}
	noNote := func(f func(string) ([]row, error)) func(string) ([]row, string, error) {
		return func(bin string) ([]row, string, error) { r, err := f(bin); return r, "", err }
	}
	for _, part := range []struct {
		want bool
		what string
		rows func(string) ([]row, string, error)
	}{
		{want("realherdr") || want("realrest"), "at rest", w.realIdleRows},
		{want("agentwait"), "agent.wait", w.agentWaitRows},
		{want("reads"), "reads", noNote(w.readRows)},
		{want("memory"), "memory", w.memoryRows},
		{want("realpanes"), "pane names", w.realPaneRows},
		{want("realchatty"), "a chatty pane", w.realChattyRows},
	} {
		if !part.want {
			continue
		}
		r, note, err := part.rows(bin)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", part.what, err)
		}
		rows = append(rows, r...)
		if note != "" {
			notes = append(notes, note)
		}
	}
	return rows, notes, nil
}

// reqPath is a way the daemon's requests reach herdr: the linked io_uring
// connect + send, or the plain connect + write it falls back to where
// io_uring is refused, forced here with herdr.PlainRequestsEnv.
type reqPath struct {
	name string   // in row names
	env  []string // the daemon's, besides herdr's
}

var (
	ringPath  = reqPath{name: "io_uring"}
	plainPath = reqPath{name: "plain connect+write (the fallback, forced)", env: []string{herdr.PlainRequestsEnv + "=1"}}
	reqPaths  = []reqPath{ringPath, plainPath}
)

// realLatencyRows measures the latencies on a server per shell, once per
// request path, each with the machine otherwise quiet and then with
// busyLoops busy loops beside it; a row per path holds both. It returns
// the rows, the hooked tabs' first, and a note of the load each block
// ran under.
func (w *world) realLatencyRows(bin string) ([]row, string, error) {
	var hooked, rest []row
	var loads []string
	for _, p := range reqPaths {
		h, r, load, err := w.realLatencyPath(bin, p)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", p.name, err)
		}
		hooked, rest = append(hooked, h...), append(rest, r...)
		loads = append(loads, p.name+" "+load)
	}
	note := "Load average (1 min) when each block of samples began: " + strings.Join(loads, "; ") + "."
	return append(hooked, rest...), note, nil
}

// realLatencyPath measures every latency row on daemons whose requests
// take path p, quiet and then beside busy loops, each round on servers
// and daemons of its own, and says the load average when each round's
// samples began.
func (w *world) realLatencyPath(bin string, p reqPath) (hooked, rest []row, load string, err error) {
	var rounds [2][2][]row // [quiet, busy][hooked, rest]
	for i, busy := range []int{0, busyLoops} {
		h, r, l, err := w.realLatencyRound(bin, p, busy)
		if err != nil {
			return nil, nil, "", err
		}
		rounds[i][0], rounds[i][1] = h, r
		if busy > 0 {
			load += fmt.Sprintf(", %d busy loops ", busy)
		} else {
			load += "quiet "
		}
		load += l
	}
	return pathRows(p, rounds[0][0], rounds[1][0]), pathRows(p, rounds[0][1], rounds[1][1]), load, nil
}

// realLatencyRound starts a server and a daemon per shell, the daemons'
// requests on path p, and once they are past their replay takes every
// latency row with busy busy loops running.
func (w *world) realLatencyRound(bin string, p reqPath, busy int) (hooked, rest []row, load string, err error) {
	var setups []*realSetup
	defer func() {
		for _, su := range setups {
			su.close()
		}
	}()
	for _, sh := range []string{"zsh", "bash", "fish"} {
		su, err := w.prepareReal(bin, sh, p)
		if err != nil {
			return nil, nil, "", fmt.Errorf("%s server: %w", sh, err)
		}
		if su != nil {
			setups = append(setups, su)
		}
	}
	if len(setups) > 0 {
		pastReplay(setups[len(setups)-1].started)
	}
	if busy > 0 {
		stop, err := startBusy(busy)
		if err != nil {
			return nil, nil, "", err
		}
		defer stop()
		time.Sleep(2 * time.Second) // the loops up to speed, the load average moving
	}
	load = loadAverage()
	for _, su := range setups {
		h, r, err := w.measureReal(su)
		if err != nil {
			return nil, nil, "", fmt.Errorf("%s server: %w", su.shell, err)
		}
		hooked, rest = append(hooked, h...), append(rest, r...)
	}
	return hooked, rest, load, nil
}

// pathRows joins a quiet round's rows and the busy round's, row by row,
// under path p's name and target.
func pathRows(p reqPath, quiet, busy []row) []row {
	var out []row
	for i, q := range quiet {
		r := row{figure: q.figure + ", " + p.name, measured: "quiet " + q.measured, target: pathTarget(p, q.target)}
		if i < len(busy) {
			r.measured += fmt.Sprintf("; %d busy loops %s", busyLoops, busy[i].measured)
		}
		out = append(out, r)
	}
	return out
}

// pathTarget is a row's target on path p: a rename that follows a
// request herdr reads at once, on io_uring; none on the plain path,
// whose p95 herdr's 0-100 ms read poll bounds. A row whose figure a
// poll of the daemon's own bounds keeps its target.
func pathTarget(p reqPath, target string) string {
	switch {
	case target == statusPollTarget:
		return target
	case p.name == plainPath.name:
		return "- (herdr's 0-100 ms read poll)"
	}
	return pollFreeTarget
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
// one without hooks or title where the shell sets none by itself, one
// without hooks where it does (fish titles its terminal); the agent tab
// on zsh's.
var realTabs = map[string][]string{"zsh": {"hooked", "plain", "agent"}, "bash": {"hooked", "plain"}, "fish": {"hooked", "titled"}}

// prepareReal starts a herdr server whose panes run shell, opens its tabs
// and starts the daemon that names them. A shell not on PATH is left out,
// with a line on stderr.
func (w *world) prepareReal(bin, shell string, p reqPath) (*realSetup, error) {
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
	state := filepath.Join(w.dir, fmt.Sprintf("real-%s-%d.json", shell, time.Now().UnixNano()))
	if su.d, err = w.startRealDaemon(rs, p, rs.srv.Socket, state, "--format", "{icon}{proc|dir}"); err != nil {
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
		plain, err := r.noHookRows(su.shell+" without hooks or title (local watch)", t)
		if err != nil {
			return nil, nil, err
		}
		rest = append(rest, plain...)
	}
	if t, ok := su.tabs["titled"]; ok {
		titled, err := r.noHookRows(su.shell+" without hooks, the title it sets itself", t)
		if err != nil {
			return nil, nil, err
		}
		rest = append(rest, titled...)
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
