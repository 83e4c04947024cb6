package procinfo

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/shirou/gopsutil/v4/process"
)

// ServerInstance names the process serving the unix socket at path, as
// "<pid>@<start time in ms>": a server restarted at the same path is
// another instance even when the kernel gives it the same pid. It fails
// where the kernel does not name a socket's peer.
func ServerInstance(ctx context.Context, path string) (string, error) {
	pid, err := socketPeerPID(ctx, path)
	if err != nil {
		return "", fmt.Errorf("server instance at %s: %w", path, err)
	}
	p, err := process.NewProcessWithContext(ctx, pid)
	if err != nil {
		return "", fmt.Errorf("server instance at %s: pid %d: %w", path, pid, err)
	}
	ms, err := p.CreateTimeWithContext(ctx)
	if err != nil {
		return "", fmt.Errorf("server instance at %s: start of pid %d: %w", path, pid, err)
	}
	return fmt.Sprintf("%d@%d", pid, ms), nil
}

// InstanceStarted is when the instance's process started, zero when the
// name is not one ServerInstance gives.
func InstanceStarted(instance string) time.Time {
	var pid int32
	var ms int64
	if _, err := fmt.Sscanf(instance, "%d@%d", &pid, &ms); err != nil {
		return time.Time{}
	}
	return time.UnixMilli(ms)
}

// Peer is the process at the other end of a unix socket: herdr's server,
// or a forwarder in front of one.
type Peer struct {
	// PID is the process as this machine's kernel names it: a process of
	// another pid namespace is named by its pid in this one.
	PID  int
	Exe  string // its executable's path, "" when unreadable
	Comm string // its command name, "" when unreadable
	// Herdr says its executable or command name is herdr's. A forwarder
	// (socat, ssh, a relay) serving the socket for a herdr elsewhere is
	// not, and the pids that herdr names are then not this machine's.
	Herdr bool
}

// SocketPeer names the process serving the unix socket at path. It fails
// where the kernel does not name a socket's peer, and when the peer is in
// a pid namespace this process cannot see (the kernel names it pid 0).
func SocketPeer(ctx context.Context, path string) (Peer, error) {
	pid, err := socketPeerPID(ctx, path)
	if err != nil {
		return Peer{}, fmt.Errorf("peer of socket %s: %w", path, err)
	}
	if pid <= 0 {
		return Peer{}, fmt.Errorf("peer of socket %s: in a pid namespace this process cannot see", path)
	}
	return PeerOf(int(pid)), nil
}

// PeerOf names process pid as a socket's peer.
func PeerOf(pid int) Peer {
	ctx := context.Background()
	p := &process.Process{Pid: int32(pid)}
	peer := Peer{PID: pid}
	peer.Exe, _ = p.ExeWithContext(ctx)
	peer.Comm, _ = p.NameWithContext(ctx)
	peer.Herdr = isHerdr(peer.Exe, peer.Comm)
	return peer
}

// name is how a reason names the peer.
func (p Peer) name() string {
	switch {
	case p.Exe != "":
		return p.Exe
	case p.Comm != "":
		return p.Comm
	}
	return "unreadable"
}

// isHerdr says whether an executable path or a command name is herdr's:
// as installed, as NixOS wraps it, or replaced on disk by an upgrade
// while it runs.
func isHerdr(exe, comm string) bool {
	exe = strings.TrimSuffix(exe, " (deleted)")
	e, _ := cleanName(exe)
	c, _ := cleanName(comm)
	return exe != "" && e == "herdr" || c == "herdr"
}

// socketPeerPID dials the unix socket at path and asks the kernel who
// serves it.
func socketPeerPID(ctx context.Context, path string) (int32, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	return peerPID(conn.(*net.UnixConn))
}

// peerPID is the pid of the process at the other end of conn.
func peerPID(conn *net.UnixConn) (int32, error) {
	raw, err := conn.SyscallConn()
	if err != nil {
		return 0, err
	}
	var pid int32
	var pidErr error
	if err := raw.Control(func(fd uintptr) { pid, pidErr = sockPeerPID(int(fd)) }); err != nil {
		return 0, err
	}
	return pid, pidErr
}

// HerdrClients lists this machine's processes that may be herdr's
// clients of the server serverPID (SocketPeer's): those that run the
// server's very executable, other than the server, on a controlling
// terminal whose master the server does not hold, holding no pty master
// themselves. herdr's client runs in the person's terminal (an
// emulator's, tmux's, sshd's), which is never herdr's; herdr's own CLI
// run in a pane (an agent's hook) runs on the pane's terminal, which the
// server holds, and another herdr server holds its panes' masters: both
// are left out. A client of another herdr server run from the same
// executable is in: nothing here tells which server a client speaks to.
//
// It reads /proc once, a stat of each process's executable, so it is for
// a moment that needs it, not for a loop. At most maxClients are listed.
// Where processes cannot be read so (not Linux) it fails with
// errors.ErrUnsupported.
func HerdrClients(serverPID int) ([]int, error) { return herdrClients(serverPID) }

// maxClients bounds the list: a person runs a client or two.
const maxClients = 16
