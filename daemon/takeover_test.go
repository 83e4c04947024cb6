package daemon

import (
	"context"
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

// One daemon serves a herdr server whatever path reaches its socket: a
// second one through a hard link to it finds the first.
func TestSecondDaemonThroughAHardLinkIsRefused(t *testing.T) {
	f := newFixture(t, "{proc|dir}", nil)
	f.srv.NewWorkspace("main", home+"/a")
	runDaemon(t, f, nil)
	waitFor(t, "first pass", func() bool { return f.labels()[0] == "a" })
	link := filepath.Join(t.TempDir(), "other.sock")
	if err := os.Link(f.srv.SocketPath(), link); err != nil {
		t.Skipf("hard link: %v", err)
	}
	g := newFixture(t, "{proc|dir}", func(o *Options) { o.Socket = link })
	// A daemon that starts runs until its context ends.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := g.d.Run(ctx, nil); !errors.Is(err, ErrAlreadyRunning) {
		t.Fatalf("a second daemon through a hard link: err = %v, want ErrAlreadyRunning", err)
	}
}

// A daemon whose herdr is away lets go of the socket's inode, which the
// next socket made anywhere may get, and holds the path meanwhile.
func TestClaimLetsGoOfAGoneSocketsInode(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(t.TempDir(), "herdr.sock")
	if err := os.WriteFile(sock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := claimServer(dir, sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.release()
	inode := c.id
	if err := os.Remove(sock); err != nil {
		t.Fatal(err)
	}
	if err := c.follow(sock); err != nil {
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
