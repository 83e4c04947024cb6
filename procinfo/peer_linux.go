package procinfo

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// sockPeerPID is the pid of the process at the other end of the unix
// socket fd.
func sockPeerPID(fd int) (int32, error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return 0, err
	}
	return cred.Pid, nil
}

// herdrClients on Linux: a stat of every /proc/<pid>/exe (the executable
// itself, even one replaced on disk since), compared with the server's.
// Processes of other users answer EACCES and are passed over.
func herdrClients(server int) ([]int, error) {
	if server <= 0 {
		return nil, fmt.Errorf("herdr's clients: no server pid")
	}
	var exe unix.Stat_t
	if err := unix.Stat(procPath(server, "exe"), &exe); err != nil {
		return nil, fmt.Errorf("herdr's clients: executable of server pid %d: %w", server, err)
	}
	names, err := procNames("/proc")
	if err != nil {
		return nil, fmt.Errorf("herdr's clients: %w", err)
	}
	var out []int
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid == server {
			continue
		}
		var st unix.Stat_t
		if unix.Stat(procPath(pid, "exe"), &st) != nil || st.Dev != exe.Dev || st.Ino != exe.Ino {
			continue
		}
		if s, err := readStat(pid); err != nil || s.TTY == 0 || s.State == 'Z' {
			continue
		}
		if _, held := heldTerminal(server, pid); held || hostsTerminals(pid) {
			continue // herdr's CLI in one of its panes; another server
		}
		if out = append(out, pid); len(out) == maxClients {
			break
		}
	}
	return out, nil
}

// hostsTerminals says whether pid holds the master of a pty, as a herdr
// server holds its panes' and a client never does: another server, run
// in the foreground of a terminal, is no client.
func hostsTerminals(pid int) bool {
	fds, err := procNames(procPath(pid, "fd"))
	if err != nil {
		return false
	}
	for _, fd := range fds {
		if target, err := os.Readlink(procPath(pid, "fd/"+fd)); err == nil && strings.HasSuffix(target, "/ptmx") {
			return true
		}
	}
	return false
}
