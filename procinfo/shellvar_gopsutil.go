//go:build !linux && !windows

package procinfo

import (
	"context"
	"strings"

	"github.com/shirou/gopsutil/v4/process"
)

// gopsutilShellVar reads SHELL from pid's environment through gopsutil;
// false when the environment cannot be read or is empty.
func gopsutilShellVar(pid int) (string, bool) {
	env, err := (&process.Process{Pid: int32(pid)}).EnvironWithContext(context.Background())
	if err != nil || len(env) == 0 {
		return "", false
	}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "SHELL="); ok {
			return v, true
		}
	}
	return "", true
}
