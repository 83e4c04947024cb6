//go:build unix

package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/creack/pty"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

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
	cmd, err := w.spawnDaemon(srv, stateName, log, args...)
	if err != nil {
		return nil, err
	}
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

// spawnDaemon starts `herdrtabrenamer run --apply` against srv, its
// stderr going to log.
func (w *world) spawnDaemon(srv *herdrsim.Server, stateName string, log io.Writer, args ...string) (*exec.Cmd, error) {
	full := append([]string{"run", "--apply", "--socket", srv.SocketPath(),
		"--state", filepath.Join(w.dir, stateName)}, args...)
	cmd := exec.Command(w.bin, full...)
	cmd.Env = w.env()
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	w.procs = append(w.procs, cmd)
	return cmd, nil
}

func stopProc(cmd *exec.Cmd) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()
}

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
