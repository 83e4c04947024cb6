package procinfo

import "golang.org/x/sys/unix"

// sockPeerPID is the pid of the process at the other end of the unix
// socket fd.
func sockPeerPID(fd int) (int32, error) {
	pid, err := unix.GetsockoptInt(fd, unix.SOL_LOCAL, unix.LOCAL_PEERPID)
	return int32(pid), err
}
