//go:build unix

package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/daemon"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/pass"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// serveArg re-runs this program as a simulator of N panes in a child
// process, so the pass CPU figure counts the daemon's work only.
const serveArg = "-serve-sim"

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
		// The simulated shells are no processes here, so none is proven
		// local: a poll pass asks herdr again about the oldest answers
		// it cannot check (pass.RefreshPerPass), and nothing else.
		if st.ProcessInfoCalls > pass.RefreshPerPass || st.Renames != 0 {
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
