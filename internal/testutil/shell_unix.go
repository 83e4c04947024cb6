//go:build unix

package testutil

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/creack/pty"
)

// PlainShell starts an interactive bash with job control in a pty, in dir
// (a fresh folder when ""), as herdr starts a pane's shell, with no rc
// file: no hooks, no terminal title. It returns once bash shows its first
// prompt: keys typed while it still sets its terminal up may be thrown
// away. Its output is drained so that it never blocks, and it is killed
// when the test ends. Without bash the test is skipped.
func PlainShell(t testing.TB, dir string) (*exec.Cmd, *os.File) {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on PATH")
	}
	if dir == "" {
		dir = t.TempDir()
	}
	cmd := exec.Command(bash, "--norc", "--noprofile", "-i")
	cmd.Dir = dir
	// $SHELL names the shell, as herdr's panes have it: it tells the
	// shell from a program it execs.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "SHELL=" + bash, "PS1=$ ", "TERM=dumb"}
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	out := &Buffer{}
	go func() { _, _ = io.Copy(out, tty) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = tty.Close()
		_ = cmd.Wait()
	})
	WaitFor(t, "bash's first prompt", func() bool { return strings.Contains(out.String(), "$ ") },
		func() string { return fmt.Sprintf("output %q", out.String()) })
	return cmd, tty
}
