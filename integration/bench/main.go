//go:build unix

// Only Unix: it runs shells in ptys and reads getrusage.

// Command bench measures herdrtabrenamer's figures (the README's Figures
// section) in one run against the herdrsim simulator and prints them as
// one markdown table for the README:
//
//	go run ./integration/bench
//
// It builds the binary, runs real shells in ptys inside simulated panes,
// then the same shells in a real herdr 0.8.2 when one is built
// (realherdr.go), and takes about ten minutes. Figures from one run share
// one machine and one load, so the baselines beside them are comparable.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/herdrtabrenamer/herdrtabrenamer/pass"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"

	"github.com/herdrtabrenamer/herdrtabrenamer/daemon"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// serveArg re-runs this program as a simulator of N panes in a child
// process, so the pass CPU figure counts the daemon's work only.
const serveArg = "-serve-sim"

func main() {
	if len(os.Args) == 3 && os.Args[1] == serveArg {
		if err := serveSim(os.Args[2]); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	flag.IntVar(&samples, "samples", 20, "samples per latency figure")
	idleFor := flag.Duration("idle", 20*time.Second, "shortest idle CPU measurement")
	nudgeRuns := flag.Int("nudge-runs", 200, "runs of the nudge command (and of /bin/true)")
	flag.StringVar(&prebuilt, "bin", "", "measure this herdrtabrenamer binary instead of building one (an older build, for before/after figures)")
	flag.DurationVar(&traceOver, "trace", 0, "run the latency daemons (herdrsim and real herdr) at debug level and print their log around every sample slower than this (0: off)")
	flag.DurationVar(&realIdleFor, "real-idle", time.Minute, "real herdr: length of each idle span measuring herdr's CPU")
	flag.DurationVar(&realFirstFor, "real-first", time.Minute, "real herdr: how long a daemon runs before its idle span")
	only := flag.String("only", "", "comma-separated parts to run: idle, latency, realherdr, cpu, nudge (default: all)")
	flag.Parse()
	parts = map[string]bool{}
	for _, p := range strings.Split(*only, ",") {
		if p = strings.TrimSpace(p); p != "" {
			parts[p] = true
		}
	}
	if err := run(*idleFor, *nudgeRuns); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// Settings from the command line.
var (
	samples  int
	prebuilt string
	// traceOver: print the daemon's log around samples slower than this.
	traceOver time.Duration
	parts     map[string]bool // empty: every part
)

func want(part string) bool { return len(parts) == 0 || parts[part] }

// row is one line of the table.
type row struct{ figure, measured, target string }

func run(idleFor time.Duration, nudgeRuns int) error {
	started := time.Now()
	w, err := newWorld()
	if err != nil {
		return err
	}
	defer w.close()
	fmt.Fprintln(os.Stderr, "bench: built", w.bin)

	// The idle daemon runs alongside everything else on its own server;
	// it is only read at the end.
	var idle *idleDaemon
	if want("cpu") {
		if idle, err = w.startIdle(); err != nil {
			return err
		}
	}

	rows, notes, err := w.serverRows()
	if err != nil {
		return err
	}
	if !want("cpu") && !want("nudge") {
		printTable(os.Stdout, rows, time.Since(started), notes...)
		return nil
	}

	cpuRows, err := passCPURows()
	if err != nil {
		return err
	}
	rows = append(rows, cpuRows...)
	nudge, err := w.nudgeRow(nudgeRuns)
	if err != nil {
		return err
	}
	rows = append(rows, nudge)

	if idle != nil {
		idleRows, err := idle.rows(idleFor)
		if err != nil {
			return err
		}
		rows = append(rows, idleRows...)
	}
	printTable(os.Stdout, rows, time.Since(started), notes...)
	return nil
}

// serverRows are the figures of the parts that talk to a server: the
// idle pass, rename latency and the real herdr, each when wanted.
func (w *world) serverRows() (rows []row, notes []string, err error) {
	if want("idle") {
		ip, err := w.idlePass()
		if err != nil {
			return nil, nil, fmt.Errorf("idle pass: %w", err)
		}
		rows = append(rows,
			row{fmt.Sprintf("socket connections per idle pass (protocol %d, read poll on)", ip.protocol), fmt.Sprintf("%.2f (%d passes)", ip.conns, ip.passes), "1"},
			row{"`pane.process_info` calls per idle pass", fmt.Sprintf("%.2f (%d passes)", ip.procCalls, ip.passes), "0"},
			row{"hedged reads per idle pass", fmt.Sprintf("%.2f (%d passes)", ip.hedges, ip.passes), "≈ 0"})
		fmt.Fprintln(os.Stderr, "bench: idle pass done")
	}

	if want("latency") {
		lat, err := w.latency()
		if err != nil {
			return nil, nil, fmt.Errorf("rename latency: %w", err)
		}
		rows = append(rows, lat...)
		fmt.Fprintln(os.Stderr, "bench: latency done")
	}
	if want("realherdr") {
		real, realNotes, err := w.realHerdr()
		if err != nil {
			return nil, nil, fmt.Errorf("real herdr: %w", err)
		}
		rows, notes = append(rows, real...), append(notes, realNotes...)
		fmt.Fprintln(os.Stderr, "bench: real herdr done")
	}
	return rows, notes, nil
}

// passCPURows are the pass CPU figures at 100 and 2000 panes.
func passCPURows() ([]row, error) {
	var rows []row
	for _, n := range []int{100, 2000} {
		cpu, wall, err := passCPU(n)
		if err != nil {
			return nil, fmt.Errorf("pass cpu at %d panes: %w", n, err)
		}
		target := "-"
		if n == 2000 {
			target = "under 10 ms, linear in panes"
		}
		rows = append(rows, row{fmt.Sprintf("pass CPU, %d panes (wall)", n),
			fmt.Sprintf("%s (%s)", ms(cpu), ms(wall)), target})
	}
	fmt.Fprintln(os.Stderr, "bench: pass cpu done")
	return rows, nil
}

// nudgeRow is the median wall time of `nudge` beside /bin/true's.
func (w *world) nudgeRow(runs int) (row, error) {
	nudgeMed, trueMed, err := w.nudgeWall(runs)
	if err != nil {
		return row{}, fmt.Errorf("nudge wall time: %w", err)
	}
	return row{fmt.Sprintf("`nudge` wall time, median of %d (`/bin/true`)", runs),
		fmt.Sprintf("%s (%s, x%.1f)", ms(nudgeMed), ms(trueMed), float64(nudgeMed)/float64(trueMed)), "median under 3 ms"}, nil
}

// rows waits until the idle daemon has run for idleFor, then returns its
// CPU and memory figures.
func (d *idleDaemon) rows(idleFor time.Duration) ([]row, error) {
	if rest := idleFor - time.Since(d.since); rest > 0 {
		fmt.Fprintf(os.Stderr, "bench: idling %v more\n", rest.Round(time.Second))
		time.Sleep(rest)
	}
	cpuPct, rss, span, err := d.read()
	if err != nil {
		return nil, fmt.Errorf("idle daemon: %w", err)
	}
	return []row{{fmt.Sprintf("daemon idle CPU, 4 shells followed by the local watch, default flags (%v)", span.Round(time.Second)),
		fmt.Sprintf("%.3f %% of a core", cpuPct), "under 0.2 % of a core (local watch)"},
		{"daemon RSS (VmRSS)", fmt.Sprintf("%.1f MiB", float64(rss)/(1<<20)), "under 15 MiB"}}, nil
}

// printTable prints the table, the notes every run has, then notes, one
// line each.
func printTable(out io.Writer, rows []row, took time.Duration, notes ...string) {
	fmt.Fprintf(out, "Figures measured by `go run ./integration/bench` in one run of %v on %s/%s, %d CPUs, %s.\n\n",
		took.Round(time.Second), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
	fmt.Fprintln(out, "| figure | measured | target |")
	fmt.Fprintln(out, "|---|---|---|")
	for _, r := range rows {
		fmt.Fprintf(out, "| %s | %s | %s |\n", r.figure, r.measured, r.target)
	}
	fmt.Fprintln(out)
	fmt.Fprintln(out, "Latencies are p50 / p95 / max from the keystroke (`sleep 30`, Ctrl-C, `cd sub`) or herdr's agent status change to herdr answering the rename, against herdrsim with herdr's 0-100 ms request-read poll, default run flags, samples 0.5 s apart.")
	fmt.Fprintln(out, "Pass CPU is the daemon's own CPU time per idle pass (the simulator runs in another process); a /proc read of a single-threaded `sleep` stands in for each shell's foreground check.")
	for _, n := range notes {
		fmt.Fprintln(out, n)
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

// pcts formats p50 / p95 / max.
func pcts(ds []time.Duration) string {
	if len(ds) == 0 {
		return "no samples"
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return fmt.Sprintf("%s / %s / %s", ms(testutil.NearestRank(s, 0.5)), ms(testutil.NearestRank(s, 0.95)), ms(s[len(s)-1]))
}

// world is the run's sandbox: the built binary, private XDG directories,
// and every process and server started, for clean-up.
type world struct {
	dir, bin, runtimeDir string
	servers              []*herdrsim.Server
	procs                []*exec.Cmd
	ptys                 []*os.File
	// outputs keep what each pty showed, for a report on a stall.
	outputs map[*os.File]*testutil.Buffer
}

// terminal describes a shell's terminal for a stall report: the program
// in its foreground, its mode, and its last output.
func (w *world) terminal(f *os.File) string {
	out := w.outputs[f].String()
	return fmt.Sprintf("foreground %s; last output %q", testutil.Foreground(f), out[max(0, len(out)-2048):])
}

func newWorld() (*world, error) {
	dir, err := os.MkdirTemp("", "htr-bench")
	if err != nil {
		return nil, err
	}
	// short: socket paths must fit in 108 bytes
	rt, err := os.MkdirTemp("", "rt")
	if err != nil {
		return nil, err
	}
	w := &world{dir: dir, bin: filepath.Join(dir, "herdrtabrenamer"), runtimeDir: rt}
	for _, d := range []string{"home", "state"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return nil, err
		}
	}
	if prebuilt != "" {
		w.bin = prebuilt
		return w, nil
	}
	gomod, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return nil, fmt.Errorf("go env GOMOD: %w", err)
	}
	build := exec.Command("go", "build", "-o", w.bin, ".")
	build.Dir = filepath.Dir(strings.TrimSpace(string(gomod)))
	if b, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build: %w\n%s", err, b)
	}
	return w, nil
}

func (w *world) env(extra ...string) []string {
	return append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(w.dir, "home"),
		"XDG_RUNTIME_DIR=" + w.runtimeDir, "XDG_STATE_HOME=" + filepath.Join(w.dir, "state"),
		"XDG_CONFIG_HOME=" + filepath.Join(w.dir, "config"), "LANG=C.UTF-8"}, extra...)
}

func (w *world) close() {
	for _, c := range w.procs {
		if c.Process != nil {
			_ = c.Process.Signal(syscall.SIGTERM)
		}
	}
	for _, c := range w.procs {
		done := make(chan struct{})
		go func() { _ = c.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = c.Process.Kill()
			<-done
		}
	}
	for _, f := range w.ptys {
		f.Close()
	}
	for _, s := range w.servers {
		s.Close()
	}
	os.RemoveAll(w.dir)
	os.RemoveAll(w.runtimeDir)
}

// shellSpec is one pane's shell. titles: the terminal titles it prints
// (OSC 0 and 2) reach herdr, as herdr's own terminal parser would pass
// them on; other shells' output is thrown away.
type shellSpec struct {
	argv   []string
	titles bool
}

// shellServer starts a simulator whose panes are real shells in ptys, so
// process_info and the daemon's local /proc checks see real processes.
// shells[i] is pane i's shell; env entries are added.
func (w *world) shellServer(shells []shellSpec, env func(pane, sock string) []string) (*herdrsim.Server, []string, []*os.File, error) {
	srv, err := herdrsim.New(herdrsim.WithTick(10 * time.Millisecond))
	if err != nil {
		return nil, nil, nil, err
	}
	w.servers = append(w.servers, srv)
	var panes []string
	var ttys []*os.File
	var ws string
	for i, spec := range shells {
		argv := spec.argv
		cwd := filepath.Join(w.dir, "home", fmt.Sprintf("dir%d", i))
		if err := os.MkdirAll(filepath.Join(cwd, "sub"), 0o700); err != nil {
			return nil, nil, nil, err
		}
		var pane string
		if i == 0 {
			ws, _, pane = srv.NewWorkspace("bench", cwd)
		} else {
			_, pane = srv.NewTab(ws, cwd)
		}
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = cwd
		cmd.Env = w.env(env(pane, srv.SocketPath())...)
		f, err := pty.Start(cmd)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("start %v in a pty: %w", argv, err)
		}
		w.procs = append(w.procs, cmd)
		w.ptys = append(w.ptys, f)
		if w.outputs == nil {
			w.outputs = map[*os.File]*testutil.Buffer{}
		}
		out := &testutil.Buffer{}
		w.outputs[f] = out
		// A shell blocks when nobody reads its terminal.
		if spec.titles {
			go watchTitles(io.TeeReader(f, out), func(title string) { srv.SetTitle(pane, title) })
		} else {
			go func() { _, _ = io.Copy(out, f) }()
		}
		srv.AttachProcess(pane, cmd.Process.Pid)
		panes = append(panes, pane)
		ttys = append(ttys, f)
	}
	return srv, panes, ttys, nil
}

