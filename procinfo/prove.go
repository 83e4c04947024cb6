package procinfo

import "fmt"

// ProveLocal says whether shellPID, a pane's shell as herdr names it, is
// proven to be that very process on this machine, and why (or why not)
// in words for explain. serverPID is the process serving herdr's socket
// as this machine's kernel names it (SocketPeer).
//
// A pid alone proves nothing: herdr in a container, or on another machine
// behind a forwarded socket, names pids of its own pid namespace, and a
// process here may have any of them. So the proof asks three things:
//   - the socket's server is herdr itself, not a forwarder (socat, ssh)
//     whose pids are not herdr's;
//   - the process here with that pid is shellPID in the server's own pid
//     namespace (Linux: /proc/<pid>/ns/pid and NSpid);
//   - herdr started it: the shell descends from the server (herdr forks
//     each pane's shell itself, through portable-pty), or, after a live
//     handoff that left the shells to a server that is not their parent,
//     the server holds the master of the shell's terminal (Linux).
func ProveLocal(serverPID, shellPID int) (bool, string) {
	switch {
	case serverPID <= 0:
		return false, "the kernel names no process serving herdr's socket: herdr runs in another pid namespace or on another machine"
	case shellPID <= 0:
		return false, "herdr names no shell pid"
	}
	peer := PeerOf(serverPID)
	if !peer.Herdr {
		// A forwarder (socat, ssh) serves the socket of a herdr whose
		// pids are elsewhere's. Only a server of another name that both
		// started the shell and holds its terminal is herdr's stand-in
		// (one embedded in a test, a wrapper): no forwarder does both.
		if ok, why := proveOwnTerminal(serverPID, shellPID); ok {
			return true, why
		}
		return false, fmt.Sprintf("herdr's socket is served by pid %d (%s), not by herdr: a forwarder, and herdr's pids may name processes elsewhere",
			serverPID, peer.name())
	}
	return proveShell(serverPID, shellPID)
}
