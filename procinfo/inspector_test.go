package procinfo

import (
	"os/exec"
	"runtime"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// Local reads a process's command name and the $SHELL it was started
// with.
func TestLocalShellVar(t *testing.T) {
	sr, ok := Local().(shellVarReader)
	if !ok {
		if runtime.GOOS == "windows" {
			t.Skip("no local look at processes on Windows")
		}
		t.Fatal("Local() reads no $SHELL")
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep on PATH")
	}
	for _, shell := range []string{"/opt/mysh/bin/mysh", ""} {
		cmd := exec.Command(sleep, "30")
		cmd.Env = []string{"A=1", "SHELL=" + shell, "Z=2"}
		if shell == "" {
			cmd.Env = []string{"A=1"}
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The environment shows a moment after the new command name.
		var comm, got string
		testutil.WaitFor(t, "sleep's environment", func() bool {
			comm, got, err = sr.ShellVar(cmd.Process.Pid)
			return err == nil
		}, func() string { return err.Error() })
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if comm != "sleep" || got != shell {
			t.Errorf("ShellVar = %q, %q; want sleep, %q", comm, got, shell)
		}
	}
}
