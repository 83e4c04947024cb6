//go:build windows

package herdrsim

import "golang.org/x/sys/windows"

// peek looks at what has arrived without consuming it. Winsock has no
// per-call MSG_DONTWAIT, so on Windows the peek blocks and the simulator
// plays herdr without its 100 ms request-read poll; nonblock is ignored.
func peek(fd uintptr, buf []byte, nonblock bool) (int, error) {
	n, _, err := windows.Recvfrom(windows.Handle(fd), buf, windows.MSG_PEEK)
	return n, err
}
