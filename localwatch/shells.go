package localwatch

import (
	"sync/atomic"

	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
	"github.com/herdrtabrenamer/herdrtabrenamer/procwatch"
)

// Shells is what is known of the panes' shells on this machine.
type Shells struct {
	prober procinfo.Prober // nil: no look at this machine's processes
	// watcher is the kernel's watch while it runs (Start), for Front.
	watcher atomic.Pointer[procwatch.Watcher]
	// server is the pid serving herdr's socket as this machine's kernel
	// names it (SetServer); proofs are the shells proven local, or not,
	// with it.
	server int
	proofs map[int]bool
	// known are the local shells the last pass found, by pane id.
	known map[string]procinfo.Shell
}

// New makes the registry of the shells insp can look at: this machine's
// processes (procinfo.Local); nil or one that is no Prober proves none
// local.
func New(insp procinfo.Inspector) *Shells {
	s := &Shells{}
	s.Inspect(insp)
	return s
}

// Inspect looks at this machine's processes through insp from now on (a
// reloaded configuration's); the proofs made stand.
func (s *Shells) Inspect(insp procinfo.Inspector) { s.prober, _ = insp.(procinfo.Prober) }

// SetServer takes the pid of the process serving herdr's socket as this
// machine's kernel names it (procinfo.SocketPeer), 0 when it names none.
// A new one ends every proof made with the old one.
func (s *Shells) SetServer(pid int) {
	if pid != s.server {
		s.server, s.proofs = pid, map[int]bool{}
	}
}

// Server is the pid SetServer took last.
func (s *Shells) Server() int { return s.server }

// Prove says whether shellPID, a pane's shell as herdr names it, is
// proven to run here (procinfo.ProveLocal), once per shell and server: a
// pid alone proves nothing, as herdr in a container or behind a forwarded
// socket names pids a process here may have too.
func (s *Shells) Prove(shellPID int) bool {
	if local, ok := s.proofs[shellPID]; ok {
		return local
	}
	local := false
	if s.prober != nil {
		local, _ = s.prober.ProveLocal(s.server, shellPID)
	}
	if s.proofs == nil {
		s.proofs = map[int]bool{}
	}
	s.proofs[shellPID] = local
	return local
}

// Front is the watch's last look at pane's shell, shellPID; false when
// the watch does not run or has none.
func (s *Shells) Front(paneID string, shellPID int) (procinfo.Front, bool) {
	if w := s.watcher.Load(); w != nil {
		if f, ok := w.Front(paneID); ok && f.ShellPID == shellPID {
			return f, true
		}
	}
	return procinfo.Front{}, false
}

// Found takes the local shells a pass found, by pane id: the registry the
// watch, a title's hint and a preexec wait read until the next pass.
func (s *Shells) Found(shells map[string]procinfo.Shell) { s.known = shells }

// Local is pane's local shell; false when its processes are not known to
// be this machine's.
func (s *Shells) Local(paneID string) (procinfo.Shell, bool) {
	sh, ok := s.known[paneID]
	return sh, ok
}

// ServerHere says whether the process serving herdr's socket is herdr on
// this machine, not a forwarder: it started a pane's shell here (a
// stand-in for herdr, proven local), or its name says so.
func (s *Shells) ServerHere() bool {
	return s.server > 0 && (len(s.known) > 0 || procinfo.PeerOf(s.server).Herdr)
}

// Hint is what a title change says of a local shell.
type Hint int

const (
	Nothing        Hint = iota
	ProgramChanged      // the foreground group is not the one last seen: a pass now
	AtPrompt            // the shell is in front: a program may start in a moment
)

// TitleHint weighs a pane.updated that no name needs: a shell that sets
// the terminal title does so right before it runs a command and again at
// the prompt, so for a shell here that event is the cheapest hint a
// program started or ended, and one look at its terminal tells.
func (s *Shells) TitleHint(paneID string) Hint {
	sh, ok := s.Local(paneID)
	if !ok || s.prober == nil {
		return Nothing
	}
	f, err := s.prober.ReadFront(sh.PID)
	switch {
	case err != nil || f.PGID <= 0:
		return Nothing
	case f.PGID != sh.PGID:
		return ProgramChanged
	case f.PGID == sh.PID:
		return AtPrompt
	}
	return Nothing
}

// Probe is a look whether a program, not the shell, is in front of pane's
// local shell, for a preexec nudge's wait; ok is false when the shell is
// not known to run here. After preexec the shell itself is in front
// until the program starts, and its fork, in front before it execs the
// program, is the shell still: a pass then would find no program, and
// none would follow the exec. The look reads only what it captured.
func (s *Shells) Probe(paneID string) (changed func() bool, ok bool) {
	sh, local := s.Local(paneID)
	pr := s.prober
	if !local || pr == nil {
		return nil, false
	}
	return func() bool {
		f, err := pr.ReadFront(sh.PID)
		return err != nil || f.PGID != sh.PID && !f.Forked()
	}, true
}
