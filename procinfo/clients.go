package procinfo

// HerdrClients lists this machine's processes that may be herdr's
// clients of the server serverPID (SocketPeer's): those that run the
// server's very executable, other than the server, on a controlling
// terminal whose master the server does not hold. herdr's client runs
// in the person's terminal (an emulator's, tmux's, sshd's), which is
// never herdr's; herdr's own CLI run in a pane (an agent's hook) runs on
// the pane's terminal, which the server holds, and is left out. A client
// of another herdr server run from the same executable is in: nothing
// here tells which server a client speaks to.
//
// It reads /proc once, a stat of each process's executable, so it is for
// a moment that needs it, not for a loop. At most maxClients are listed.
// Where processes cannot be read so (not Linux) it fails with
// errors.ErrUnsupported.
func HerdrClients(serverPID int) ([]int, error) { return herdrClients(serverPID) }

// maxClients bounds the list: a person runs a client or two.
const maxClients = 16
