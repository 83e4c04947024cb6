package claim

import (
	"fmt"

	"golang.org/x/sys/windows"
)

// processStart is when pid started, as the kernel keeps it: its creation
// time (GetProcessTimes), in 100-nanosecond intervals since 1601.
func processStart(pid int) (uint64, error) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return 0, fmt.Errorf("start of pid %d: %w", pid, err)
	}
	defer windows.CloseHandle(h)
	// A process that ended keeps its pid while a handle to it is open.
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return 0, fmt.Errorf("start of pid %d: %w", pid, err)
	}
	if code != stillActive {
		return 0, fmt.Errorf("start of pid %d: the process has ended", pid)
	}
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return 0, fmt.Errorf("start of pid %d: %w", pid, err)
	}
	return uint64(created.HighDateTime)<<32 | uint64(created.LowDateTime), nil
}

// stillActive is the exit code of a process that runs (STILL_ACTIVE).
const stillActive = 259
