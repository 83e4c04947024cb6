package daemon

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestReadHolder(t *testing.T) {
	since := time.Date(2026, 12, 3, 7, 0, 0, 0, time.UTC)
	tests := []struct {
		content string
		want    Holder
		ok      bool
	}{
		{"pid 4242 since 2026-12-03T07:00:00Z\n", Holder{4242, since}, true},
		{Holder{77, since}.String(), Holder{77, since}, true},
		{"pid 4242", Holder{PID: 4242}, true},
		{"pid 4242 since yesterday", Holder{PID: 4242}, true},
		{"", Holder{}, false},
		{"pid x since y", Holder{}, false},
		{"pid -3", Holder{}, false},
		{"someone 12", Holder{}, false},
		{"pid 1" + strings.Repeat(" ", maxHolderLine), Holder{}, false},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "lock")
		if err := os.WriteFile(path, []byte(tt.content), 0o600); err != nil {
			t.Fatal(err)
		}
		got, ok := ReadHolder(path)
		if ok != tt.ok || !got.Since.Equal(tt.want.Since) || got.PID != tt.want.PID {
			t.Errorf("ReadHolder(%q) = %+v, %v; want %+v, %v", tt.content, got, ok, tt.want, tt.ok)
		}
	}
	if _, ok := ReadHolder(filepath.Join(t.TempDir(), "missing")); ok {
		t.Error("a missing file names a holder")
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