func plainShells(n int) []shellSpec {
	out := make([]shellSpec, n)
	for i := range out {
		out[i] = shellSpec{argv: []string{"sh", "-i"}}
	}
	return out
}

// watchTitles reads a terminal's output and reports every title set with
// OSC 0 or OSC 2 (ended by BEL or ST), the way herdr's parser sees them.
func watchTitles(r io.Reader, set func(string)) {
	br := bufio.NewReader(r)
	for {
		b, err := br.ReadByte()
		if err != nil {
			return
		}
		if b != 0x1b {
			continue
		}
		if b, err = br.ReadByte(); err != nil {
			return
		} else if b != ']' {
			continue
		}
		var seq []byte
		for {
			c, err := br.ReadByte()
			if err != nil {
				return
			}
			if c == 0x07 {
				break
			}
			if c == 0x1b {
				_, _ = br.ReadByte() // the \ of ST
				break
			}
			seq = append(seq, c)
		}
		if kind, title, ok := strings.Cut(string(seq), ";"); ok && (kind == "0" || kind == "2") {
			set(title)
		}
	}
}

func noEnv(string, string) []string { return nil }

// startDaemon runs `herdrtabrenamer run --apply` against srv and waits for
// every tab to carry its directory's name.
func (w *world) startDaemon(srv *herdrsim.Server, stateName string, args ...string) (*exec.Cmd, error) {
	return w.startDaemonLog(srv, stateName, os.Stderr, append([]string{"--log-level", "warn"}, args...)...)
}

