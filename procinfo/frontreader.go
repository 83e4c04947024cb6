package procinfo

import (
	"errors"
	"fmt"
	"time"
)

// FrontReader looks at one shell's terminal again and again, for a watch,
// paying as little as a look allows: it keeps the stat files of the shell
// and of the processes in front open between looks (a read of one is a
// pread), a quick look reads one or two of them, and a command line is
// read again only when its process or command name moved, or once it is
// argvMaxAge old. It is not safe for concurrent use.
type FrontReader struct {
	pid  int
	src  frontSource
	last Front
	ok   bool // last holds a look
	// starts are the start times of last's processes, by slot; argvs
	// their command lines as read.
	starts [slots]uint64
	argvs  [slots]argvRead
	// env is the shell's $SHELL as read, and of which process.
	env   envRead
	clock func() time.Time // time.Now when nil
}

// envRead is a $SHELL read, and of which process: an environment changes
// only with an exec, which a new command name or start tells of.
type envRead struct {
	pid   int
	start uint64
	comm  string
	shell string
	ok    bool // the environment was read
}

// argvRead is a command line read, and of which process.
type argvRead struct {
	pid   int
	start uint64
	comm  string
	argv  []string
	at    time.Time
}

// argvMaxAge bounds how long a command line is taken as read: a process
// that execs keeps its pid and usually changes its command name, which a
// look sees at once; one that execs a program of the same name (python3
// running another script) is seen within this long.
const argvMaxAge = 10 * time.Second

// NewFrontReader starts reading shellPID's Front. It fails where this
// platform cannot read one.
func NewFrontReader(shellPID int) (*FrontReader, error) {
	if shellPID <= 0 {
		return nil, fmt.Errorf("look at shell pid %d: not a pid", shellPID)
	}
	src, err := newFrontSource()
	if err != nil {
		return nil, fmt.Errorf("look at shell pid %d: %w", shellPID, err)
	}
	return &FrontReader{pid: shellPID, src: src}, nil
}

// errGone is a stat of a process that has ended.
var errGone = errors.New("process has ended")

// Look reads the shell's Front. A quick look (deep false) reads the stat
// of the process in front (which carries its terminal's group too) and of
// a wrapped child, and the rest only when those moved, else it returns
// the last look; a deep look reads the directories always, and the
// command lines as said of FrontReader. It fails when the shell has
// ended.
func (r *FrontReader) Look(deep bool) (Front, error) {
	now := r.now()
	if r.ok && r.unmoved() {
		r.last.At = now
		if !deep {
			return r.last, nil
		}
		if r.last.Leader.PID == r.pid || r.shellLives() {
			f := r.last
			r.deepen(&f, r.starts, now)
			r.last = f
			return f, nil
		}
	}
	f, starts, err := r.processes()
	if err != nil {
		return Front{}, err
	}
	if !deep && r.ok && f.sameProcesses(r.last) {
		r.last.At = now
		return r.last, nil
	}
	f.At = now
	r.deepen(&f, starts, now)
	r.last, r.starts, r.ok = f, starts, true
	return f, nil
}

// unmoved says whether the processes of the last look are in front still
// under the same names, from one stat read: the leader's (its tpgid is
// its terminal's group), the shell's at its prompt; and the wrapped
// child's.
func (r *FrontReader) unmoved() bool {
	last := r.last
	pid, slot, comm := last.Leader.PID, slotLeader, last.Leader.Comm
	if pid == 0 || pid == r.pid {
		pid, slot, comm = r.pid, slotShell, last.ShellComm
	}
	st, err := r.src.stat(slot, pid)
	if err != nil || st.State == 'Z' || max(st.TPGID, 0) != last.PGID || st.Comm != comm {
		return false
	}
	if last.Child.PID > 0 {
		cs, err := r.src.stat(slotChild, last.Child.PID)
		if err != nil || cs.State == 'Z' || cs.Comm != last.Child.Comm || cs.PPID != last.Leader.PID {
			return false
		}
	}
	return true
}

// shellLives says whether the shell is there still, when unmoved did not
// read it: a deep look tells of a shell that ended under a program that
// outlives it.
func (r *FrontReader) shellLives() bool {
	st, err := r.src.stat(slotShell, r.pid)
	return err == nil && st.State != 'Z'
}

