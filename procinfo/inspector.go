package procinfo

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/shirou/gopsutil/v4/process"
)

// Proc is what the Inspector knows of one local process.
type Proc struct {
	PID  int
	Argv []string // empty for zombies and kernel threads
	Cwd  string   // "" when unreadable (another user's process)
	Name string   // comm, read only when Argv is empty
}

// Inspector reads local processes. Local is the real one; tests fake it.
type Inspector interface {
	// ForegroundPGID reads the foreground process group of shellPID's
	// terminal (tpgid) without asking herdr, so the daemon can notice a
	// program start or exit cheaply.
	ForegroundPGID(shellPID int) (int, error)
	// Process returns the argv and cwd of a pid.
	Process(pid int) (Proc, error)
	// Children returns a pid's child pids, sorted.
	Children(pid int) ([]int, error)
}

// errNoEnviron: a process's environment could not be read, or was empty.
var errNoEnviron = errors.New("no environment to read")

// Local returns the Inspector of this machine: direct /proc reads on Linux
// where they are cheap, gopsutil v4 elsewhere and as the fallback.
func Local() Inspector { return localInspector() }

type local struct{}

func (local) ForegroundPGID(shellPID int) (int, error) {
	if shellPID <= 0 {
		return 0, fmt.Errorf("foreground group of pid %d: not a pid", shellPID)
	}
	return foregroundPGID(shellPID)
}

// Process uses a fresh gopsutil struct per call: gopsutil caches names per
// struct, which go stale after an exec, and the literal skips NewProcess's
// existence check and boot-time read.
func (local) Process(pid int) (Proc, error) {
	ctx := context.Background()
	p := &process.Process{Pid: int32(pid)}
	argv, err := p.CmdlineSliceWithContext(ctx)
	if err != nil {
		return Proc{}, fmt.Errorf("read argv of pid %d: %w", pid, err)
	}
	proc := Proc{PID: pid, Argv: argv}
	// A root program under sudo hides its cwd from us: not an error.
	proc.Cwd, _ = p.CwdWithContext(ctx)
	if len(argv) == 0 {
		proc.Name, _ = p.NameWithContext(ctx)
	}
	return proc, nil
}

func (local) Children(pid int) ([]int, error) {
	kids, err := children(pid)
	if err != nil {
		return nil, err
	}
	slices.Sort(kids)
	return kids, nil
}

// gopsutilChildren scans every process (O(all processes)): the fallback
// where the kernel offers no per-task children list.
func gopsutilChildren(pid int) ([]int, error) {
	ps, err := (&process.Process{Pid: int32(pid)}).ChildrenWithContext(context.Background())
	if err != nil {
		return nil, fmt.Errorf("list children of pid %d: %w", pid, err)
	}
	kids := make([]int, 0, len(ps))
	for _, c := range ps {
		kids = append(kids, int(c.Pid))
	}
	return kids, nil
}