// startDaemonLog is startDaemon with the daemon's stderr going to log.
func (w *world) startDaemonLog(srv *herdrsim.Server, stateName string, log io.Writer, args ...string) (*exec.Cmd, error) {
	full := append([]string{"run", "--apply", "--socket", srv.SocketPath(),
		"--state", filepath.Join(w.dir, stateName)}, args...)
	cmd := exec.Command(w.bin, full...)
	cmd.Env = w.env()
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	w.procs = append(w.procs, cmd)
	ok := testutil.Poll(15*time.Second, func() bool {
		for _, t := range srv.Snapshot().Tabs {
			if !strings.Contains(t.Label, "dir") {
				return false
			}
		}
		return true
	})
	if !ok {
		return nil, errors.New("daemon did not name the tabs within 15 s")
	}
	return cmd, nil
}

func stopProc(cmd *exec.Cmd) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()
}

// idleFigures are the per-pass costs of a settled daemon.
type idleFigures struct {
	protocol                 int
	conns, procCalls, hedges float64
	passes                   int
}

// idlePass counts socket connections, process_info calls and hedged reads
// (from the daemon's debug log) per pass of a settled daemon polling every
// 100 ms over 4 real shells.
func (w *world) idlePass() (idleFigures, error) {
	var f idleFigures
	srv, _, _, err := w.shellServer(plainShells(4), noEnv)
	if err != nil {
		return f, err
	}
	log := &testutil.Buffer{}
	d, err := w.startDaemonLog(srv, "idle-pass.json", log, "--poll", "100ms", "--rest-poll", "100ms", "--log-level", "debug")
	if err != nil {
		return f, err
	}
	defer stopProc(d)
	time.Sleep(500 * time.Millisecond) // let the event stream settle
	srv.ResetCounters()
	mark := len(log.String())
	time.Sleep(3 * time.Second)
	f.passes = srv.Calls("session.snapshot")
	if f.passes == 0 {
		return f, errors.New("no pass in 3 s at --poll 100ms")
	}
	n := float64(f.passes)
	f.protocol = srv.Protocol()
	f.conns = float64(srv.Connections()) / n
	f.procCalls = float64(srv.Calls("pane.process_info")) / n
	f.hedges = float64(strings.Count(log.String()[mark:], "hedging a late read")) / n
	return f, nil
}

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
)

