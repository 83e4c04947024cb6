//go:build unix

package main

import (
	"github.com/herdrtabrenamer/herdrtabrenamer/claim"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
)

// TestStatusDoesNotBlockOnAFIFOLock: a FIFO where the daemon's instance
// lock belongs is no running daemon, said at once.
func TestStatusDoesNotBlockOnAFIFOLock(t *testing.T) {
	statusSetup(t)
	if _, err := rundir.Dir(); err != nil {
		t.Fatal(err)
	}
	lock := claim.InstanceLockPath(os.Getenv("HERDR_SOCKET_PATH"))
	if err := syscall.Mkfifo(lock, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan map[string]string, 1)
	go func() { _, lines := statusLines(t); done <- lines }()
	select {
	case lines := <-done:
		if !strings.HasPrefix(lines["daemon"], "FIX") {
			t.Errorf("status with a FIFO for the instance lock: daemon line %q, want a FIX", lines["daemon"])
		}
	case <-time.After(5 * time.Second):
		t.Fatal("status blocked on a FIFO at the instance lock's path")
	}
}

// TestStatusDoesNotBlockOnAFIFORegistry: a FIFO at herdr's plugins.json is
// no registry; status says so at once, as a problem to fix.
func TestStatusDoesNotBlockOnAFIFORegistry(t *testing.T) {
	statusSetup(t)
	reg := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "herdr", "plugins.json")
	if err := os.MkdirAll(filepath.Dir(reg), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(reg, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan map[string]string, 1)
	go func() { _, lines := statusLines(t); done <- lines }()
	select {
	case lines := <-done:
		if !strings.HasPrefix(lines["plugin"], "FIX") || !strings.Contains(lines["plugin"], "not a regular file") {
			t.Errorf("status with a FIFO for herdr's plugin registry: plugin line %q, want a FIX saying it is not a regular file", lines["plugin"])
		}
	case <-time.After(5 * time.Second):
		t.Fatal("status blocked on a FIFO at herdr's plugins.json")
	}
}
