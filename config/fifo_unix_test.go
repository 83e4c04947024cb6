//go:build unix

package config

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestConfigFIFOIsRefusedAtOnce: a FIFO at the config file's path is a
// clear error, not a command (nudge from a shell hook included) that hangs.
func TestConfigFIFOIsRefusedAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := Load(path, true); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") || !strings.Contains(err.Error(), path) {
			t.Errorf("loading a FIFO config = %v, want an error naming the path and saying it is not a regular file", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("loading a FIFO config blocked")
	}
}
