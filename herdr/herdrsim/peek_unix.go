//go:build unix

package herdrsim

import "syscall"

// peek looks at what has arrived on the socket without consuming it; with
// nonblock it answers EAGAIN at once when nothing is there, which is how
// herdr's request-read poll sees an empty socket.
func peek(fd uintptr, buf []byte, nonblock bool) (int, error) {
	flags := syscall.MSG_PEEK
	if nonblock {
		flags |= syscall.MSG_DONTWAIT
	}
	n, _, err := syscall.Recvfrom(int(fd), buf, flags)
	return n, err
}
