package procinfo

import (
	"bytes"
	"context"

	"github.com/shirou/gopsutil/v4/process"
	"golang.org/x/sys/unix"
)

// sysctlSource reads a Front with sysctl (kern.proc.pid: comm, parent,
// terminal and its foreground group in one call) and libproc through
// gopsutil for command lines and directories. macOS keeps nothing open
// between reads.
type sysctlSource struct{}

func newFrontSource() (frontSource, error) { return sysctlSource{}, nil }

func (sysctlSource) stat(_, pid int) (Stat, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return Stat{}, err
	}
	if kp.Proc.P_pid != int32(pid) {
		return Stat{}, errGone
	}
	comm := kp.Proc.P_comm[:]
	if i := bytes.IndexByte(comm, 0); i >= 0 {
		comm = comm[:i]
	}
	start := kp.Proc.P_starttime
	st := Stat{Comm: string(comm), State: 'S', PPID: int(kp.Eproc.Ppid), TTY: int(kp.Eproc.Tdev), TPGID: int(kp.Eproc.Tpgid),
		StartTime: uint64(start.Sec)*1e6 + uint64(start.Usec)}
	if kp.Proc.P_stat == sZomb {
		st.State = 'Z'
	}
	return st, nil
}

// readStat reads pid's kinfo_proc once.
func readStat(pid int) (Stat, error) { return sysctlSource{}.stat(0, pid) }

// sZomb is p_stat of a zombie (sys/proc.h SZOMB).
const sZomb = 5

func (sysctlSource) argv(pid int) []string {
	argv, _ := (&process.Process{Pid: int32(pid)}).CmdlineSliceWithContext(context.Background())
	return argv
}

func (sysctlSource) cwd(pid int) string {
	cwd, _ := (&process.Process{Pid: int32(pid)}).CwdWithContext(context.Background())
	return cwd
}

func (sysctlSource) shellVar(pid int) (string, bool) { return gopsutilShellVar(pid) }

func (sysctlSource) children(pid int) ([]int, error) { return gopsutilChildren(pid) }

func (sysctlSource) close() {}
