package procinfo

import "fmt"

// proveShell on macOS, which has one pid space: the shell descends from
// herdr's server. A server that took its panes over in a live handoff is
// no parent of theirs, and macOS shows no other process's files: such
// panes go unproven, and their programs come from herdr.
func proveShell(server, shell int) (bool, string) {
	if descends(shell, server) {
		return true, fmt.Sprintf("shell pid %d descends from herdr's server (pid %d)", shell, server)
	}
	return false, fmt.Sprintf("shell pid %d does not descend from herdr's server (pid %d)", shell, server)
}

// proveOwnTerminal: macOS shows no other process's files, so no server
// but herdr itself is trusted.
func proveOwnTerminal(int, int) (bool, string) { return false, "" }

func parentOf(pid int) (int, error) {
	st, err := sysctlSource{}.stat(slotScratch, pid)
	return st.PPID, err
}
