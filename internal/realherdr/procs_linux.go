package realherdr

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Process is one process found running for a server.
type Process struct {
	PID  int
	Comm string
}

func (p Process) String() string { return fmt.Sprintf("%d (%s)", p.PID, p.Comm) }

// Leftovers are the processes, other than the caller, whose environment
// names socket as HERDR_SOCKET_PATH: herdr's server itself when started
// through this package, every pane's processes, plugin commands and
// anything those started, wherever they were reparented.
func Leftovers(socket string) []Process {
	want := []byte("HERDR_SOCKET_PATH=" + socket + "\x00")
	self := os.Getpid()
	entries, _ := os.ReadDir("/proc")
	var found []Process
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(append([]byte{0}, env...), append([]byte{0}, want...)) {
			continue
		}
		if zombie(pid) {
			continue
		}
		comm, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		found = append(found, Process{PID: pid, Comm: strings.TrimSpace(string(comm))})
	}
	return found
}

// zombie reports whether pid has exited and only waits for its parent.
func zombie(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z'
}

func killPID(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }

// Pause stops the server process for d (SIGSTOP, then SIGCONT): herdr
// stalled, its event entries quiet while their backlog waits.
func (s *Server) Pause(d time.Duration) error {
	s.mu.Lock()
	p := s.proc
	s.mu.Unlock()
	if p == nil {
		return errors.New("real herdr: server not running")
	}
	pid := p.cmd.Process.Pid
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		return fmt.Errorf("real herdr: stop pid %d: %w", pid, err)
	}
	time.Sleep(d)
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		return fmt.Errorf("real herdr: continue pid %d: %w", pid, err)
	}
	return nil
}