// titleZsh sets the terminal title as most prompt themes do: the command
// at preexec, the directory at precmd.
const titleZsh = "preexec() { print -n \"\\e]2;$1\\a\" }\nprecmd() { print -Pn \"\\e]2;%~\\a\" }\n"

// hookRC writes the `init` hook snippet of shell, calling the built
// binary, to a file a shell can source, and returns its path.
func (w *world) hookRC(shell string) (string, error) {
	hook, err := exec.Command(w.bin, "init", shell, "--cmd", w.bin).Output()
	if err != nil {
		return "", fmt.Errorf("init %s: %w", shell, err)
	}
	path := filepath.Join(w.dir, "hook."+shell)
	return path, os.WriteFile(path, hook, 0o600)
}

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

// nudgeWall times runs of the built `nudge` command against a listening
// daemon, interleaved with /bin/true so both see the same load.
func (w *world) nudgeWall(runs int) (nudgeMed, trueMed time.Duration, err error) {
	srv, panes, _, err := w.shellServer(plainShells(1), noEnv)
	if err != nil {
		return 0, 0, err
	}
	d, err := w.startDaemon(srv, "nudge.json")
	if err != nil {
		return 0, 0, err
	}
	defer stopProc(d)
	// Exactly what the shell hooks run inside a herdr pane.
	env := append(w.env(), "HERDR_SOCKET_PATH="+srv.SocketPath())
	var nd, td []time.Duration
	for range runs {
		for _, argv := range [][]string{{w.bin, "nudge", "--quiet", "--when", "precmd", panes[0]}, {"/bin/true"}} {
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Env = env
			start := time.Now()
			if err := cmd.Run(); err != nil {
				return 0, 0, fmt.Errorf("%v: %w", argv, err)
			}
			if argv[0] == w.bin {
				nd = append(nd, time.Since(start))
			} else {
				td = append(td, time.Since(start))
			}
		}
	}
	slices.Sort(nd)
	slices.Sort(td)
	return nd[len(nd)/2], td[len(td)/2], nil
}

