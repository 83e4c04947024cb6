package daemon

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestHolderPID(t *testing.T) {
	tests := []struct {
		content string
		want    int
	}{
		{"pid 4242 since 2026-12-03T07:00:00Z\n", 4242},
		{"", 0},
		{"pid x since y", 0},
		{"pid -3", 0},
		{"someone 12", 0},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "lock")
		if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := HolderPID(path); got != tt.want {
			t.Errorf("HolderPID(%q) = %d, want %d", tt.content, got, tt.want)
		}
	}
	if got := HolderPID(filepath.Join(t.TempDir(), "missing")); got != 0 {
		t.Errorf("missing file: %d", got)
	}
}

// TestTakeOver: a free lock is taken; a held one names its holder and,
// without stop, is left alone.
func TestTakeOver(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	sock := "/tmp/herdr-takeover-test.sock"
	inst, pid, err := TakeOver(sock, false, 0)
	if err != nil || pid != 0 || inst == nil {
		t.Fatalf("free lock: %v, pid %d, inst %v", err, pid, inst)
	}
	// The lock is an flock on an open file: a second open in this process
	// contends like another daemon would.
	_, pid, err = TakeOver(sock, false, 0)
	if !errors.Is(err, ErrAlreadyRunning) || pid != os.Getpid() {
		t.Fatalf("held lock: err %v, pid %d; want ErrAlreadyRunning naming pid %d", err, pid, os.Getpid())
	}
	inst.Release()
	inst, pid, err = TakeOver(sock, false, 0)
	if err != nil || pid != 0 {
		t.Fatalf("released lock: %v, pid %d", err, pid)
	}
	inst.Release()
}
