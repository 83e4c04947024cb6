package herdrsim

import (
	"fmt"
	"path"
	"slices"
)

// Terminal is what a local look at a simulated pane's terminal would read
// (procinfo.ReadFront): its shell, and the processes in front, the
// group's leader first; none at the shell's prompt. With ForegroundPGID
// it lets tests give the daemon a look at processes that agrees with this
// fake, the way the real /proc agrees with a real herdr.
type Terminal struct {
	Shell Proc
	Front []Proc
}

// Terminal answers the look at the terminal of the simulated shell
// shellPID. Each Proc's Name is its comm, as the kernel gives it.
func (s *Server) Terminal(shellPID int) (Terminal, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, ws := range s.sess.workspaces {
		for _, t := range ws.tabs {
			for _, p := range t.panes {
				if p.realShell == 0 && p.shell.PID == shellPID {
					return Terminal{Shell: withComm(p.shell), Front: commsOf(p.fg)}, nil
				}
			}
		}
	}
	return Terminal{}, fmt.Errorf("herdrsim: no simulated shell with pid %d", shellPID)
}

func commsOf(ps []Proc) []Proc {
	out := slices.Clone(ps)
	for i := range out {
		out[i] = withComm(out[i])
	}
	return out
}

// withComm fills Name in as the kernel would: the basename of argv[0],
// cut to 15 bytes.
func withComm(p Proc) Proc {
	if p.Name == "" && len(p.Argv) > 0 {
		p.Name = path.Base(p.Argv[0])
	}
	if len(p.Name) > 15 {
		p.Name = p.Name[:15]
	}
	return p
}
