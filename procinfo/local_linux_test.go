package procinfo

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"

	"github.com/creack/pty"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// startGroup starts argv in its own process group and reaps it at the end.
func startGroup(t *testing.T, dir string, argv ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd
}

func TestLocalProcessAndChildren(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cmd := startGroup(t, dir, "sleep", "30")
	pid := cmd.Process.Pid
	in := Local()

	// Right after fork the child may still show our own argv until exec.
	var p Proc
	testutil.WaitFor(t, "sleep to exec", func() bool {
		p, err = in.Process(pid)
		return err == nil && slices.Equal(p.Argv, []string{"sleep", "30"})
	})
	if p.PID != pid || p.Cwd != dir {
		t.Errorf("Process(%d) = %+v, want pid %d cwd %s", pid, p, pid, dir)
	}

	kids, err := in.Children(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(kids, pid) {
		t.Errorf("Children(self) = %v, want it to hold %d", kids, pid)
	}
	// The /proc/<pid>/task/*/children fast path agrees with gopsutil's scan.
	slow, err := gopsutilChildren(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(slow)
	if !slices.Equal(kids, slow) {
		t.Errorf("Children(self) = %v, gopsutil says %v", kids, slow)
	}
	if none, err := in.Children(pid); err != nil || len(none) != 0 {
		t.Errorf("Children(sleep) = %v, %v; want none", none, err)
	}

	// A process that has gone is an error naming the pid, not a panic.
	done := exec.Command("true")
	if err := done.Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Process(done.Process.Pid); err == nil {
		t.Errorf("Process of exited pid %d: no error", done.Process.Pid)
	}
	if _, err := in.Children(done.Process.Pid); err == nil {
		t.Errorf("Children of exited pid %d: no error", done.Process.Pid)
	}
	if _, err := in.ForegroundPGID(done.Process.Pid); err == nil {
		t.Errorf("ForegroundPGID of exited pid %d: no error", done.Process.Pid)
	}
	if _, err := in.ForegroundPGID(0); err == nil {
		t.Error("ForegroundPGID(0): no error")
	}
	// sleep has no controlling terminal.
	if _, err := in.ForegroundPGID(pid); err == nil {
		t.Error("ForegroundPGID of a process without a terminal: no error")
	}
}

func TestLocalForegroundPGID(t *testing.T) {
	shell, ptmx := testutil.PlainShell(t, "")
	in := Local()
	spid := shell.Process.Pid
	fg := func() int {
		v, err := in.ForegroundPGID(spid)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	testutil.WaitFor(t, "the shell to take the terminal", func() bool { return fg() == spid })

	if _, err := ptmx.WriteString("sleep 300\n"); err != nil {
		t.Fatal(err)
	}
	var pgid int
	testutil.WaitFor(t, "sleep to become the foreground group", func() bool {
		pgid = fg()
		if pgid == spid {
			return false
		}
		p, err := in.Process(pgid)
		return err == nil && len(p.Argv) > 0 && p.Argv[0] == "sleep"
	})
	kids, err := in.Children(spid)
	if err != nil || !slices.Contains(kids, pgid) {
		t.Errorf("Children(shell) = %v, %v; want it to hold the foreground leader %d", kids, err, pgid)
	}

	// Ctrl-C ends sleep; the shell takes the terminal back.
	if _, err := ptmx.WriteString("\x03"); err != nil {
		t.Fatal(err)
	}
	testutil.WaitFor(t, "the shell to get the terminal back", func() bool { return fg() == spid })
}

// The whole path on real processes: a `sh -c` wrapper whose real program
// is its child, found through Local().
func TestProgramWithLocalWrapper(t *testing.T) {
	shell, ptmx := testutil.PlainShell(t, "")
	in := Local()
	spid := shell.Process.Pid
	// "; true" keeps sh from exec'ing sleep, so sh stays the leader.
	if _, err := ptmx.WriteString("sh -c 'sleep 300; true'\n"); err != nil {
		t.Fatal(err)
	}
	var pi herdr.ProcessInfo
	testutil.WaitFor(t, "sh -c with its sleep child", func() bool {
		pgid, err := in.ForegroundPGID(spid)
		if err != nil || pgid == spid {
			return false
		}
		leader, err := in.Process(pgid)
		if err != nil || len(leader.Argv) == 0 || leader.Argv[0] != "sh" {
			return false
		}
		kids, err := in.Children(pgid)
		if err != nil || len(kids) != 1 {
			return false
		}
		// herdr's answer, minus the members, so only the local look can tell.
		pi = herdr.ProcessInfo{PaneID: "w1:p1", ShellPID: spid, ForegroundPGID: pgid,
			ForegroundProcesses: []herdr.Process{{PID: pgid, Name: "sh", Argv: leader.Argv}}}
		return true
	})
	var got Program
	// Until the child execs, it is sh's fork, and sh's command line names
	// sleep from the leader: wait for the name read from the child itself.
	testutil.WaitFor(t, "sleep to exec in the child", func() bool {
		got = mustNew(t, Options{}, in).Program(pi)
		return got.Name == "sleep" && got.PID != pi.ForegroundPGID
	})
	if got.PGID != pi.ForegroundPGID {
		t.Errorf("Program = %+v, want the leader's group", got)
	}
	// Without the inspector the command string names it the same.
	if name := mustNew(t, Options{}, nil).Program(pi).Name; name != "sleep" {
		t.Errorf("Program without inspector = %q, want sleep", name)
	}
}

func BenchmarkLocalForegroundPGID(b *testing.B) {
	cmd := exec.Command("sleep", "60")
	ptmx, err := pty.Start(cmd)
	if err != nil {
		b.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = ptmx.Close()
		_ = cmd.Wait()
	}()
	in := Local()
	pid := cmd.Process.Pid
	if _, err := in.ForegroundPGID(pid); err != nil {
		b.Fatal(err)
	}
	b.Run("raw-syscalls", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := in.ForegroundPGID(pid); err != nil {
				b.Fatal(err)
			}
		}
	})
	// Baseline: the obvious os.ReadFile version, same run, same process.
	path := "/proc/" + strconv.Itoa(pid) + "/stat"
	b.Run("baseline-os.ReadFile", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			data, err := os.ReadFile(path)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := parseTPGID(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkLocalChildren(b *testing.B) {
	in := Local()
	b.Run("proc-task-children", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := in.Children(os.Getpid()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("gopsutil-scan", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := gopsutilChildren(os.Getpid()); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkLocalProcess(b *testing.B) {
	in := Local()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := in.Process(os.Getpid()); err != nil {
			b.Fatal(err)
		}
	}
}

func TestShellVarIn(t *testing.T) {
	tests := []struct{ env, want string }{
		{"HOME=/h\x00SHELL=/bin/zsh\x00TERM=xterm\x00", "/bin/zsh"},
		{"SHELL=/opt/mysh\x00", "/opt/mysh"},
		{"MYSHELL=/bin/zsh\x00XSHELL=x", ""},
		{"SHELL=", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := shellVarIn([]byte(tt.env)); got != tt.want {
			t.Errorf("shellVarIn(%q) = %q, want %q", tt.env, got, tt.want)
		}
	}
}
