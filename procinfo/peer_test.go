//go:build linux || darwin

package procinfo

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The process serving a socket is named by its pid and start time: here,
// the test itself, started in the last hour.
func TestServerInstanceNamesTheProcessBehindTheSocket(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	inst, err := ServerInstance(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(inst, fmt.Sprintf("%d@", os.Getpid())) {
		t.Errorf("instance %q, want this process, pid %d", inst, os.Getpid())
	}
	if age := time.Since(InstanceStarted(inst)); age < 0 || age > time.Hour {
		t.Errorf("instance %q started %v ago", inst, age)
	}
	if _, err := ServerInstance(context.Background(), filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("no error for a socket nobody serves")
	}
	peer, err := SocketPeer(context.Background(), path)
	if exe, _ := os.Executable(); err != nil || peer.PID != os.Getpid() || peer.Exe != exe || peer.Herdr {
		t.Errorf("SocketPeer = %+v, %v; want this process (%s), not herdr", peer, err, exe)
	}
	if _, err := SocketPeer(context.Background(), filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("a peer for a socket nobody serves")
	}
}
