// Package realherdr runs a real herdr server for tests and the bench: the
// binary integration/realherdr/build.sh builds from herdr's source, started
// headless in a pty with private config, runtime and socket paths, driven
// through its own CLI and socket and through its own TUI client typing a
// person's keys (tui.go), and stopped so that no process of it is left
// behind.
package realherdr

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/creack/pty"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// BuildCommand is what a person runs to build the herdr the tests use.
const BuildCommand = "integration/realherdr/build.sh"

// Binary finds the herdr binary to test against: $HERDR_BIN when set, else
// the one build.sh has cached for the archive in ../shared/real-herdr. It
// never builds: a missing binary is reported with the command that builds
// it, so a test can skip with that one line.
func Binary() (string, error) {
	if bin := os.Getenv("HERDR_BIN"); bin != "" {
		if _, err := os.Stat(bin); err != nil {
			return "", fmt.Errorf("HERDR_BIN=%s: %w", bin, err)
		}
		return bin, nil
	}
	script := filepath.Join(moduleRoot(), BuildCommand)
	out, err := exec.Command("bash", script, "--cached").Output()
	if err != nil {
		return "", fmt.Errorf("no real herdr built: run %s (needs cargo and python3) or set HERDR_BIN", BuildCommand)
	}
	return strings.TrimSpace(string(out)), nil
}

// moduleRoot is the repository root, found from this file's own path.
func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// Options shape a server. The zero value is a server whose panes run
// /bin/sh.
type Options struct {
	// Shell is the panes' shell ($SHELL for the server); /bin/sh if empty.
	Shell string
	// Home is $HOME for the server and its panes; a fresh folder if empty.
	Home string
	// Config is appended to config.toml after `onboarding = false`.
	Config string
	// Env are more KEY=VALUE pairs for the server (and so its panes).
	Env []string
}

// Server is one running herdr server with its own folders.
type Server struct {
	Bin        string
	Base       string // holds every folder below; removed by Close
	Home       string
	ConfigHome string // $XDG_CONFIG_HOME; herdr's files live in ConfigHome/herdr
	Runtime    string // $XDG_RUNTIME_DIR
	Socket     string // $HERDR_SOCKET_PATH, the JSON API socket

	opts Options
	mu   sync.Mutex
	proc *serverProc
}

// serverProc is one run of `herdr server`.
type serverProc struct {
	cmd  *exec.Cmd
	tty  *os.File
	out  *ringBuffer
	done chan struct{}
	err  error
}

// Start makes private folders and starts `herdr server` in them; it returns
// once the socket answers. Close stops it and removes the folders.
func Start(bin string, opts Options) (*Server, error) {
	// sun_path holds 108 bytes: keep the socket's folder short.
	base, err := os.MkdirTemp("", "rh")
	if err != nil {
		return nil, fmt.Errorf("real herdr: temp folder: %w", err)
	}
	s := &Server{Bin: bin, Base: base, opts: opts,
		Home:       opts.Home,
		ConfigHome: filepath.Join(base, "c"),
		Runtime:    filepath.Join(base, "r"),
		Socket:     filepath.Join(base, "s", "herdr.sock"),
	}
	if s.Home == "" {
		s.Home = filepath.Join(base, "home")
	}
	for _, d := range []string{s.Home, filepath.Join(s.ConfigHome, "herdr"), s.Runtime, filepath.Dir(s.Socket)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			os.RemoveAll(base)
			return nil, fmt.Errorf("real herdr: %w", err)
		}
	}
	cfg := "onboarding = false\n" + opts.Config
	if err := os.WriteFile(filepath.Join(s.ConfigHome, "herdr", "config.toml"), []byte(cfg), 0o600); err != nil {
		os.RemoveAll(base)
		return nil, fmt.Errorf("real herdr: config: %w", err)
	}
	if err := s.Restart(); err != nil {
		os.RemoveAll(base)
		return nil, err
	}
	return s, nil
}

// Env is the environment that reaches this server: for herdr's CLI, for
// herdrtabrenamer and for anything a test runs as if inside herdr.
func (s *Server) Env(extra ...string) []string {
	shell := s.opts.Shell
	if shell == "" {
		shell = "/bin/sh"
	}
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + s.Home,
		"XDG_CONFIG_HOME=" + s.ConfigHome,
		"XDG_RUNTIME_DIR=" + s.Runtime,
		"HERDR_SOCKET_PATH=" + s.Socket,
		"SHELL=" + shell,
		"LANG=C.UTF-8",
		"TERM=xterm-256color",
	}
	if tmp := os.Getenv("TMPDIR"); tmp != "" {
		env = append(env, "TMPDIR="+tmp)
	}
	if v := os.Getenv(herdr.PlainRequestsEnv); v != "" {
		// The plugin's daemon and the panes' commands take the plain
		// path too, when tests or the bench ask for it.
		env = append(env, herdr.PlainRequestsEnv+"="+v)
	}
	env = append(env, s.opts.Env...)
	return append(env, extra...)
}