// idleDaemon is a daemon left alone with its default flags: its local
// watch follows the 4 shells, and its full poll rests.
type idleDaemon struct {
	cmd   *exec.Cmd
	since time.Time
	ticks uint64 // utime+stime at since, clock ticks
}

func (w *world) startIdle() (*idleDaemon, error) {
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
		return nil, err
	}
	return &idleDaemon{cmd: cmd, since: time.Now(), ticks: ticks}, nil
}

// read returns CPU use since start as a percentage of one core, VmRSS
// in bytes and the span measured.
func (d *idleDaemon) read() (pct float64, rss int64, span time.Duration, err error) {
	ticks, err := cpuTicks(d.cmd.Process.Pid)
	if err != nil {
		return 0, 0, 0, err
	}
	span = time.Since(d.since)
	// USER_HZ is 100 on every Linux this runs on (sysconf is not in the
	// standard library).
	used := time.Duration(ticks-d.ticks) * 10 * time.Millisecond
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", d.cmd.Process.Pid))
	if err != nil {
		return 0, 0, 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			rss = kb << 10
		}
	}
	return 100 * float64(used) / float64(span), rss, span, nil
}

// cpuTicks reads utime+stime of pid from /proc/<pid>/stat.
func cpuTicks(pid int) (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name, which may hold spaces: state is 3,
	// utime 14, stime 15.
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields after the name", pid, len(f))
	}
	u, err1 := strconv.ParseUint(f[11], 10, 64)
	s, err2 := strconv.ParseUint(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return u + s, nil
}

