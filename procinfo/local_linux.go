package procinfo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// foregroundPGID reads /proc/<pid>/stat into a stack buffer with raw
// syscalls: the daemon calls it for every shell on every poll.
func foregroundPGID(pid int) (int, error) {
	path := "/proc/" + strconv.Itoa(pid) + "/stat"
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, fmt.Errorf("foreground group of pid %d: %w", pid, &fs.PathError{Op: "open", Path: path, Err: err})
	}
	defer syscall.Close(fd)
	var buf [1024]byte
	n := 0
	for n < len(buf) {
		m, err := syscall.Read(fd, buf[n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("foreground group of pid %d: %w", pid, &fs.PathError{Op: "read", Path: path, Err: err})
		}
		if m == 0 {
			break
		}
		n += m
	}
	tpgid, err := parseTPGID(buf[:n])
	if err != nil {
		return 0, fmt.Errorf("foreground group of pid %d: %s: %w", pid, path, err)
	}
	return tpgid, nil
}

// children reads /proc/<pid>/task/<tid>/children, which is what herdr
// itself walks: it costs the process's threads, not every process. Kernels
// without CONFIG_PROC_CHILDREN fall back to gopsutil's full scan.
func children(pid int) ([]int, error) {
	taskDir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(taskDir)
	if err != nil {
		return nil, fmt.Errorf("list children of pid %d: %w", pid, err)
	}
	var kids []int
	for _, t := range tasks {
		data, err := os.ReadFile(taskDir + "/" + t.Name() + "/children")
		if errors.Is(err, fs.ErrNotExist) {
			if _, statErr := os.Stat(taskDir + "/" + t.Name()); statErr == nil {
				return gopsutilChildren(pid) // the kernel has no children files
			}
			continue // the thread ended meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("list children of pid %d: %w", pid, err)
		}
		for _, f := range strings.Fields(string(data)) {
			kid, err := strconv.Atoi(f)
			if err != nil {
				return nil, fmt.Errorf("list children of pid %d: %s/%s/children: bad pid %q", pid, taskDir, t.Name(), f)
			}
			kids = append(kids, kid)
		}
	}
	return kids, nil
}

// ShellVar reads pid's command name and the $SHELL of its environment
// from /proc.
func (local) ShellVar(pid int) (comm, shell string, err error) {
	st, err := readStat(pid)
	if err != nil {
		return "", "", fmt.Errorf("read $SHELL of pid %d: %w", pid, err)
	}
	shell, ok := readShellVar(pid)
	if !ok {
		return "", "", fmt.Errorf("read $SHELL of pid %d: %w", pid, errNoEnviron)
	}
	return st.Comm, shell, nil
}
