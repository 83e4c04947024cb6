//go:build !linux

package testutil

import (
	"os"
	"testing"
	"time"
)

// WaitForeground: without /proc and Linux's ioctls, it gives the shell the
// time a program takes to start on a quiet machine.
func WaitForeground(t testing.TB, tty *os.File, comm string) {
	t.Helper()
	time.Sleep(300 * time.Millisecond)
}

// Foreground cannot look without Linux's /proc.
func Foreground(tty *os.File) string { return "unknown (needs Linux)" }