// processes reads which processes are in front, and their command names
// and start times: the shell's stat, the leader's and the wrapped child's
// of the last look, if it is still the leader's.
func (r *FrontReader) processes() (Front, [slots]uint64, error) {
	var starts [slots]uint64
	st, err := r.src.stat(slotShell, r.pid)
	if err == nil && st.State == 'Z' {
		err = errGone // ended, its parent has not reaped it yet
	}
	if err != nil {
		return Front{}, starts, fmt.Errorf("look at shell pid %d: %w", r.pid, err)
	}
	f := Front{ShellPID: r.pid, PGID: max(st.TPGID, 0), ShellComm: st.Comm}
	starts[slotShell] = st.StartTime
	switch {
	case f.PGID == r.pid:
		f.Leader = FrontProc{PID: r.pid, Comm: st.Comm}
		starts[slotLeader] = st.StartTime
	case f.PGID > 0:
		if ls, err := r.src.stat(slotLeader, f.PGID); err == nil && ls.State != 'Z' {
			f.Leader = FrontProc{PID: f.PGID, Comm: ls.Comm}
			starts[slotLeader] = ls.StartTime
		}
	}
	if c := r.last.Child.PID; r.ok && c > 0 && r.last.Leader.PID == f.Leader.PID && f.Leader.PID != r.pid {
		if cs, err := r.src.stat(slotChild, c); err == nil && cs.State != 'Z' && cs.PPID == f.Leader.PID {
			f.Child = FrontProc{PID: c, Comm: cs.Comm}
			starts[slotChild] = cs.StartTime
		}
	}
	return f, starts, nil
}

// deepen reads what a quick look leaves out: command lines, directories
// and a wrapper's newest child.
func (r *FrontReader) deepen(f *Front, starts [slots]uint64, now time.Time) {
	f.ShellArgv = r.argv(slotShell, r.pid, starts[slotShell], f.ShellComm, now)
	f.ShellCwd = r.src.cwd(r.pid)
	f.Child = FrontProc{}
	f.EnvShell = ""
	switch {
	case f.Leader.PID == r.pid:
		f.Leader.Argv, f.Leader.Cwd = f.ShellArgv, f.ShellCwd
		f.EnvShell = r.envShell(starts[slotShell], f.ShellComm)
	case f.Leader.PID > 0:
		f.Leader.Argv = r.argv(slotLeader, f.Leader.PID, starts[slotLeader], f.Leader.Comm, now)
		f.Leader.Cwd = r.src.cwd(f.Leader.PID)
		if wraps(f.Leader.Argv) {
			f.Child = r.newestChild(f.Leader.PID, now)
		}
	}
}

// argv is the command line of the process in slot, read again when the
// process or its name moved or the last read is argvMaxAge old, or found
// none: a process in the middle of its exec shows its new name before its
// new command line.
func (r *FrontReader) argv(slot, pid int, start uint64, comm string, now time.Time) []string {
	a := &r.argvs[slot]
	if a.pid == pid && a.start == start && a.comm == comm && len(a.argv) > 0 && now.Sub(a.at) < argvMaxAge {
		return a.argv
	}
	*a = argvRead{pid: pid, start: start, comm: comm, argv: r.src.argv(pid), at: now}
	return a.argv
}

// envShell is the shell's $SHELL, read again when the process or its
// name moved, or the last read found no environment (a process in the
// middle of its exec shows its new name before its new environment).
func (r *FrontReader) envShell(start uint64, comm string) string {
	e := &r.env
	if e.pid != r.pid || e.start != start || e.comm != comm || !e.ok {
		*e = envRead{pid: r.pid, start: start, comm: comm}
		e.shell, e.ok = r.src.shellVar(r.pid)
	}
	return e.shell
}

// newestChild reads the child of leader that started last: the one a
// wrapper runs now (`make; vim` runs vim once make has ended).
func (r *FrontReader) newestChild(leader int, now time.Time) FrontProc {
	kids, err := r.src.children(leader)
	if err != nil || len(kids) == 0 {
		return FrontProc{}
	}
	best, bestStart := 0, uint64(0)
	for _, k := range kids {
		st, err := r.src.stat(slotScratch, k)
		if err == nil && st.State != 'Z' && (best == 0 || st.StartTime > bestStart || st.StartTime == bestStart && k > best) {
			best, bestStart = k, st.StartTime
		}
	}
	if best == 0 {
		return FrontProc{}
	}
	st, err := r.src.stat(slotChild, best)
	if err != nil {
		return FrontProc{}
	}
	return FrontProc{PID: best, Comm: st.Comm, Argv: r.argv(slotChild, best, st.StartTime, st.Comm, now), Cwd: r.src.cwd(best)}
}

func (r *FrontReader) now() time.Time {
	if r.clock != nil {
		return r.clock()
	}
	return time.Now()
}

// Close releases the files the reader keeps open.
func (r *FrontReader) Close() { r.src.close() }

// wraps says whether a process running argv only wraps the real program,
// by the rules the Resolver names programs with.
func wraps(argv []string) bool {
	return len(argv) > 0 && (&Resolver{}).resolveArgv(argv, nil).wrapper
}

// Slots of a frontSource: the processes whose stat it keeps open.
const (
	slotShell = iota
	slotLeader
	slotChild
	slotScratch // read once, for picking a wrapper's newest child
	slots
)

// frontSource reads the facts of a Front on one platform.
type frontSource interface {
	// stat reads pid's stat, keeping what it opened for the next read
	// of the same pid in the same slot; errGone (wrapped) once it ended.
	stat(slot, pid int) (Stat, error)
	argv(pid int) []string
	cwd(pid int) string
	// shellVar reads pid's $SHELL ("" when unset); false when its
	// environment cannot be read or is empty.
	shellVar(pid int) (string, bool)
	children(pid int) ([]int, error)
	close()
}
