package procinfo

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// What ProveLocal refuses to call local, and why it says so.
func TestProveLocalRefuses(t *testing.T) {
	cmd, _ := testutil.PlainShell(t, "")
	shell := cmd.Process.Pid
	child := exec.Command("sleep", "30") // the test's child, on no terminal it holds
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	plain := child.Process.Pid
	tests := []struct {
		name          string
		server, shell int
		why           string
	}{
		{"no server pid", 0, shell, "the kernel names no process serving herdr's socket"},
		{"no shell pid", os.Getpid(), 0, "herdr names no shell pid"},
		// The test is no herdr: a server of another name may be a
		// forwarder, though the shell is its child, unless it holds the
		// shell's terminal too (see TestAStandInForHerdr).
		{"a server that is not herdr", os.Getpid(), plain, "not by herdr: a forwarder"},
	}
	for _, tt := range tests {
		if ok, why := ProveLocal(tt.server, tt.shell); ok || !strings.Contains(why, tt.why) {
			t.Errorf("%s: ProveLocal(%d, %d) = %v, %q; want false, %q", tt.name, tt.server, tt.shell, ok, why, tt.why)
		}
	}
}

// A server that is not named herdr but started the shell and holds its
// terminal stands in for herdr (one embedded in a test, a wrapper).
func TestAStandInForHerdr(t *testing.T) {
	cmd, _ := testutil.PlainShell(t, "")
	if ok, why := ProveLocal(os.Getpid(), cmd.Process.Pid); !ok || !strings.Contains(why, "holds its terminal") {
		t.Fatalf("ProveLocal(self, our shell in our pty) = %v, %q; want true", ok, why)
	}
}

// The parts of the proof, on a shell this test started in a pty of its
// own: the shell descends from the test, runs on a terminal whose master
// the test holds, and is in its pid namespace with the same pid.
func TestProofParts(t *testing.T) {
	cmd, _ := testutil.PlainShell(t, "")
	shell, self := cmd.Process.Pid, os.Getpid()
	if !descends(shell, self) || descends(self, shell) {
		t.Errorf("descends(shell, self) = %v, descends(self, shell) = %v; want true, false", descends(shell, self), descends(self, shell))
	}
	if pts, ok := heldTerminal(self, shell); !ok || pts < 0 {
		t.Errorf("heldTerminal(self, shell) = %d, %v; want the shell's pty", pts, ok)
	}
	stranger := exec.Command("sleep", "30")
	if err := stranger.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stranger.Process.Kill(); _ = stranger.Wait() })
	if _, ok := heldTerminal(self, stranger.Process.Pid); ok {
		t.Error("a process with no terminal runs on one the test holds")
	}
	if ok, why := samePIDSpace(self, shell); !ok {
		t.Errorf("samePIDSpace(self, shell) = false: %s", why)
	}
	done := exec.Command("true")
	if err := done.Run(); err != nil {
		t.Fatal(err)
	}
	if ok, why := samePIDSpace(self, done.Process.Pid); ok || !strings.Contains(why, "no process has pid") {
		t.Errorf("samePIDSpace(self, ended) = %v, %q; want no such process", ok, why)
	}
	if pid, err := innermostPID(self); err != nil || pid != self {
		t.Errorf("innermostPID(self) = %d, %v; want %d", pid, err, self)
	}
}

// herdr is known by its executable or its command name, however it was
// installed; a forwarder is not herdr.
func TestIsHerdr(t *testing.T) {
	tests := []struct {
		exe, comm string
		want      bool
	}{
		{"/usr/local/bin/herdr", "herdr", true},
		{"/nix/store/abc-herdr-0.8.2/bin/.herdr-wrapped", ".herdr-wrapped", true},
		{"/home/u/.local/bin/herdr (deleted)", "herdr", true},
		{"", "herdr", true},
		{"/usr/bin/socat", "socat", false},
		{"/usr/bin/ssh", "ssh", false},
		{"/usr/sbin/sshd", "sshd-session", false},
		{"", "", false},
	}
	for _, tt := range tests {
		if got := isHerdr(tt.exe, tt.comm); got != tt.want {
			t.Errorf("isHerdr(%q, %q) = %v, want %v", tt.exe, tt.comm, got, tt.want)
		}
	}
}
