//go:build unix

package sshhosts

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// A FIFO at the config's path, or at a file an Include names, is no
// config: reading one would block the daemon's pass for as long as no
// one writes to it (and SIGTERM waits for the pass). The names stay what
// they were, and Display answers at once.
func TestFIFOConfigDoesNotBlock(t *testing.T) {
	for _, tc := range []struct{ name, config string }{
		{"the config", ""},
		{"an included file", "Include fifo\nHost zmb\n  HostName 10.0.0.7\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "config")
			fifo := path
			if tc.config != "" {
				fifo = filepath.Join(dir, "fifo")
				if err := os.WriteFile(path, []byte(tc.config), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			a := New(path)
			done := make(chan string, 1)
			go func() { done <- a.Display("10.0.0.7") }()
			select {
			case got := <-done:
				if got != "10.0.0.7" {
					t.Errorf("Display = %q with an unreadable config, want the host as typed", got)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Display blocked on a FIFO in the ssh config")
			}
		})
	}
}
