//go:build unix

package state

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoadRefusesAFIFOWithoutBlocking: a FIFO at the state file's path is
// a damaged state, read-only and empty, at once; reading it would hang status,
// lock, restore and the daemon.
func TestLoadRefusesAFIFOWithoutBlocking(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	type result struct {
		s    *State
		warn error
	}
	done := make(chan result, 1)
	go func() { s, warn := Load(path, "/run/herdr.sock"); done <- result{s, warn} }()
	select {
	case r := <-done:
		if !IsDamaged(r.warn) || !strings.Contains(r.warn.Error(), "not a regular file") {
			t.Errorf("Load of a FIFO warns %v, want it damaged, saying it is not a regular file", r.warn)
		}
		if r.s.Len(Tab) != 0 {
			t.Errorf("Load of a FIFO has tabs %v", r.s.IDs(Tab))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Load blocked on a FIFO")
	}
}
