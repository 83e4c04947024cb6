package procinfo

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// foregroundPGID asks the kernel for the process's e_tpgid: macOS has no
// /proc, and this is one sysctl.
func foregroundPGID(pid int) (int, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return 0, fmt.Errorf("foreground group of pid %d: sysctl kern.proc.pid: %w", pid, err)
	}
	if kp.Proc.P_pid != int32(pid) {
		return 0, fmt.Errorf("foreground group of pid %d: no such process", pid)
	}
	if kp.Eproc.Tpgid <= 0 {
		return 0, fmt.Errorf("foreground group of pid %d: %w", pid, errors.New("no controlling terminal"))
	}
	return int(kp.Eproc.Tpgid), nil
}

func children(pid int) ([]int, error) { return gopsutilChildren(pid) }
