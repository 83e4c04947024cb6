package procinfo

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/shirou/gopsutil/v4/process"
)

// ServerInstance names the process serving the unix socket at path, as
// "<pid>@<start time in ms>": a server restarted at the same path is
// another instance even when the kernel gives it the same pid. It fails
// where the kernel does not name a socket's peer.
func ServerInstance(ctx context.Context, path string) (string, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return "", fmt.Errorf("server instance at %s: %w", path, err)
	}
	defer conn.Close()
	pid, err := peerPID(conn.(*net.UnixConn))
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
