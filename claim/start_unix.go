//go:build linux || darwin

package claim

import (
	"fmt"

	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// processStart is when pid started, as the kernel keeps it: clock ticks
// since boot on Linux (/proc/<pid>/stat, field 22), microseconds since
// the epoch on macOS (kinfo_proc's p_starttime).
func processStart(pid int) (uint64, error) {
	st, err := procinfo.ReadStat(pid)
	if err != nil {
		return 0, fmt.Errorf("start of pid %d: %w", pid, err)
	}
	if st.StartTime == 0 {
		return 0, fmt.Errorf("start of pid %d: the kernel gave none", pid)
	}
	return st.StartTime, nil
}
