package procinfo

import (
	"strings"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// FromFront names a local look as Program names herdr's answer for the
// same processes: launchers, interpreters, shells, wrappers, ssh, comm
// only, rewrites and aliases alike. Program learns a wrapper's child
// through the Inspector; FromFront from the look.
func TestFromFrontNamesAsProgramDoes(t *testing.T) {
	proc := func(pid int, comm string, argv ...string) FrontProc {
		return FrontProc{PID: pid, Comm: comm, Argv: argv, Cwd: "/w"}
	}
	herdrProc := func(p FrontProc) herdr.Process {
		return herdr.Process{PID: p.PID, Name: p.Comm, Argv: p.Argv, Cwd: p.Cwd}
	}
	tests := []struct {
		name   string
		leader FrontProc
		child  FrontProc
		shell  string // the shell's command name now
		want   string
		isSh   bool // Program.Shell
	}{
		{"the shell at its prompt", proc(10, "zsh", "-zsh"), FrontProc{}, "zsh", "", true},
		{"the shell ran exec vim", proc(10, "vim", "vim", "main.go"), FrontProc{}, "vim", "vim", false},
		{"xonsh runs as python", proc(10, "python3", "/usr/bin/python3", "/usr/bin/xonsh"), FrontProc{}, "python3", "", true},
		{"a program through launchers", proc(20, "sudo", "sudo", "-u", "root", "env", "A=1", "btop"), FrontProc{}, "zsh", "btop", false},
		{"a nested shell", proc(20, "bash", "bash", "--norc"), FrontProc{}, "zsh", "", false},
		{"a wrapper's child", proc(20, "sh", "sh", "-c", "sleep 1; vim x"), proc(21, "vim", "vim", "x"), "zsh", "vim", false},
		{"a wrapper with no child", proc(20, "sh", "sh", "-c", "make build; true"), FrontProc{}, "zsh", "make", false},
		{"ssh to a host", proc(20, "ssh", "ssh", "-p", "2222", "deploy@web1", "htop"), FrontProc{}, "zsh", "ssh", false},
		{"only a command name", FrontProc{PID: 20, Comm: "btop"}, FrontProc{}, "zsh", "btop", false},
		{"an alias", proc(20, "nvim", "nvim", "."), FrontProc{}, "zsh", "vim", false},
		{"a rewrite", proc(20, "python3.12", "python3.12", "-m", "http.server"), FrontProc{}, "zsh", "http.server", false},
	}
	opts := Options{Aliases: map[string]string{"nvim": "vim"}, Rewrites: []RewriteSpec{{Match: `^python3\.\d+$`, Replace: "python"}}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pgid := tt.leader.PID
			f := Front{ShellPID: 10, PGID: pgid, ShellComm: tt.shell, ShellCwd: "/w", Leader: tt.leader, Child: tt.child}
			pi := herdr.ProcessInfo{PaneID: "w1:p1", ShellPID: 10, ForegroundPGID: pgid,
				ForegroundProcesses: []herdr.Process{herdrProc(tt.leader)}}
			in := &fakeInspector{procs: map[int]Proc{}, kids: map[int][]int{}}
			if tt.child.PID > 0 {
				in.kids[tt.leader.PID] = []int{tt.child.PID}
				in.procs[tt.child.PID] = Proc{PID: tt.child.PID, Argv: tt.child.Argv}
			}
			got := mustNew(t, opts, nil).FromFront(f)
			want := mustNew(t, opts, in).Program(pi)
			if got.Name != tt.want || got.Shell != tt.isSh {
				t.Errorf("FromFront = %q shell %v (%s), want %q shell %v", got.Name, got.Shell, got.Why, tt.want, tt.isSh)
			}
			if got.Name != want.Name || got.Shell != want.Shell || got.PID != want.PID || got.PGID != want.PGID ||
				got.Args != want.Args || got.Dest != want.Dest || got.Remote != want.Remote {
				t.Errorf("FromFront = %+v\nProgram   = %+v", got, want)
			}
		})
	}
}