// Restart starts `herdr server` again after Stop, in the same folders:
// herdr restores the session it saved when it stopped.
func (s *Server) Restart() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc != nil {
		return errors.New("real herdr: server already running")
	}
	cmd := exec.Command(s.Bin, "server")
	cmd.Env = s.Env()
	cmd.Dir = s.Home
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		return fmt.Errorf("real herdr: start %s server: %w", s.Bin, err)
	}
	p := &serverProc{cmd: cmd, tty: tty, out: &ringBuffer{max: 64 << 10}, done: make(chan struct{})}
	go func() { _, _ = copyAll(p.out, tty) }()
	go func() { p.err = cmd.Wait(); close(p.done) }()
	s.proc = p
	if err := s.waitReady(p, 30*time.Second); err != nil {
		s.killLocked()
		return err
	}
	return nil
}

// waitReady waits until herdr's CLI gets an answer from the socket.
func (s *Server) waitReady(p *serverProc, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		select {
		case <-p.done:
			return fmt.Errorf("real herdr: server exited at start (%v); output:\n%s", p.err, p.out)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := s.cli(ctx, "workspace", "list")
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("real herdr: socket %s did not answer within %v: %v; output:\n%s", s.Socket, within, err, p.out)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// CLI runs herdr's own command line against this server and returns its
// standard output; an error carries its standard error.
func (s *Server) CLI(args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return s.cli(ctx, args...)
}

func (s *Server) cli(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, s.Bin, args...)
	cmd.Env = s.Env()
	cmd.Dir = s.Home
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("herdr %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// Output is what the server printed to its terminal so far (the last 64 KiB).
func (s *Server) Output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return ""
	}
	return s.proc.out.String()
}

// Stop asks the server to stop (`herdr server stop`, which saves the
// session) and waits for it to exit, killing it after 15 s. It then waits
// for every process that was started inside it (panes, plugin commands) to
// end, and reports those still running after 10 s, killing them.
func (s *Server) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.proc
	if p == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	_, stopErr := s.cli(ctx, "server", "stop")
	cancel()
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		s.killLocked()
		return fmt.Errorf("real herdr: server did not exit within 15 s of `herdr server stop` (%v)", stopErr)
	}
	p.tty.Close()
	s.proc = nil
	return s.reapLeftovers(10 * time.Second)
}

// killLocked kills a server that would not stop.
func (s *Server) killLocked() {
	p := s.proc
	if p == nil {
		return
	}
	_ = p.cmd.Process.Kill()
	<-p.done
	p.tty.Close()
	s.proc = nil
	_ = s.reapLeftovers(5 * time.Second)
}

// reapLeftovers waits for the processes started inside this server to end;
// those still running after within are killed and reported.
func (s *Server) reapLeftovers(within time.Duration) error {
	var left []Process
	deadline := time.Now().Add(within)
	for {
		left = Leftovers(s.Socket)
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, p := range left {
		_ = killPID(p.PID)
	}
	return fmt.Errorf("real herdr: %d process(es) still running %v after the server stopped: %v", len(left), within, left)
}

// Close stops the server if it runs and removes its folders. It returns
// Stop's error: a server that left processes behind.
func (s *Server) Close() error {
	err := s.Stop()
	if rmErr := os.RemoveAll(s.Base); rmErr != nil && err == nil {
		err = rmErr
	}
	return err
}

// ringBuffer keeps the last max bytes written to it.
type ringBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (r *ringBuffer) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.b = append(r.b, p...)
	if over := len(r.b) - r.max; over > 0 {
		r.b = append(r.b[:0], r.b[over:]...)
	}
	return len(p), nil
}

func (r *ringBuffer) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return string(r.b)
}

// copyAll copies until the pty closes; a pty's EIO at the end is its EOF.
func copyAll(dst *ringBuffer, src *os.File) (int64, error) {
	var n int64
	buf := make([]byte, 4096)
	for {
		k, err := src.Read(buf)
		if k > 0 {
			_, _ = dst.Write(buf[:k])
			n += int64(k)
		}
		if err != nil {
			return n, err
		}
	}
}
