//go:build !linux && !darwin && !windows

package procinfo

import (
	"context"
	"fmt"

	"github.com/shirou/gopsutil/v4/process"
)

// ShellVar reads pid's command name and the $SHELL of its environment
// through gopsutil.
func (local) ShellVar(pid int) (comm, shell string, err error) {
	comm, err = (&process.Process{Pid: int32(pid)}).NameWithContext(context.Background())
	if err != nil {
		return "", "", fmt.Errorf("read $SHELL of pid %d: %w", pid, err)
	}
	shell, ok := gopsutilShellVar(pid)
	if !ok {
		return "", "", fmt.Errorf("read $SHELL of pid %d: %w", pid, errNoEnviron)
	}
	return comm, shell, nil
}