// What FromFront makes of looks with nothing in front to name.
func TestFromFrontWithoutAProgram(t *testing.T) {
	tests := []struct {
		name string
		f    Front
		why  string
	}{
		{"no terminal", Front{ShellPID: 10}, "no foreground process group"},
		{"the leader has ended", Front{ShellPID: 10, PGID: 20}, "the leader of group 20 has ended"},
		{"no argv, no command name", Front{ShellPID: 10, PGID: 20, Leader: FrontProc{PID: 20}}, "no argv and no command name for pid 20"},
	}
	for _, tt := range tests {
		got := mustNew(t, Options{}, nil).FromFront(tt.f)
		if got.Name != "" || got.Shell || !strings.Contains(got.Why, tt.why) {
			t.Errorf("%s: FromFront = %+v, want no name, why %q", tt.name, got, tt.why)
		}
	}
}

// The directory in front is the wrapped child's, else the leader's, else
// the shell's; the shell's fork before its exec is told from a program.
func TestFrontCwdAndForked(t *testing.T) {
	shellArgv := []string{"bash", "-i"}
	tests := []struct {
		name   string
		f      Front
		cwd    string
		forked bool
	}{
		{"at the prompt", Front{ShellPID: 10, PGID: 10, ShellComm: "bash", ShellArgv: shellArgv, ShellCwd: "/s",
			Leader: FrontProc{PID: 10, Comm: "bash", Argv: shellArgv, Cwd: "/s"}}, "/s", false},
		{"the shell's fork", Front{ShellPID: 10, PGID: 20, ShellComm: "bash", ShellArgv: shellArgv, ShellCwd: "/s",
			Leader: FrontProc{PID: 20, Comm: "bash", Argv: shellArgv, Cwd: "/s"}}, "/s", true},
		{"a nested bash", Front{ShellPID: 10, PGID: 20, ShellComm: "bash", ShellArgv: shellArgv, ShellCwd: "/s",
			Leader: FrontProc{PID: 20, Comm: "bash", Argv: []string{"bash"}, Cwd: "/n"}}, "/n", false},
		{"a wrapper's child", Front{ShellPID: 10, PGID: 20, ShellComm: "bash", ShellCwd: "/s",
			Leader: FrontProc{PID: 20, Comm: "sh", Cwd: "/l"}, Child: FrontProc{PID: 21, Comm: "vim", Cwd: "/c"}}, "/c", false},
		{"a leader whose directory is unreadable", Front{ShellPID: 10, PGID: 20, ShellComm: "bash", ShellCwd: "/s",
			Leader: FrontProc{PID: 20, Comm: "sudo"}}, "/s", false},
	}
	for _, tt := range tests {
		if got := tt.f.Cwd(); got != tt.cwd {
			t.Errorf("%s: Cwd = %q, want %q", tt.name, got, tt.cwd)
		}
		if got := tt.f.Forked(); got != tt.forked {
			t.Errorf("%s: Forked = %v, want %v", tt.name, got, tt.forked)
		}
		if g := tt.f; !g.Equal(tt.f) {
			t.Errorf("%s: a Front is not Equal to itself", tt.name)
		}
	}
	a := tests[2].f
	b := a
	b.Leader.Argv = []string{"bash", "--norc"}
	if a.Equal(b) {
		t.Error("Fronts with other command lines are Equal")
	}
}

// herdr's answer for a shell that ran `exec prog` names prog: the group's
// leader has the shell's pid but is no shell any more.
func TestProgramOfAShellThatRanExec(t *testing.T) {
	pi := herdr.ProcessInfo{ShellPID: 10, ForegroundPGID: 10, ForegroundProcesses: []herdr.Process{{PID: 10, Name: "htop", Argv: []string{"htop"}}}}
	if got := mustNew(t, Options{}, nil).Program(pi); got.Name != "htop" || got.Shell {
		t.Errorf("Program = %+v, want htop, not the shell", got)
	}
	pi.ForegroundProcesses = nil // herdr told nothing of it: the shell still
	if got := mustNew(t, Options{}, nil).Program(pi); got.Name != "" || !got.Shell {
		t.Errorf("Program without processes = %+v, want the shell", got)
	}
}
