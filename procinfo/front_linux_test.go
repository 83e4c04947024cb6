package procinfo

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// One look at a real shell's terminal reads the shell, the process in
// front and a wrapper's child, with their command lines and directories,
// and FromFront names what it read.
func TestReadFrontOfARealShell(t *testing.T) {
	tests := []struct {
		name string
		keys string
		// ready says the look shows what the keys asked for; want checks
		// the rest of it.
		ready func(dir string, shell int, f Front) bool
		want  func(dir string, shell int, f Front) bool
		named string
	}{
		{"at the prompt", "", func(_ string, shell int, f Front) bool { return f.PGID == shell },
			func(dir string, shell int, f Front) bool {
				return f.Leader.PID == shell && f.ShellCwd == dir && f.Cwd() == dir && f.Child.PID == 0 && len(f.ShellArgv) == 4 &&
					slices.Equal(f.ShellArgv[1:], []string{"--norc", "--noprofile", "-i"}) && slices.Equal(f.Leader.Argv, f.ShellArgv)
			}, ""},
		{"a program in another folder", "mkdir sub && cd sub && sleep 300\n",
			func(_ string, _ int, f Front) bool { return f.Leader.Comm == "sleep" && len(f.Leader.Argv) > 0 },
			func(dir string, shell int, f Front) bool {
				sub := filepath.Join(dir, "sub")
				return f.PGID == f.Leader.PID && f.PGID != shell && f.Leader.Cwd == sub && f.ShellCwd == sub &&
					slices.Equal(f.Leader.Argv, []string{"sleep", "300"}) && f.ShellComm == "bash"
			}, "sleep"},
		{"a wrapper and its child", "sh -c 'sleep 300; true'\n",
			func(_ string, _ int, f Front) bool {
				return f.Leader.Comm == "sh" && len(f.Leader.Argv) > 0 && f.Child.Comm == "sleep" && len(f.Child.Argv) > 0
			},
			func(dir string, _ int, f Front) bool {
				return slices.Equal(f.Child.Argv, []string{"sleep", "300"}) && f.Child.Cwd == dir && f.Cwd() == dir
			}, "sleep"},
		{"exec replaces the shell", "exec sleep 300\n",
			func(_ string, _ int, f Front) bool { return f.ShellComm == "sleep" && len(f.ShellArgv) > 0 },
			func(_ string, shell int, f Front) bool {
				return f.PGID == shell && f.Leader.PID == shell && slices.Equal(f.ShellArgv, []string{"sleep", "300"})
			}, "sleep"},
	}
	res := mustNew(t, Options{}, nil)
	prober, ok := Local().(Prober)
	if !ok {
		t.Fatal("Local() is no Prober")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			cmd, tty := testutil.PlainShell(t, dir)
			shell := cmd.Process.Pid
			if _, err := io.WriteString(tty, tt.keys); err != nil {
				t.Fatal(err)
			}
			var f Front
			testutil.WaitFor(t, tt.name, func() bool {
				f, err = prober.ReadFront(shell)
				return err == nil && tt.ready(dir, shell, f)
			}, func() string { return fmt.Sprintf("last look %+v, %v", f, err) })
			if !tt.want(dir, shell, f) {
				t.Errorf("look %+v", f)
			}
			if p := res.FromFront(f); p.Name != tt.named || p.Shell != (tt.named == "") {
				t.Errorf("FromFront = %+v, want %q", p, tt.named)
			}
		})
	}
	if _, err := ReadFront(os.Getpid() + 1<<22); err == nil {
		t.Error("a look at no process")
	}
}
