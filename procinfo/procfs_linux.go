package procinfo

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// Raw reads of /proc: open, read and close with no buffering and no
// os.File, as a watch that reads them many times a second wants; and no
// FIFO can be met there.

// procPath is /proc/<pid>/<name>.
func procPath(pid int, name string) string {
	return "/proc/" + strconv.Itoa(pid) + "/" + name
}

// maxArgv bounds a command line read: the name and {args} need its first
// words, and a process's argv can be megabytes.
const maxArgv = 64 << 10

// readProc reads a /proc file into buf, growing it up to limit bytes.
func readProc(path string, buf []byte, limit int) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, goneOr(err)
	}
	defer unix.Close(fd)
	n := 0
	for {
		if n == len(buf) {
			if len(buf) >= limit {
				return buf[:n], nil
			}
			buf = append(buf, make([]byte, min(len(buf)+512, limit-len(buf)))...)
		}
		m, err := unix.Read(fd, buf[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, goneOr(err)
		}
		if m == 0 {
			return buf[:n], nil
		}
		n += m
	}
}

// goneOr turns the errors of a process that has ended into errGone.
func goneOr(err error) error {
	if errors.Is(err, unix.ESRCH) || errors.Is(err, unix.ENOENT) {
		return fmt.Errorf("%w (%w)", errGone, err)
	}
	return err
}

// readArgv reads /proc/<pid>/cmdline: nil for a zombie, a kernel thread
// or a process that ended.
func readArgv(pid int) []string {
	var buf [512]byte
	data, err := readProc(procPath(pid, "cmdline"), buf[:], maxArgv)
	if err != nil || len(data) == 0 {
		return nil
	}
	data = bytes.TrimSuffix(data, []byte{0})
	var argv []string
	for w := range bytes.SplitSeq(data, []byte{0}) {
		argv = append(argv, string(w))
	}
	return argv
}

// readCwd reads /proc/<pid>/cwd: "" when it cannot be read.
func readCwd(pid int) string {
	cwd, _ := os.Readlink(procPath(pid, "cwd"))
	return cwd
}

// readStat reads /proc/<pid>/stat once.
func readStat(pid int) (Stat, error) {
	var buf [1024]byte
	data, err := readProc(procPath(pid, "stat"), buf[:], len(buf))
	if err != nil {
		return Stat{}, err
	}
	return ParseStat(data)
}

// procNames lists the entries of a /proc folder.
func procNames(dir string) ([]string, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, goneOr(err)
	}
	defer unix.Close(fd)
	var names []string
	buf := make([]byte, 8192)
	for {
		n, err := unix.ReadDirent(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, goneOr(err)
		}
		if n == 0 {
			return names, nil
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
}

// readShellVar reads SHELL from /proc/<pid>/environ; false when the
// environment cannot be read (another user's process, one that ended) or
// is empty, as it is for a moment in the middle of an exec, after the new
// command name shows.
func readShellVar(pid int) (string, bool) {
	var buf [4096]byte
	env, err := readProc(procPath(pid, "environ"), buf[:], maxEnviron)
	if err != nil || len(env) == 0 {
		return "", false
	}
	return shellVarIn(env), true
}

// maxEnviron bounds what is read of a process's environment: $SHELL is
// among the variables a login set first, and an environment can be
// megabytes.
const maxEnviron = 256 << 10

// shellVarIn is the value of SHELL in env, a process's environment as
// the kernel keeps it (NUL-separated NAME=value); "" when it has none.
func shellVarIn(env []byte) string {
	for kv := range bytes.SplitSeq(env, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte("SHELL=")); ok {
			return string(v)
		}
	}
	return ""
}
