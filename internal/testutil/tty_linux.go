//go:build linux

package testutil

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// WaitForeground waits until the program named comm runs in the
// foreground of the terminal whose pty master is tty, with the line
// discipline in canonical mode. Only then is a Ctrl-D typed into tty an
// end of input for it: a byte that arrives while the shell still has the
// terminal raw (its line editor) is an ordinary character, and a shell
// that sets the program's modes with TCSAFLUSH drops what came before.
// The preexec hook runs before either has happened.
func WaitForeground(t testing.TB, tty *os.File, comm string) {
	t.Helper()
	var seen string
	WaitFor(t, fmt.Sprintf("%s in the terminal's foreground, in canonical mode", comm), func() bool {
		seen = Foreground(tty)
		return seen == comm+" canonical"
	}, func() string { return "foreground: " + seen })
}

// Foreground says which program leads the foreground process group of the
// terminal whose pty master is tty and whether the terminal is in
// canonical mode ("sleep canonical", "zsh raw"), or what failed. The
// termios and process group ioctls on a pty master answer for its slave.
func Foreground(tty *os.File) string {
	rc, err := tty.SyscallConn()
	if err != nil {
		return err.Error()
	}
	var pgrp int
	var tio *unix.Termios
	var ierr error
	if err := rc.Control(func(fd uintptr) {
		if pgrp, ierr = unix.IoctlGetInt(int(fd), unix.TIOCGPGRP); ierr != nil {
			return
		}
		tio, ierr = unix.IoctlGetTermios(int(fd), unix.TCGETS)
	}); err != nil {
		return err.Error()
	}
	if ierr != nil {
		return ierr.Error()
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pgrp))
	if err != nil {
		return err.Error()
	}
	mode := "raw"
	if tio.Lflag&unix.ICANON != 0 {
		mode = "canonical"
	}
	return strings.TrimSpace(string(b)) + " " + mode
}
