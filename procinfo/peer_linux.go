package procinfo

import "golang.org/x/sys/unix"

// sockPeerPID is the pid of the process at the other end of the unix
// socket fd.
func sockPeerPID(fd int) (int32, error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return 0, err
	}
	return cred.Pid, nil
}