// serveSim is the child process: a simulator of n panes (tabs of two,
// half running a program), its socket path printed on stdout, until
// stdin closes.
func serveSim(arg string) error {
	n, err := strconv.Atoi(arg)
	if err != nil || n < 2 {
		return fmt.Errorf("%s %q: want a pane count of at least 2", serveArg, arg)
	}
	srv, err := herdrsim.New()
	if err != nil {
		return err
	}
	defer srv.Close()
	var ws string
	for i, made := 0, 0; made < n; i++ {
		dir := fmt.Sprintf("/home/u/projects/p%d", i)
		var pane string
		if i%10 == 0 {
			ws, _, pane = srv.NewWorkspace(fmt.Sprintf("ws%d", i/10), dir)
		} else {
			_, pane = srv.NewTab(ws, dir)
		}
		made++
		if i%2 == 0 {
			srv.SetForeground(pane, herdrsim.Proc{Argv: []string{"nvim", "main.go"}})
		}
		if made < n {
			srv.Split(pane, dir)
			made++
		}
	}
	fmt.Println(srv.SocketPath())
	_, _ = io.Copy(io.Discard, os.Stdin)
	return nil
}

// pidTable answers foreground checks for simulated shells from a table,
// after a real /proc read of a stand-in process so each check costs what a
// real one does. The stand-in is a single-threaded `sleep`, like a shell:
// /proc/<pid>/stat of a many-threaded process (this one) costs more.
type pidTable struct {
	fg      map[int]int
	standIn int
}

func (p pidTable) ForegroundPGID(pid int) (int, error) {
	// The stand-in has no terminal (tpgid -1 is an error): the read is
	// what costs, not its answer.
	_, _ = procinfo.Local().ForegroundPGID(p.standIn)
	if pg, ok := p.fg[pid]; ok {
		return pg, nil
	}
	return 0, os.ErrNotExist
}
func (pidTable) Process(int) (procinfo.Proc, error) { return procinfo.Proc{}, os.ErrNotExist }
func (pidTable) Children(int) ([]int, error)        { return nil, os.ErrNotExist }

