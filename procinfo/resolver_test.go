package procinfo

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// loadProcessInfo reads a fixture in the wire shape of a pane.process_info
// response (docs/herdr.md §9), strictly, so a typo in a fixture fails.
func loadProcessInfo(t testing.TB, name string) herdr.ProcessInfo {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "process_info", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		ID     string `json:"id"`
		Result struct {
			Type        string            `json:"type"`
			ProcessInfo herdr.ProcessInfo `json:"process_info"`
		} `json:"result"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	if env.Result.Type != "pane_process_info" {
		t.Fatalf("fixture %s: result type %q, want pane_process_info", name, env.Result.Type)
	}
	return env.Result.ProcessInfo
}

// fakeInspector serves canned processes and counts calls, so tests can
// prove the local look happens only when needed.
type fakeInspector struct {
	procs map[int]Proc
	kids  map[int][]int
	// envs are the processes' command names and $SHELLs, for ShellVar.
	envs  map[int]fakeEnv
	err   error // every call fails with it when set
	calls int
}

type fakeEnv struct{ comm, shell string }

func (f *fakeInspector) ShellVar(pid int) (string, string, error) {
	f.calls++
	if f.err != nil {
		return "", "", f.err
	}
	e, ok := f.envs[pid]
	if !ok {
		return "", "", errors.New("fake: no such process")
	}
	return e.comm, e.shell, nil
}

func (f *fakeInspector) ForegroundPGID(int) (int, error) {
	f.calls++
	return 0, errors.New("fake: not used")
}

func (f *fakeInspector) Process(pid int) (Proc, error) {
	f.calls++
	if f.err != nil {
		return Proc{}, f.err
	}
	p, ok := f.procs[pid]
	if !ok {
		return Proc{}, errors.New("fake: no such process")
	}
	return p, nil
}

func (f *fakeInspector) Children(pid int) ([]int, error) {
	f.calls++
	if f.err != nil {
		return nil, f.err
	}
	return f.kids[pid], nil
}

func mustNew(t testing.TB, opts Options, in Inspector) *Resolver {
	t.Helper()
	r, err := New(opts, in)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestProgramFixtures(t *testing.T) {
	gone := errors.New("read argv of pid 4300: open /proc/4300/cmdline: no such file or directory")
	tests := []struct {
		fixture string
		in      *fakeInspector // nil: no inspector
		want    string
		pid     int
		why     string // a substring of Why
		argv0   string // Argv[0] of the result, when worth checking
	}{
		{fixture: "idle_shell", want: "", pid: 4242, why: "the shell (pid 4242) is in front"},
		{fixture: "no_group", want: "", why: "no foreground process group"},
		{fixture: "btop", want: "btop", pid: 4300, why: "argv of pid 4300", argv0: "btop"},
		{fixture: "login_shell", want: "", pid: 4300, why: "bash is a shell"},
		{fixture: "subshell", want: "", why: "bash is a shell"},
		{fixture: "nvim_dot_wrapped", want: "nvim"},
		{fixture: "nvim_wrapped", want: "nvim"},
		{fixture: "sudo", want: "btop", why: "looked through sudo", argv0: "btop"},
		{fixture: "sudo_cluster_env", want: "psql", argv0: "psql"},
		{fixture: "sudoedit", want: "sudoedit", why: "sudo -e is sudoedit"},
		{fixture: "doas", want: "htop", why: "looked through doas"},
		{fixture: "env", want: "btop", why: "looked through env"},
		{fixture: "env_split", want: "server.ts", why: "looked through env -S; script of deno"},
		{fixture: "nice", want: "make", why: "looked through nice", argv0: "make"},
		{fixture: "nohup", want: "rsync", why: "looked through nohup"},
		{fixture: "time", want: "cargo", why: "looked through time"},
		{fixture: "nix_run", want: "btop", why: "looked through nix run"},
		{fixture: "nix_run_opts", want: "httpie"},
		{fixture: "nix_shell_c", want: "jq", why: "looked through nix shell", argv0: "jq"},
		{fixture: "nix_shell_run", want: "http.server", why: "nix-shell --run; module of python3"},
		{fixture: "npx", want: "prettier", why: "looked through npx", argv0: "prettier@3.3.3"},
		{fixture: "npx_via_node", want: "create-vite", why: "script of node; looked through npx"},
		{fixture: "pnpm_dlx", want: "biome", why: "looked through pnpm dlx"},
		{fixture: "bunx", want: "vite", why: "looked through bunx"},
		{fixture: "uvx", want: "http", why: "looked through uvx"},
		{fixture: "uvx_version", want: "ruff"},
		{fixture: "uv_run_script", want: "manage.py", why: "looked through uv run; script of python3", argv0: "manage.py"},
		{fixture: "uv_run_module", want: "http.server", why: "module of uv run"},
		{fixture: "sh_exec_a", want: "mytool", why: "sh -c; exec -a mytool", argv0: "/opt/tool/bin/tool"},
		{fixture: "python_module", want: "http.server", why: "module of python3"},
		{fixture: "python_manage", want: "manage.py", why: "script of python3"},
		{fixture: "python_versioned", want: "python3.12"},
		{fixture: "node_vite", want: "vite", why: "script of node"},
		{fixture: "node_bin_link", want: "vite"},
		{fixture: "node_script", want: "script.js"},
		{fixture: "bash_script", want: "deploy.sh", why: "script of bash", argv0: "deploy.sh"},
		{fixture: "fish_c", want: "htop", why: "fish -c"},
		{fixture: "ssh", want: "ssh"},
		{fixture: "claude", want: "claude"},
		{fixture: "pipeline", want: "cat", pid: 4300},
		{fixture: "leader_gone", want: "less", pid: 4301},
		{fixture: "cmdline_only", want: "btop", why: "cmdline of pid 4300"},

		// herdr gave no argv: the local look fills in, or comm stands in.
		{fixture: "argv_missing", want: "btop", why: `comm "btop"`},
		{fixture: "argv_missing", in: &fakeInspector{procs: map[int]Proc{4300: {PID: 4300, Argv: []string{"btop", "--utf-force"}}}},
			want: "btop", why: "argv of pid 4300 read locally", argv0: "btop"},
		{fixture: "argv_missing", in: &fakeInspector{err: gone}, want: "btop", why: "no such file or directory; comm"},
		{fixture: "argv_missing_long_comm", want: "very-long-progr"},
		{fixture: "argv_missing_long_comm", in: &fakeInspector{procs: map[int]Proc{4300: {Argv: []string{"/opt/bin/very-long-program-name"}}}},
			want: "very-long-program-name"},
		{fixture: "leader_absent", want: "", why: "no local inspector"},
		{fixture: "leader_absent", in: &fakeInspector{procs: map[int]Proc{4300: {Argv: []string{"htop"}}}}, want: "htop", pid: 4300},
		{fixture: "leader_absent", in: &fakeInspector{err: gone}, want: "", why: "no such file"},

		// Wrappers: the child (local look), else the other group members,
		// else the command string.
		{fixture: "sh_c_wrapper", want: "make", pid: 4301, why: "group member pid 4301"},
		{fixture: "sh_c_wrapper", in: &fakeInspector{
			kids:  map[int][]int{4300: {4301}},
			procs: map[int]Proc{4301: {Argv: []string{"make", "watch"}}}},
			want: "make", pid: 4301, why: "sh -c; only child pid 4301 of a wrapper, read locally", argv0: "make"},
		{fixture: "sh_c_wrapper", in: &fakeInspector{err: gone}, want: "make", pid: 4301, why: "group member"},
		{fixture: "sh_c_ambiguous", want: "npm", pid: 4300, why: "sh -c"},
		{fixture: "sh_c_ambiguous", in: &fakeInspector{
			kids: map[int][]int{4300: {4301}, 4301: {4302}, 4302: {4303}, 4303: {4304}},
			procs: map[int]Proc{
				4301: {Argv: []string{"node", "/usr/lib/node_modules/npm/bin/npm-cli.js", "run", "dev"}},
				4302: {Argv: []string{"sh", "-c", "vite"}},
			}},
			want: "npm", pid: 4301, why: "only child pid 4301"},
		{fixture: "bash_wrapped_script", want: "foo-server", pid: 4301},
		{fixture: "bash_wrapped_script", in: &fakeInspector{
			kids:  map[int][]int{4300: {4301}},
			procs: map[int]Proc{4301: {Argv: []string{"/nix/store/z9-foo-1.0/libexec/foo-server", "--serve"}}}},
			want: "foo-server", pid: 4301, why: "script of bash; only child pid 4301"},
	}
	for _, tt := range tests {
		name := tt.fixture
		if tt.in != nil {
			name += "/inspector"
			if tt.in.err != nil {
				name += "-failing"
			}
		}
		t.Run(name, func(t *testing.T) {
			pi := loadProcessInfo(t, tt.fixture)
			var in Inspector
			if tt.in != nil {
				in = tt.in
			}
			got := mustNew(t, Options{}, in).Program(pi)
			if got.Name != tt.want {
				t.Errorf("Name = %q, want %q (why: %s)", got.Name, tt.want, got.Why)
			}
			if got.PGID != pi.ForegroundPGID {
				t.Errorf("PGID = %d, want %d", got.PGID, pi.ForegroundPGID)
			}
			if tt.pid != 0 && got.PID != tt.pid {
				t.Errorf("PID = %d, want %d (why: %s)", got.PID, tt.pid, got.Why)
			}
			if !strings.Contains(got.Why, tt.why) {
				t.Errorf("Why = %q, want it to contain %q", got.Why, tt.why)
			}
			if tt.argv0 != "" && (len(got.Argv) == 0 || got.Argv[0] != tt.argv0) {
				t.Errorf("Argv = %q, want it to start with %q", got.Argv, tt.argv0)
			}
		})
	}
}

// A plain program must not cost a local look: Children scans every
// process on some systems.
func TestProgramNoLocalLookWhenArgvSuffices(t *testing.T) {
	for _, fixture := range []string{"btop", "sudo", "node_vite", "python_module", "idle_shell", "nvim_dot_wrapped"} {
		in := &fakeInspector{}
		mustNew(t, Options{}, in).Program(loadProcessInfo(t, fixture))
		if in.calls != 0 {
			t.Errorf("%s: %d inspector calls, want 0", fixture, in.calls)
		}
	}
}

// Without members or an inspector, a wrapper is named from its command
// string.
func TestProgramCommandString(t *testing.T) {
	tests := []struct {
		cmd  string
		want string
	}{
		{"cd web && make watch; echo done", "make"},
		{"FOO=1 BAR='a b' exec btop", "btop"},
		{"export X=1; npx vitest --watch", "vitest"},
		{`exec -a -bash bash`, ""}, // a login shell, named the login-shell way
		{"sudo -u root 'my tool' --flag", "my tool"},
		{"", ""},
		{"   # only a comment", ""},
		{"(cd sub && cargo test) | tee log", "cargo"},
		{"bash -c 'bash -c \"sleep 9\"'", "sleep"},
	}
	r := mustNew(t, Options{}, nil)
	for _, tt := range tests {
		pi := herdr.ProcessInfo{ShellPID: 1, ForegroundPGID: 2,
			ForegroundProcesses: []herdr.Process{{PID: 2, Name: "sh", Argv: []string{"sh", "-c", tt.cmd}}}}
		got := r.Program(pi)
		if got.Name != tt.want {
			t.Errorf("sh -c %q: Name = %q, want %q (why: %s)", tt.cmd, got.Name, tt.want, got.Why)
		}
	}
}

// Each launcher and interpreter, argv by argv: the cases the fixtures do
// not already pin down.
func TestProgramArgv(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"sudo"}, "sudo"},
		{[]string{"sudo", "--user=root", "--", "htop"}, "htop"},
		{[]string{"sudo", "-u", "root", "-i"}, "sudo"},
		{[]string{"sudo", "--chdir", "/srv", "nix", "run", "nixpkgs#btop"}, "btop"},
		{[]string{"doas", "-s"}, "doas"},
		{[]string{"env"}, "env"},
		{[]string{"env", "-", "A=1", "top"}, "top"},
		{[]string{"env", "--chdir=/tmp", "--unset", "X", "nvim"}, "nvim"},
		{[]string{"nice", "-19", "make"}, "make"},
		{[]string{"nice", "--adjustment", "5", "make"}, "make"},
		{[]string{"nohup", "--", "./server"}, "server"},
		{[]string{"time", "-p", "go", "test"}, "go"},
		{[]string{"exec", "btop"}, "btop"},
		{[]string{"command", "btop"}, "btop"},
		{[]string{"nix", "run", "github:owner/tool"}, "tool"},
		{[]string{"nix", "run", "."}, "nix"},
		{[]string{"nix", "run", "nixpkgs#btop^out", "--", "-d"}, "btop"},
		{[]string{"nix", "develop", "--command", "cargo", "build"}, "cargo"},
		{[]string{"nix", "build", "nixpkgs#btop"}, "nix"},
		{[]string{"nix-shell", "-p", "jq"}, "nix-shell"},
		{[]string{"npx", "@angular/cli@17", "new"}, "cli"},
		{[]string{"npx", "-p", "typescript", "tsc", "--watch"}, "tsc"},
		{[]string{"npx", "-c", "eslint . && prettier -c ."}, "eslint"},
		{[]string{"npm", "exec", "--", "vitest@1"}, "vitest"},
		{[]string{"npm", "run", "dev"}, "npm"},
		{[]string{"pnpm", "exec", "vitest"}, "vitest"},
		{[]string{"pnpm", "dev"}, "pnpm"},
		{[]string{"yarn", "dlx", "create-next-app"}, "create-next-app"},
		{[]string{"bun", "x", "cowsay"}, "cowsay"},
		{[]string{"bun", "run", "src/index.ts"}, "index.ts"},
		{[]string{"bun", "dev"}, "bun"},
		{[]string{"deno", "task", "dev"}, "deno"},
		{[]string{"uvx", "httpie[socks]>=3"}, "httpie"},
		{[]string{"uv", "tool", "run", "black", "."}, "black"},
		{[]string{"uv", "sync"}, "uv"},
		{[]string{"python3"}, "python3"},
		{[]string{"python3", "-c", "print(1)"}, "python3"},
		{[]string{"python", "-u", "-W", "ignore", "train.py"}, "train.py"},
		{[]string{"python3", "-mhttp.server"}, "http.server"},
		{[]string{"pypy3", "bench.py"}, "bench.py"},
		{[]string{"python3", "/usr/bin/.pip-wrapped", "install"}, "pip"},
		{[]string{"node"}, "node"},
		{[]string{"node", "-e", "1"}, "node"},
		{[]string{"node", "--require", "ts-node/register", "app.ts"}, "app.ts"},
		{[]string{"node", "/usr/lib/node_modules/npm/bin/npm-cli.js", "run", "dev"}, "npm"},
		{[]string{"node", "/usr/lib/node_modules/npm/bin/npx-cli.js", "cowsay@1"}, "cowsay"},
		{[]string{"node", "/x/node_modules/next/dist/bin/next", "dev"}, "next"},
		{[]string{"node", "/x/node_modules/@vue/cli/bin/vue.js"}, "vue"},
		{[]string{"node", "/x/node_modules/typescript/bin/tsc"}, "tsc"},
		{[]string{"tsx", "watch.ts"}, "watch.ts"},
		{[]string{"ruby", "-e", "puts 1"}, "ruby"},
		{[]string{"ruby", "-I", "lib", "bin/rails", "s"}, "rails"},
		{[]string{"perl", "-Ilib", "script.pl"}, "script.pl"},
		{[]string{"bash", "-x", "./deploy.sh"}, "deploy.sh"},
		{[]string{"bash", "-lc", "htop"}, "htop"},
		{[]string{"bash", "-s"}, ""},
		{[]string{"zsh", "-o", "extendedglob", "tool.zsh"}, "tool.zsh"},
		{[]string{"nu", "-c", "ls"}, "ls"},
		{[]string{"login", "-f", "u"}, ""},
		{[]string{"-fish"}, ""},
		{[]string{"/run/current-system/sw/bin/.btop-wrapped-wrapped"}, "btop"},
		{[]string{"sudo", "sudo", "sudo", "sudo", "sudo", "sudo", "sudo", "sudo", "sudo", "sudo", "sudo", "sudo", "sudo", "sudo", "sudo", "sudo", "sudo", "sudo", "x"}, "sudo"},
	}
	r := mustNew(t, Options{}, nil)
	for _, tt := range tests {
		pi := herdr.ProcessInfo{ShellPID: 1, ForegroundPGID: 2,
			ForegroundProcesses: []herdr.Process{{PID: 2, Name: "x", Argv: tt.argv}}}
		if got := r.Program(pi); got.Name != tt.want {
			t.Errorf("%q: Name = %q, want %q (why: %s)", tt.argv, got.Name, tt.want, got.Why)
		}
	}
}

func TestRewritesAndAliases(t *testing.T) {
	opts := Options{
		Rewrites: []RewriteSpec{
			{Match: `^python3?\.\d+$`, Replace: "python"},
			{Match: `^(.*)\.py$`, Replace: "$1"},
			{Match: `^htop$`, Replace: ""},
		},
		Aliases: map[string]string{"nvim": "vim", "python": "py", "git": ""},
	}
	r := mustNew(t, opts, nil)
	tests := []struct {
		argv []string
		want string
		why  string
	}{
		{[]string{"python3.12"}, "py", "rewrite rule 1 (^python3?\\.\\d+$); alias python=py"},
		{[]string{"python3", "manage.py"}, "manage", "rewrite rule 2"},
		{[]string{".nvim-wrapped"}, "vim", "alias nvim=vim"},
		{[]string{"htop"}, "", "rewrite rule 3"},
		{[]string{"git", "log"}, "", "alias git="},
		{[]string{"btop"}, "btop", "argv of pid 2"},
		{[]string{"bash"}, "", "bash is a shell"},
	}
	for _, tt := range tests {
		pi := herdr.ProcessInfo{ShellPID: 1, ForegroundPGID: 2,
			ForegroundProcesses: []herdr.Process{{PID: 2, Argv: tt.argv}}}
		got := r.Program(pi)
		if got.Name != tt.want || !strings.Contains(got.Why, tt.why) {
			t.Errorf("%q: got %q (why %q), want %q (why containing %q)", tt.argv, got.Name, got.Why, tt.want, tt.why)
		}
	}
}

func TestShells(t *testing.T) {
	def := mustNew(t, Options{}, nil)
	for _, s := range []string{"fish", "-zsh", "/bin/bash", "sh", "dash", "ksh", "csh", "tcsh", "nu", "elvish", "xonsh", "login", ".zsh-wrapped"} {
		if !def.IsShell(s) {
			t.Errorf("IsShell(%q) = false, want true", s)
		}
	}
	for _, s := range []string{"btop", "nvim", "", "shell", "bashtop"} {
		if def.IsShell(s) {
			t.Errorf("IsShell(%q) = true, want false", s)
		}
	}
	custom := mustNew(t, Options{Shells: []string{"ion", "fish"}}, nil)
	if !custom.IsShell("ion") || custom.IsShell("bash") {
		t.Error("custom shells: want ion a shell and bash not")
	}
	pi := herdr.ProcessInfo{ShellPID: 1, ForegroundPGID: 2, ForegroundProcesses: []herdr.Process{{PID: 2, Argv: []string{"bash"}}}}
	if got := custom.Program(pi).Name; got != "bash" {
		t.Errorf("bash with custom shells: Name = %q, want bash", got)
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		opts Options
		want string
	}{
		{Options{Rewrites: []RewriteSpec{{Match: "^ok$"}, {Match: "(", Replace: "x"}}},
			"rewrite rule 2: bad match \"(\": error parsing regexp: missing closing ): `(`"},
		{Options{Rewrites: []RewriteSpec{{Match: ""}}}, "rewrite rule 1: empty match"},
		{Options{Shells: []string{"bash", " "}}, "shells: entry 2 is empty"},
		{Options{Aliases: map[string]string{"": "x"}}, `alias: empty program name (maps to "x")`},
	}
	for _, tt := range tests {
		_, err := New(tt.opts, nil)
		if err == nil || err.Error() != tt.want {
			t.Errorf("New(%+v) error = %v, want %q", tt.opts, err, tt.want)
		}
	}
}

func TestParseAliases(t *testing.T) {
	tests := []struct {
		spec    string
		want    map[string]string
		wantErr string
	}{
		{spec: "", want: map[string]string{}},
		{spec: "nvim=vim", want: map[string]string{"nvim": "vim"}},
		{spec: " nvim = vim , hx=helix,git=", want: map[string]string{"nvim": "vim", "hx": "helix", "git": ""}},
		{spec: "nvim", wantErr: `alias "nvim": entry 1 "nvim" has no '=' (want from=to)`},
		{spec: "a=b,,c=d", wantErr: `alias "a=b,,c=d": entry 2 is empty`},
		{spec: "a=b,", wantErr: `alias "a=b,": entry 2 is empty`},
		{spec: "=vim", wantErr: `alias "=vim": entry 1 "=vim" has no program name before '='`},
		{spec: "a=b,a=c", wantErr: `alias "a=b,a=c": entry 2 maps "a" a second time`},
	}
	for _, tt := range tests {
		got, err := ParseAliases(tt.spec)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("ParseAliases(%q) error = %v, want %q", tt.spec, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseAliases(%q): %v", tt.spec, err)
			continue
		}
		if len(got) != len(tt.want) {
			t.Errorf("ParseAliases(%q) = %v, want %v", tt.spec, got, tt.want)
		}
		for k, v := range tt.want {
			if g, ok := got[k]; !ok || g != v {
				t.Errorf("ParseAliases(%q)[%q] = %q, want %q", tt.spec, k, g, v)
			}
		}
	}
}

// The caller's alias map is copied: changing it later changes nothing.
func TestNewCopiesAliases(t *testing.T) {
	aliases := map[string]string{"nvim": "vim"}
	r := mustNew(t, Options{Aliases: aliases}, nil)
	aliases["nvim"] = "changed"
	pi := herdr.ProcessInfo{ShellPID: 1, ForegroundPGID: 2, ForegroundProcesses: []herdr.Process{{PID: 2, Argv: []string{"nvim"}}}}
	if got := r.Program(pi).Name; got != "vim" {
		t.Errorf("Name = %q, want vim", got)
	}
}

// A Resolver is shared by the daemon's passes: it must be race-free.
func TestProgramConcurrent(t *testing.T) {
	r := mustNew(t, Options{Rewrites: []RewriteSpec{{Match: `^b(top)$`, Replace: "${1}"}}}, &fakeInspector{})
	pi := loadProcessInfo(t, "sudo")
	done := make(chan string)
	for range 8 {
		go func() {
			name := ""
			for range 200 {
				name = r.Program(pi).Name
			}
			done <- name
		}()
	}
	for range 8 {
		if name := <-done; name != "top" {
			t.Errorf("Name = %q, want top", name)
		}
	}
}

func BenchmarkProgram(b *testing.B) {
	r := mustNew(b, Options{Rewrites: []RewriteSpec{{Match: `^python3?\.\d+$`, Replace: "python"}},
		Aliases: map[string]string{"nvim": "vim"}}, nil)
	for _, fixture := range []string{"idle_shell", "btop", "nvim_dot_wrapped", "sudo", "node_vite", "python_module", "sh_c_wrapper", "sh_c_ambiguous"} {
		pi := loadProcessInfo(b, fixture)
		b.Run(fixture, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = r.Program(pi)
			}
		})
	}
}

// Shell is true only when the pane's own shell leads the foreground group:
// another shell in front (nested, or the shell's fork before its exec)
// has a name of "" too, but not the pane's directory.
func TestProgramShellIsThePanesOwn(t *testing.T) {
	for fixture, want := range map[string]bool{"idle_shell": true, "login_shell": false, "subshell": false, "btop": false, "no_group": false} {
		if got := mustNew(t, Options{}, nil).Program(loadProcessInfo(t, fixture)).Shell; got != want {
			t.Errorf("%s: Shell = %v, want %v", fixture, got, want)
		}
	}
}

// A process runs what $SHELL names by its first word or its command
// name, each by its display name, a command name cut by the kernel
// included.
func TestRunsProgram(t *testing.T) {
	tests := []struct {
		argv       []string
		comm, path string
		want       bool
	}{
		{[]string{"/usr/local/bin/mysh"}, "mysh", "/usr/local/bin/mysh", true},
		{[]string{"-mysh"}, "mysh", "/usr/local/bin/mysh", true},
		{nil, "mysh", "/usr/local/bin/mysh", true},
		{[]string{"mysh", "-l"}, "", "mysh", true},
		{nil, ".mysh-wrapped", "/run/current-system/sw/bin/mysh", true},
		{nil, "a-shell-of-mine", "/bin/a-shell-of-mine-2", true},
		{nil, "a-shell-of", "/bin/a-shell-of-mine-2", false},
		{[]string{"vim", "x"}, "vim", "/usr/local/bin/mysh", false},
		{[]string{"vim"}, "vim", "", false},
		{nil, "", "/bin/bash", false},
	}
	for _, tt := range tests {
		if got := runsProgram(tt.argv, tt.comm, tt.path); got != tt.want {
			t.Errorf("runsProgram(%q, %q, %q) = %v, want %v", tt.argv, tt.comm, tt.path, got, tt.want)
		}
	}
}

// Between herdr's fork of a new pane's process and that process's exec of
// the pane's shell, the pane's own process is herdr: no program runs in
// the pane yet, and herdr is not one. A daemon that asks in that window
// (its request answered at once) names the tab after its folder, as it
// will once the shell runs, not "herdr".
func TestProgramPaneBeforeItsShellStarts(t *testing.T) {
	for _, proc := range []herdr.Process{
		{PID: 4242, Name: "herdr", Argv: []string{"/home/u/.local/bin/herdr", "server"}},
		{PID: 4242, Name: "herdr", Cmdline: "herdr server"},
		{PID: 4242, Name: "herdr"},
		{PID: 4242, Name: "herdr", Cmdline: "  "},
		{PID: 4242, Name: ".herdr-wrapped", Argv: []string{"/nix/store/x-herdr/bin/.herdr-wrapped", "server"}},
	} {
		pi := herdr.ProcessInfo{PaneID: "w1:p1", ShellPID: 4242, ForegroundPGID: 4242, ForegroundProcesses: []herdr.Process{proc}}
		p := mustNew(t, Options{}, nil).Program(pi)
		if p.Name != "" || p.Shell {
			t.Errorf("%+v: Program = %q (shell %v, %s), want no program and no shell yet", proc, p.Name, p.Shell, p.Why)
		}
	}
}
