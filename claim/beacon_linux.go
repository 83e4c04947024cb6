package claim

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// listenBeacon binds an abstract Unix socket named after our uid and the
// server id. Unlike a lock file it lives in no directory, so wiping the
// runtime dir or starting with another $XDG_RUNTIME_DIR cannot hide a
// running daemon from the next one. A name held by another user (anyone
// can bind an abstract name) is not ours to respect: we go on without a
// beacon, the lock file still guards us.
func listenBeacon(id string) (net.Listener, error) {
	name := "@herdrtabrenamer/" + strconv.Itoa(os.Geteuid()) + "/" + id
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: name, Net: "unix"})
	if err == nil {
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		return ln, nil
	}
	if !errors.Is(err, syscall.EADDRINUSE) {
		return nil, nil // no abstract namespace here: the lock file is enough
	}
	conn, derr := net.DialUnix("unix", nil, &net.UnixAddr{Name: name, Net: "unix"})
	if derr != nil {
		return nil, nil // the holder just went away
	}
	defer conn.Close()
	raw, err := conn.SyscallConn()
	if err != nil {
		return nil, nil
	}
	var cred *unix.Ucred
	_ = raw.Control(func(fd uintptr) {
		cred, _ = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	})
	if cred == nil || int(cred.Uid) != os.Geteuid() {
		return nil, nil
	}
	return nil, fmt.Errorf("%w: pid %d serves this herdr server", ErrAlreadyRunning, cred.Pid)
}
