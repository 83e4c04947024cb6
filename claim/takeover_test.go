package claim

import (
	"errors"
	"os"
	"os/exec"
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
		{"pid 4242 since 2026-12-03T07:00:00Z\n", Holder{PID: 4242, Since: since}, true},
		{Holder{PID: 77, Since: since}.String(), Holder{PID: 77, Since: since}, true},
		{Holder{PID: 77, Since: since, Start: 991}.line(), Holder{PID: 77, Since: since, Start: 991}, true},
		{"pid 4242 since 2026-12-03T07:00:00Z start 123456\n", Holder{PID: 4242, Since: since, Start: 123456}, true},
		{"pid 4242 since 2026-12-03T07:00:00Z start soon", Holder{PID: 4242, Since: since}, true},
		{"pid 4242 since yesterday start 12", Holder{PID: 4242}, true},
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
		if ok != tt.ok || !got.Since.Equal(tt.want.Since) || got.PID != tt.want.PID || got.Start != tt.want.Start {
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

// A daemon whose herdr is away lets go of the socket's inode, which the
// next socket made anywhere may get, and holds the path meanwhile.
func TestClaimLetsGoOfAGoneSocketsInode(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(t.TempDir(), "herdr.sock")
	if err := os.WriteFile(sock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Take(dir, sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	inode := c.id
	if err := os.Remove(sock); err != nil {
		t.Fatal(err)
	}
	if err := c.Follow(sock); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(c.id, "path-") {
		t.Fatalf("claim id %s with the socket gone, want the path's", c.id)
	}
	other, err := AcquireInstance(filepath.Join(dir, inode+".lock"))
	if err != nil {
		t.Fatalf("the gone socket's inode is still held: %v", err)
	}
	other.Release()
	if _, err := AcquireInstance(filepath.Join(dir, c.id+".lock")); !errors.Is(err, ErrAlreadyRunning) {
		t.Fatalf("the path's claim: %v, want it held", err)
	}
}

// status believes a holder only while its process is the one that took
// the lock: a SIGKILLed daemon's pid given to another process since is no
// daemon.
func TestRunningTellsAReusedPid(t *testing.T) {
	dir := t.TempDir()
	write := func(h Holder) string {
		path := filepath.Join(dir, "lock")
		if err := os.WriteFile(path, []byte(h.String()+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	if _, ok := Running(write(Holder{PID: os.Getpid(), Since: time.Now()})); !ok {
		t.Error("this process, which took the lock now: not running")
	}
	// A process that started after the lock was taken reuses its pid.
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skipf("sleep: %v", err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if _, ok := Running(write(Holder{PID: cmd.Process.Pid, Since: time.Now().Add(-time.Hour)})); ok {
		t.Error("a process started an hour after the lock was taken: taken for the daemon")
	}
	if _, ok := Running(write(Holder{PID: cmd.Process.Pid, Since: time.Now()})); !ok {
		t.Error("the process that took the lock: not running")
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if _, ok := Running(write(Holder{PID: cmd.Process.Pid, Since: time.Now()})); ok {
		t.Error("a process that exited: taken for running")
	}
}
