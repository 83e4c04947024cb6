package procinfo

import (
	"bytes"
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

// ShellVar reads pid's command name (sysctl kern.proc.pid, as a look at
// a terminal does) and the $SHELL of its environment (libproc, through
// gopsutil).
func (local) ShellVar(pid int) (comm, shell string, err error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return "", "", fmt.Errorf("read $SHELL of pid %d: %w", pid, err)
	}
	if kp.Proc.P_pid != int32(pid) {
		return "", "", fmt.Errorf("read $SHELL of pid %d: %w", pid, errGone)
	}
	name := kp.Proc.P_comm[:]
	if i := bytes.IndexByte(name, 0); i >= 0 {
		name = name[:i]
	}
	shell, ok := gopsutilShellVar(pid)
	if !ok {
		return "", "", fmt.Errorf("read $SHELL of pid %d: %w", pid, errNoEnviron)
	}
	return string(name), shell, nil
}