// passCPU runs idle passes of an in-process daemon over a simulator of n
// panes in a child process and returns CPU time and wall time per pass.
func passCPU(n int) (cpu, wall time.Duration, err error) {
	sock, stopChild, err := startServeChild(n)
	if err != nil {
		return 0, 0, err
	}
	defer stopChild()
	ctx := context.Background()
	client := herdr.New(sock, herdr.WithTimeout(30*time.Second))
	snap, err := client.Snapshot(ctx)
	if err != nil {
		return 0, 0, err
	}
	sleeper := exec.Command("sleep", "600")
	if err := sleeper.Start(); err != nil {
		return 0, 0, err
	}
	defer func() { _ = sleeper.Process.Kill(); _ = sleeper.Wait() }()
	table, err := foregroundTable(ctx, client, snap, sleeper.Process.Pid)
	if err != nil {
		return 0, 0, err
	}
	stateDir, err := os.MkdirTemp("", "htr-bench-state")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(stateDir)
	d, err := passDaemon(sock, table, filepath.Join(stateDir, "state.json"))
	if err != nil {
		return 0, 0, err
	}
	return timeIdlePasses(ctx, d, n)
}

// startServeChild starts this program serving a simulator of n panes and
// returns its socket path, the first line the child prints, and a func
// that ends the child.
func startServeChild(n int) (sock string, stop func(), err error) {
	self, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	child := exec.Command(self, serveArg, strconv.Itoa(n))
	child.Stderr = os.Stderr
	stdin, err := child.StdinPipe()
	if err != nil {
		return "", nil, err
	}
	stdout, err := child.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := child.Start(); err != nil {
		return "", nil, err
	}
	stop = func() { stdin.Close(); _ = child.Wait() }
	line := make([]byte, 0, 256)
	buf := make([]byte, 1)
	for {
		if _, err := stdout.Read(buf); err != nil {
			stop()
			return "", nil, fmt.Errorf("simulator socket path: %w", err)
		}
		if buf[0] == '\n' {
			return string(line), stop, nil
		}
		line = append(line, buf[0])
	}
}

// foregroundTable asks the simulator for each pane's shell and foreground
// group, so passes look them up instead of reading a /proc of made-up
// processes; standIn is the process whose /proc is read instead.
func foregroundTable(ctx context.Context, client *herdr.Client, snap *herdr.Snapshot, standIn int) (pidTable, error) {
	table := pidTable{fg: map[int]int{}, standIn: standIn}
	for _, p := range snap.Panes {
		pi, err := client.ProcessInfo(ctx, p.ID)
		if err != nil {
			return table, err
		}
		table.fg[pi.ShellPID] = pi.ForegroundPGID
	}
	return table, nil
}

// passDaemon is the in-process daemon passCPU times, its state file at
// statePath and its log discarded.
func passDaemon(sock string, table pidTable, statePath string) (*daemon.Daemon, error) {
	nm, err := namer.New(namer.Config{Format: "{proc|dir}", MaxLen: 24, Home: "/home/u"})
	if err != nil {
		return nil, err
	}
	procs, err := procinfo.New(procinfo.Options{}, nil)
	if err != nil {
		return nil, err
	}
	return daemon.New(daemon.Options{Socket: sock, Naming: pass.Config{Namer: nm, Procs: procs, Inspector: table, Apply: true},
		StatePath: statePath, Timeout: 30 * time.Second,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

// timeIdlePasses warms d up, then returns the CPU and wall time of one
// idle pass over n panes, averaged over enough passes to be steady.
func timeIdlePasses(ctx context.Context, d *daemon.Daemon, n int) (cpu, wall time.Duration, err error) {
	for range 3 { // name every tab, fill the caches, warm up
		if _, err := d.Once(ctx); err != nil {
			return 0, 0, err
		}
	}
	passes := max(10, 20000/n)
	before := rusage()
	start := time.Now()
	for range passes {
		st, err := d.PassStats(ctx)
		if err != nil {
			return 0, 0, err
		}
		if st.ProcessInfoCalls != 0 || st.Renames != 0 {
			return 0, 0, fmt.Errorf("pass was not idle: %+v", st)
		}
	}
	wall = time.Since(start) / time.Duration(passes)
	cpu = (rusage() - before) / time.Duration(passes)
	return cpu, wall, nil
}

// rusage is this process's user+system CPU time so far.
func rusage() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
