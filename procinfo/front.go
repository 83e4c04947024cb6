package procinfo

import (
	"slices"
	"time"
)

// Front is what one look at a local shell's terminal read: the shell, the
// terminal's foreground process group and its leader, and, when that
// leader only wraps the real program (a shell running -c), the leader's
// newest child. It is everything a tab name is made of on this machine,
// read once, so that the reader and whoever names the program from it
// (Resolver.FromFront) agree on one moment.
//
// A FrontReader's quick look carries command lines and directories over
// from its last deep one while the processes in front keep their names.
// Its slices are shared by every copy: do not modify them.
type Front struct {
	ShellPID int
	// PGID is the terminal's foreground process group (tpgid); 0 when the
	// shell has no terminal.
	PGID int
	// ShellComm is the shell process's command name now: a shell that
	// ran `exec prog` is prog's. ShellArgv and ShellCwd are its command
	// line and directory, nil and "" when they could not be read.
	ShellComm string
	ShellArgv []string
	ShellCwd  string
	// EnvShell is the $SHELL the process at ShellPID was started with,
	// read while it leads the foreground group: what tells the shell
	// from a program it exec'd (Resolver.FromFront). "" when unset, not
	// read or unreadable.
	EnvShell string
	// Leader is the foreground group's leader: the shell itself at its
	// prompt. Zero when the group has a leader no more (the first stage
	// of a pipeline ended).
	Leader FrontProc
	// Child is the leader's newest child when the leader wraps the real
	// program (`sh -c 'make; vim'`), else zero.
	Child FrontProc
	// At is when the look read it, by the reader's clock: of two looks
	// at one terminal, the later one is true (Equal ignores it).
	At time.Time
}

// FrontProc is one process of a Front.
type FrontProc struct {
	PID  int
	Comm string   // the kernel's command name (15 bytes at most on Linux)
	Argv []string // nil when unreadable (a zombie)
	Cwd  string   // "" when unreadable (another user's process)
}

// Cwd is the directory of the process in front: the wrapped child's, else
// the leader's, else the shell's.
func (f Front) Cwd() string {
	switch {
	case f.Child.PID > 0 && f.Child.Cwd != "":
		return f.Child.Cwd
	case f.Leader.PID > 0 && f.Leader.Cwd != "":
		return f.Leader.Cwd
	}
	return f.ShellCwd
}

// Forked says whether the leader in front is the shell's own fork that
// has not run its program yet: a process of its own with the shell's
// command name and command line. A program starting shows so for a moment
// before its exec.
func (f Front) Forked() bool {
	l := f.Leader
	return l.PID > 0 && l.PID != f.ShellPID && l.Comm == f.ShellComm &&
		len(f.ShellArgv) > 0 && slices.Equal(l.Argv, f.ShellArgv)
}

// LeaderKnown says whether the look tells what leads the foreground
// group: the leader lives and shows a command line or a name. When it
// does not (a pipeline whose leader exited), herdr, which sees the whole
// group, can tell more.
func (f Front) LeaderKnown() bool {
	return f.Leader.PID > 0 && (len(f.Leader.Argv) > 0 || f.Leader.Comm != "")
}

// Equal says whether two looks read the same.
func (f Front) Equal(g Front) bool {
	return f.ShellPID == g.ShellPID && f.PGID == g.PGID && f.ShellComm == g.ShellComm &&
		f.ShellCwd == g.ShellCwd && slices.Equal(f.ShellArgv, g.ShellArgv) && f.EnvShell == g.EnvShell &&
		f.Leader.equal(g.Leader) && f.Child.equal(g.Child)
}

func (p FrontProc) equal(q FrontProc) bool {
	return p.PID == q.PID && p.Comm == q.Comm && p.Cwd == q.Cwd && slices.Equal(p.Argv, q.Argv)
}

// sameProcesses says whether two looks found the same processes under the
// same names: what a quick look reads.
func (f Front) sameProcesses(g Front) bool {
	return f.ShellPID == g.ShellPID && f.PGID == g.PGID && f.ShellComm == g.ShellComm &&
		f.Leader.PID == g.Leader.PID && f.Leader.Comm == g.Leader.Comm &&
		f.Child.PID == g.Child.PID && f.Child.Comm == g.Child.Comm
}

// Shell is a pane's shell proven to run on this machine: its pid, and
// the foreground group last seen in front of it.
type Shell struct{ PID, PGID int }

// Prober is what an Inspector of this machine's own processes offers
// beyond the Inspector: one look at a shell's terminal, and the proof
// that a shell herdr names is a process here. Local() has it where the
// kernel allows; callers check with a type assertion.
type Prober interface {
	// ReadFront looks at shellPID's terminal once (see ReadFront).
	ReadFront(shellPID int) (Front, error)
	// ProveLocal says whether herdr's shellPID is a process here (see
	// ProveLocal).
	ProveLocal(serverPID, shellPID int) (bool, string)
}

func (local) ReadFront(shellPID int) (Front, error) { return ReadFront(shellPID) }

func (local) ProveLocal(serverPID, shellPID int) (bool, string) {
	return ProveLocal(serverPID, shellPID)
}

// ReadFront looks at a local shell's terminal once: on Linux one pass
// over /proc, on macOS sysctl and libproc.
func ReadFront(shellPID int) (Front, error) {
	r, err := NewFrontReader(shellPID)
	if err != nil {
		return Front{}, err
	}
	defer r.Close()
	return r.Look(true)
}
