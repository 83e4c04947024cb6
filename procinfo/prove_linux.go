package procinfo

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// proveShell on Linux: the shell is herdr's pid in herdr's pid namespace,
// and descends from the server or runs on a terminal whose master the
// server holds.
func proveShell(server, shell int) (bool, string) {
	if ok, why := samePIDSpace(server, shell); !ok {
		return false, why
	}
	if descends(shell, server) {
		return true, fmt.Sprintf("shell pid %d descends from herdr's server (pid %d)", shell, server)
	}
	if pts, ok := heldTerminal(server, shell); ok {
		return true, fmt.Sprintf("herdr's server (pid %d) holds the terminal of shell pid %d (pty %d)", server, shell, pts)
	}
	return false, fmt.Sprintf("shell pid %d neither descends from herdr's server (pid %d) nor runs on a terminal it holds", shell, server)
}

// proveOwnTerminal on Linux: the shell is the server's pid, descends from
// it and runs on a terminal whose master it holds.
func proveOwnTerminal(server, shell int) (bool, string) {
	if ok, _ := samePIDSpace(server, shell); !ok || !descends(shell, server) {
		return false, ""
	}
	if pts, ok := heldTerminal(server, shell); ok {
		return true, fmt.Sprintf("shell pid %d descends from the server of herdr's socket (pid %d), which holds its terminal (pty %d)", shell, server, pts)
	}
	return false, ""
}

func parentOf(pid int) (int, error) {
	st, err := readStat(pid)
	return st.PPID, err
}

// samePIDSpace says whether the process here with pid shell is pid shell
// in the server's pid namespace too, which is where herdr's pids are
// numbered.
func samePIDSpace(server, shell int) (bool, string) {
	if self, err := os.Readlink("/proc/self"); err != nil || self != strconv.Itoa(os.Getpid()) {
		return false, "this process's /proc belongs to another pid namespace than its own"
	}
	nsServer, err := os.Readlink(procPath(server, "ns/pid"))
	if err != nil {
		return false, fmt.Sprintf("the pid namespace of herdr's server (pid %d) is unreadable: %v", server, err)
	}
	nsShell, err := os.Readlink(procPath(shell, "ns/pid"))
	if errors.Is(err, os.ErrNotExist) {
		return false, fmt.Sprintf("no process has pid %d here", shell)
	}
	if err != nil {
		return false, fmt.Sprintf("the pid namespace of pid %d is unreadable: %v", shell, err)
	}
	if nsShell != nsServer {
		return false, fmt.Sprintf("pid %d here runs in another pid namespace than herdr's server (pid %d): herdr's pid %d is another process",
			shell, server, shell)
	}
	if nsSelf, err := os.Readlink("/proc/self/ns/pid"); err == nil && nsSelf == nsServer {
		return true, ""
	}
	// herdr runs in a pid namespace below this one: the process here
	// with pid shell has another pid there.
	if inner, err := innermostPID(shell); err != nil || inner != shell {
		return false, fmt.Sprintf("pid %d here is not pid %d in herdr's pid namespace (%d, %v)", shell, shell, inner, err)
	}
	return true, ""
}

// innermostPID is pid's pid in its own pid namespace, from the NSpid line
// of its status.
func innermostPID(pid int) (int, error) {
	var buf [2048]byte
	data, err := readProc(procPath(pid, "status"), buf[:], 16<<10)
	if err != nil {
		return 0, err
	}
	for line := range bytes.Lines(data) {
		if rest, ok := bytes.CutPrefix(line, []byte("NSpid:")); ok {
			f := strings.Fields(string(rest))
			if len(f) == 0 {
				break
			}
			return strconv.Atoi(f[len(f)-1])
		}
	}
	return 0, errors.New("no NSpid line (a kernel before 4.1)")
}

// ptsMajor is the device major of Unix98 pty slaves: /dev/pts/N is minor
// N.
const ptsMajor = 136

// heldTerminal says whether the server holds the master of the shell's
// controlling terminal, and which pty that is: herdr hands its panes'
// masters to the server that takes over in a live handoff, which is no
// parent of the shells.
func heldTerminal(server, shell int) (int, bool) {
	st, err := readStat(shell)
	if err != nil || st.TTY == 0 {
		return 0, false
	}
	if unix.Major(uint64(st.TTY)) != ptsMajor {
		return 0, false
	}
	pts := int(unix.Minor(uint64(st.TTY)))
	fds, err := procNames(procPath(server, "fd"))
	if err != nil {
		return 0, false
	}
	want := []byte("tty-index:\t" + strconv.Itoa(pts) + "\n")
	for _, fd := range fds {
		if target, err := os.Readlink(procPath(server, "fd/"+fd)); err != nil || !strings.HasSuffix(target, "/ptmx") {
			continue
		}
		var buf [512]byte
		info, err := readProc(procPath(server, "fdinfo/"+fd), buf[:], 4096)
		if err == nil && bytes.Contains(info, want) {
			return pts, true
		}
	}
	return 0, false
}
