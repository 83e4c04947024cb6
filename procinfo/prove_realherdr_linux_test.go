package procinfo

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/realherdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// A real herdr's pane shell is proven local: its server serves the socket
// and is herdr, and the shell is its child; after a live handoff to a new
// server, which is no parent of the shell, the new server holds the
// shell's terminal. A process here that is not herdr's shell is not
// proven, though herdr's server is.
func TestProveLocalWithRealHerdr(t *testing.T) {
	srv := startRealHerdr(t)
	out, err := srv.CLI("workspace", "create", "--cwd", srv.Home, "--no-focus")
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		Result struct {
			Workspace struct {
				ID string `json:"workspace_id"`
			} `json:"workspace"`
		} `json:"result"`
	}
	if err := json.Unmarshal(out, &created); err != nil {
		t.Fatalf("workspace create answered %s (%v)", out, err)
	}
	shell := realShellPID(t, srv.Socket, created.Result.Workspace.ID)

	peer := socketPeer(t, srv.Socket)
	if ok, why := ProveLocal(peer.PID, shell); !ok || !strings.Contains(why, "descends from herdr's server") {
		t.Errorf("ProveLocal(%d, %d) = %v, %q; want proven: a child of the server", peer.PID, shell, ok, why)
	}
	stranger := exec.Command("sleep", "30")
	if err := stranger.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stranger.Process.Kill(); _ = stranger.Wait() })
	if ok, why := ProveLocal(peer.PID, stranger.Process.Pid); ok {
		t.Errorf("a process herdr did not start is proven its shell: %q", why)
	} else {
		t.Logf("stranger: %s", why)
	}

	if _, err := srv.CLI("server", "live-handoff"); err != nil {
		t.Fatal(err)
	}
	var next Peer
	testutil.WaitFor(t, "a new server behind the socket", func() bool {
		p, err := SocketPeer(context.Background(), srv.Socket)
		next = p
		return err == nil && p.PID != peer.PID && p.Herdr
	})
	if ok, why := ProveLocal(next.PID, shell); !ok || !strings.Contains(why, "holds the terminal") {
		t.Errorf("after the handoff ProveLocal(%d, %d) = %v, %q; want proven: the server holds its terminal", next.PID, shell, ok, why)
	} else {
		t.Logf("after the handoff: %s", why)
	}
}

// startRealHerdr starts herdr's server from the built binary; without one
// the test is skipped, except in CI.
func startRealHerdr(t *testing.T) *realherdr.Server {
	t.Helper()
	bin, err := realherdr.Binary()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but %v", err)
		}
		t.Skip(err)
	}
	srv, err := realherdr.Start(bin, realherdr.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	})
	return srv
}

// socketPeer is the process serving socket, which must be herdr.
func socketPeer(t *testing.T, socket string) Peer {
	t.Helper()
	peer, err := SocketPeer(context.Background(), socket)
	if err != nil {
		t.Fatal(err)
	}
	if !peer.Herdr || peer.PID <= 0 {
		t.Fatalf("SocketPeer = %+v, want herdr", peer)
	}
	return peer
}

// realShellPID is the shell of the first pane of workspace ws, as herdr
// tells it.
func realShellPID(t *testing.T, socket, ws string) int {
	t.Helper()
	c := herdr.New(socket)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	panes, err := c.Panes(ctx, ws)
	if err != nil || len(panes) == 0 {
		t.Fatalf("panes of %s: %v, %v", ws, panes, err)
	}
	var pi herdr.ProcessInfo
	testutil.WaitFor(t, "herdr to name the pane's shell", func() bool {
		pi, err = c.ProcessInfo(ctx, panes[0].ID)
		return err == nil && pi.ShellPID > 0
	})
	return pi.ShellPID
}
