//go:build unix

package nudge

import (
	"errors"
	"syscall"
)

// Available is nil where nudges work, else it says why not. Unix has
// datagram sockets.
func Available() error { return nil }

// writeOnce tries to send one datagram without waiting (the socket is
// non-blocking, as Go makes every socket).
func writeOnce(fd uintptr, b []byte) error {
	_, err := syscall.Write(int(fd), b)
	return err
}

// wouldBlock: the receive queue was full.
func wouldBlock(err error) bool { return errors.Is(err, syscall.EAGAIN) }
