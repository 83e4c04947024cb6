package procinfo

import (
	"errors"
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
		isSh   bool   // Program.Shell
		env    string // $SHELL of the process at the shell's pid; /bin/zsh if ""
	}{
		{"the shell at its prompt", proc(10, "zsh", "-zsh"), FrontProc{}, "zsh", "", true, ""},
		{"the shell ran exec vim", proc(10, "vim", "vim", "main.go"), FrontProc{}, "vim", "vim", false, ""},
		{"xonsh runs as python", proc(10, "python3", "/usr/bin/python3", "/usr/bin/xonsh"), FrontProc{}, "python3", "", true, ""},
		{"an unlisted shell at its prompt", proc(10, "mysh", "/opt/mysh/bin/mysh"), FrontProc{}, "mysh", "", true, "/opt/mysh/bin/mysh"},
		{"an unlisted login shell", proc(10, "mysh", "-mysh"), FrontProc{}, "mysh", "", true, "/opt/mysh/bin/mysh"},
		{"an unlisted shell with a long name", proc(10, "a-shell-of-mine", "a-shell-of-mine-2"), FrontProc{}, "a-shell-of-mine", "", true,
			"/bin/a-shell-of-mine-2"},
		{"an unlisted shell ran exec vim", proc(10, "vim", "vim"), FrontProc{}, "vim", "vim", false, "/opt/mysh/bin/mysh"},
		{"bash ran exec zsh", proc(10, "zsh", "zsh"), FrontProc{}, "zsh", "", true, "/bin/bash"},
		{"a program through launchers", proc(20, "sudo", "sudo", "-u", "root", "env", "A=1", "btop"), FrontProc{}, "zsh", "btop", false, ""},
		{"a nested shell", proc(20, "bash", "bash", "--norc"), FrontProc{}, "zsh", "", false, ""},
		{"a wrapper's child", proc(20, "sh", "sh", "-c", "sleep 1; vim x"), proc(21, "vim", "vim", "x"), "zsh", "vim", false, ""},
		{"a wrapper with no child", proc(20, "sh", "sh", "-c", "make build; true"), FrontProc{}, "zsh", "make", false, ""},
		{"ssh to a host", proc(20, "ssh", "ssh", "-p", "2222", "deploy@web1", "htop"), FrontProc{}, "zsh", "ssh", false, ""},
		{"only a command name", FrontProc{PID: 20, Comm: "btop"}, FrontProc{}, "zsh", "btop", false, ""},
		{"an alias", proc(20, "nvim", "nvim", "."), FrontProc{}, "zsh", "vim", false, ""},
		{"a rewrite", proc(20, "python3.12", "python3.12", "-m", "http.server"), FrontProc{}, "zsh", "http.server", false, ""},
	}
	opts := Options{Aliases: map[string]string{"nvim": "vim"}, Rewrites: []RewriteSpec{{Match: `^python3\.\d+$`, Replace: "python"}}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pgid := tt.leader.PID
			env := tt.env
			if env == "" {
				env = "/bin/zsh"
			}
			f := Front{ShellPID: 10, PGID: pgid, ShellComm: tt.shell, ShellCwd: "/w", Leader: tt.leader, Child: tt.child}
			if pgid == 10 {
				f.EnvShell = env // read only while the shell's pid leads
			}
			pi := herdr.ProcessInfo{PaneID: "w1:p1", ShellPID: 10, ForegroundPGID: pgid,
				ForegroundProcesses: []herdr.Process{herdrProc(tt.leader)}}
			in := &fakeInspector{procs: map[int]Proc{}, kids: map[int][]int{}, envs: map[int]fakeEnv{10: {tt.shell, env}}}
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
		{"the fork of a shell the list does not name", Front{ShellPID: 10, PGID: 20, ShellComm: "mysh", ShellArgv: []string{"/opt/mysh", "-i"},
			Leader: FrontProc{PID: 20, Comm: "mysh", Argv: []string{"/opt/mysh", "-i"}}}, "the shell's fork (pid 20)"},
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

// The process at the pane's shell pid is the pane's shell unless it
// exec'd a program: one that runs neither a listed shell nor what its
// $SHELL names, read locally from a process with herdr's command name.
// Where that cannot be read, nothing tells of an exec: the shell.
func TestProgramAtTheShellsPid(t *testing.T) {
	at := func(name string, argv ...string) herdr.ProcessInfo {
		return herdr.ProcessInfo{ShellPID: 10, ForegroundPGID: 10, ForegroundProcesses: []herdr.Process{{PID: 10, Name: name, Argv: argv}}}
	}
	env := func(comm, shell string) *fakeInspector {
		return &fakeInspector{envs: map[int]fakeEnv{10: {comm, shell}}}
	}
	tests := []struct {
		name string
		pi   herdr.ProcessInfo
		in   Inspector
		want string // "" for the shell
	}{
		{"exec htop", at("htop", "htop"), env("htop", "/bin/bash"), "htop"},
		{"exec htop, only herdr's command name", at("htop"), env("htop", "/bin/bash"), "htop"},
		{"a listed shell, $SHELL another", at("zsh", "zsh"), env("zsh", "/bin/bash"), ""},
		{"an unlisted shell, its $SHELL", at("mysh", "mysh"), env("mysh", "/usr/local/bin/mysh"), ""},
		{"an unlisted login shell", at("mysh", "-mysh"), env("mysh", "/usr/local/bin/mysh"), ""},
		{"an unlisted shell, $SHELL unset", at("mysh", "mysh"), env("mysh", ""), ""},
		{"an unlisted shell, no local look", at("mysh", "mysh"), nil, ""},
		{"exec htop, no local look", at("htop", "htop"), nil, ""},
		{"the local pid is another process", at("htop", "htop"), env("nginx", "/bin/bash"), ""},
		{"the local look fails", at("htop", "htop"), &fakeInspector{err: errors.New("gone")}, ""},
		{"herdr told nothing of the process", herdr.ProcessInfo{ShellPID: 10, ForegroundPGID: 10}, env("htop", "/bin/bash"), ""},
	}
	for _, tt := range tests {
		got := mustNew(t, Options{}, tt.in).Program(tt.pi)
		if got.Name != tt.want || got.Shell != (tt.want == "") {
			t.Errorf("%s: Program = %+v, want %q (shell %v)", tt.name, got, tt.want, tt.want == "")
		}
	}
	// A listed shell is told without a look at the process.
	in := env("zsh", "/bin/bash")
	mustNew(t, Options{}, in).Program(at("zsh", "-zsh"))
	if in.calls != 0 {
		t.Errorf("%d local reads for a listed shell, want none", in.calls)
	}
}
