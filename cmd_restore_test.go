package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/herdrtabrenamer/herdrtabrenamer/claim"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrtest"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// TestTwoRestoresDoNotSignalEachOther: a restore --apply started while
// another one works refuses, naming it, instead of taking it for the
// daemon and stopping it with SIGTERM; the first one finishes its work.
func TestTwoRestoresDoNotSignalEachOther(t *testing.T) {
	srv := restoreServer(t)
	// The first restore's first request to herdr is held back: it works
	// for that long, holding its claim.
	srv.StallNext("", 3*time.Second, 1)
	first := exec.Command("herdrtabrenamer", "restore", "--apply")
	var firstOut bytes.Buffer
	first.Stdout, first.Stderr = &firstOut, &firstOut
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	lock := claim.InstanceLockPath(srv.SocketPath())
	waitFor(t, "the first restore to take the daemon's claim", func() bool {
		return claim.HolderPID(lock) == first.Process.Pid
	})

	var out, errb bytes.Buffer
	code := Main([]string{"restore", "--apply"}, &out, &errb)
	err := first.Wait()
	ws, _ := first.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		t.Fatalf("the second restore stopped the first with %v (its output: %s)", ws.Signal(), out.String())
	}
	if err != nil {
		t.Fatalf("first restore: %v\n%s", err, firstOut.String())
	}
	if code != 1 || !strings.Contains(errb.String(), fmt.Sprintf("pid %d", first.Process.Pid)) {
		t.Fatalf("second restore: exit %d, stderr %q; want 1 and the first one's pid", code, errb.String())
	}
}

// TestRestoreRefusesAnotherServersState: a state file written for another
// herdr server says nothing about this one's tabs; restore (like run,
// once and lock) refuses it rather than take a person's label that
// happens to match one remembered there for ours.
func TestRestoreRefusesAnotherServersState(t *testing.T) {
	dir := statusSetup(t)
	t.Setenv("XDG_RUNTIME_DIR", shortTempDir(t))
	srv := herdrtest.Start(t, herdrsim.WithoutReadPoll())
	t.Setenv("HERDR_SOCKET_PATH", srv.SocketPath())
	_, tab, _ := srv.NewWorkspace("main", "/tmp")
	srv.HumanRename(tab, "notes")
	path := filepath.Join(dir, "state.json")
	b, err := json.Marshal(map[string]any{"version": state.Version, "server": filepath.Join(dir, "other.sock"),
		"tabs": map[string]any{tab: map[string]any{"label": "notes"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"restore", "--apply"}, {"once", "--apply"}, {"lock", tab}} {
		var out, errb bytes.Buffer
		code := Main(append(args, "--state", path), &out, &errb)
		if code == 0 || !strings.Contains(errb.String(), "other.sock") {
			t.Errorf("%v: exit %d, stderr %q; want a refusal naming the other server", args, code, errb.String())
		}
	}
	if got := srv.Snapshot().Tabs[0].Label; got != "notes" {
		t.Fatalf("the person's label became %q", got)
	}
}

// TestRestoreGivesBackAPersonsTextExactly: under --index-prefix-all a
// person's label carries the tab's position in front; restore takes off
// exactly the prefix we put there, leading digits of their own included.
func TestRestoreGivesBackAPersonsTextExactly(t *testing.T) {
	srv := restoreServer(t)
	ws, first, _ := srv.NewWorkspace("main", "/tmp")
	second, _ := srv.NewTab(ws, "/tmp")
	srv.HumanRename(first, "3 amigos")
	srv.HumanRename(second, "notes")
	var out, errb bytes.Buffer
	if code := Main([]string{"once", "--apply", "--index-prefix-all"}, &out, &errb); code != 0 {
		t.Fatalf("once: exit %d: %s", code, errb.String())
	}
	if got := []string{srv.Snapshot().Tabs[0].Label, srv.Snapshot().Tabs[1].Label}; got[0] != "1 3 amigos" || got[1] != "2 notes" {
		t.Fatalf("prefixed labels %q", got)
	}
	out.Reset()
	if code := Main([]string{"restore", "--apply"}, &out, &errb); code != 0 {
		t.Fatalf("restore: exit %d: %s", code, errb.String())
	}
	if got := []string{srv.Snapshot().Tabs[0].Label, srv.Snapshot().Tabs[1].Label}; got[0] != "3 amigos" || got[1] != "notes" {
		t.Fatalf("after restore %q, want the person's text back; restore said:\n%s", got, out.String())
	}
}

// TestRestoreKeepsARenameMadeMeanwhile: a person who renames one of our
// tabs while restore reads the session keeps their name: restore looks
// at each tab right before giving it its number back.
func TestRestoreKeepsARenameMadeMeanwhile(t *testing.T) {
	srv := restoreServer(t)
	_, tab, _ := srv.NewWorkspace("main", "/tmp/web")
	var out, errb bytes.Buffer
	if code := Main([]string{"once", "--apply"}, &out, &errb); code != 0 {
		t.Fatalf("once: exit %d: %s", code, errb.String())
	}
	if got := srv.Snapshot().Tabs[0].Label; got != "web" {
		t.Fatalf("once named the tab %q, want web", got)
	}
	// Every snapshot restore takes is held 300 ms; the person renames
	// the tab while its last one is on its way back.
	snaps := srv.Calls("session.snapshot")
	srv.SetLatency("session.snapshot", 300*time.Millisecond)
	done := make(chan int, 1)
	out.Reset()
	go func() { done <- Main([]string{"restore", "--apply"}, &out, &errb) }()
	waitFor(t, "restore's second snapshot", func() bool { return srv.Calls("session.snapshot") >= snaps+2 })
	srv.HumanRename(tab, "mine")
	if code := <-done; code != 0 {
		t.Fatalf("restore: exit %d: %s", code, errb.String())
	}
	if got := srv.Snapshot().Tabs[0].Label; got != "mine" {
		t.Fatalf("the person's rename during restore became %q; restore said:\n%s", got, out.String())
	}
}

// restoreServer starts a herdr for restore to work on, in a setup of its
// own.
func restoreServer(t *testing.T) *herdrsim.Server {
	t.Helper()
	statusSetup(t)
	t.Setenv("XDG_RUNTIME_DIR", shortTempDir(t))
	srv := herdrtest.Start(t, herdrsim.WithoutReadPoll())
	t.Setenv("HERDR_SOCKET_PATH", srv.SocketPath())
	return srv
}
