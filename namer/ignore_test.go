package namer

import (
	"reflect"
	"strings"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// shellPane is a pane whose shell sits in /x/proj, as herdr reports it
// while the shell or a program started there is in front.
var shellPane = herdr.Pane{Cwd: "/x/proj", ForegroundCwd: "/x/proj"}

// prog is the facts the daemon hands over for a program: {proc}, the
// program's own name, {args} and its glyph.
func prog(name, args string) Facts {
	return Facts{Proc: name, Exe: name, Args: args, Glyph: "G"}
}

// A quick command in front names the tab exactly as the shell in front
// does: same name, same variants, same token values, so Judge sees no
// change and no rename goes out, neither now nor when it exits.
func TestQuickCommandNamesAsTheShell(t *testing.T) {
	formats := []string{"{proc|dir}", "{glyph} {args|dir}", "{icon} {proc|agent}:{dir}", "{index} {proc|dir}"}
	tests := []struct {
		name  string
		cfg   Config
		f     Facts
		quick bool
	}{
		{"ls", Config{}, prog("ls", "ls -la"), true},
		{"sudo ls (procinfo names it ls)", Config{}, prog("ls", "ls /root"), true},
		{"git status by its command line", Config{}, prog("git", "git status -sb"), true},
		{"git branch", Config{}, prog("git", "git branch"), true},
		{"git log is read in its pager", Config{}, prog("git", "git log --oneline"), false},
		{"git rebase -i waits for an editor", Config{}, prog("git", "git rebase -i HEAD~3"), false},
		{"vim", Config{}, prog("vim", "vim main.go"), false},
		{"less", Config{}, prog("less", "less README.md"), false},
		{"sleep is a program people wait on", Config{}, prog("sleep", "sleep 30"), false},
		{"ssh running ls remotely", Config{}, Facts{Proc: "@zmb:ls", Exe: "ssh", Args: "ssh zmb ls"}, false},
		{"an alias's display name", Config{}, Facts{Proc: "ls", Exe: "exa", Args: "ls"}, true},
		{"ignore replaces the defaults", Config{Ignore: []string{"vim"}}, prog("ls", "ls"), false},
		{"ignore names its own", Config{Ignore: []string{"vim"}}, prog("vim", "vim x"), true},
		{"empty ignore: nothing is quick", Config{Ignore: []string{}}, prog("ls", "ls"), false},
		{"extend-ignore keeps the defaults", Config{ExtendIgnore: []string{"make"}}, prog("ls", "ls"), true},
		{"extend-ignore adds", Config{ExtendIgnore: []string{"make"}}, prog("make", "make test"), true},
		{"globs", Config{ExtendIgnore: []string{"*sum"}}, prog("sha256sum", "sha256sum x"), true},
		{"a glob is on the whole name", Config{ExtendIgnore: []string{"*sum"}}, prog("summary", "summary"), false},
		{"both lists", Config{Ignore: []string{"vim"}, ExtendIgnore: []string{"git push*"}}, prog("git", "git push origin"), true},
		{"a command-line glob on the first word", Config{Ignore: []string{"{make,just} test*"}}, prog("just", "just test -v"), true},
		{"a command-line glob with a tab", Config{Ignore: []string{"make\ttest"}}, prog("make", "make\ttest"), true},
	}
	for _, tt := range tests {
		for _, format := range formats {
			t.Run(tt.name+"/"+format, func(t *testing.T) {
				cfg := tt.cfg
				cfg.Format = format
				shell := decideWith(t, cfg, shellPane, Facts{Index: 2})
				f := tt.f
				f.Index = 2
				got := decideWith(t, cfg, shellPane, f)
				same := reflect.DeepEqual(got, shell)
				if tt.quick && !same {
					t.Errorf("quick command named %q (values %v), want the shell's %q (values %v)", got.Want, got.Values, shell.Want, shell.Values)
				}
				if !tt.quick && got.Want == shell.Want {
					t.Errorf("program %q named %q like the shell; it must show", tt.f.Args, got.Want)
				}
			})
		}
	}
}

// git works from the top of its work tree: `git status` typed in
// ~/repo/src has foreground_cwd ~/repo. The tab stays the shell's "src",
// and a dir rule on the shell's directory still holds.
func TestQuickCommandKeepsTheShellsDirectory(t *testing.T) {
	shell := herdr.Pane{Cwd: "/x/repo/src", ForegroundCwd: "/x/repo/src"}
	git := herdr.Pane{Cwd: "/x/repo/src", ForegroundCwd: "/x/repo"}
	for _, cfg := range []Config{
		{Format: "{dir}"},
		{Format: "{cwd}"},
		{Rules: []RuleSpec{{Dir: "/x/repo/src", Name: "sources"}}},
		{Rules: []RuleSpec{{Dir: "/x/repo", Name: "top"}, {Dir: "/x/*/src", Format: "{match}!"}}},
	} {
		want := decideWith(t, cfg, shell, Facts{})
		got := decideWith(t, cfg, git, prog("git", "git status"))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: git status in a subdirectory = %q, want the shell's %q", cfg, got.Want, want.Want)
		}
		if other := decideWith(t, cfg, git, prog("make", "make")); other.Want == want.Want && cfg.Format == "{dir}" {
			t.Errorf("%+v: a program that moved shows its own directory, got %q", cfg, other.Want)
		}
	}
}

// Whether a program that moved away from the shell's directory is quick,
// or is the shell itself, decides the name, so the daemon must learn the
// program even when the template has no {proc} and nothing is ignored.
func TestQuickNeedsProcWhenTheProgramMoved(t *testing.T) {
	moved := herdr.Pane{ID: "w1:p1", Cwd: "/x/repo/src", ForegroundCwd: "/x/repo"}
	here := herdr.Pane{ID: "w1:p1", Cwd: "/x/repo/src", ForegroundCwd: "/x/repo/src"}
	agent := moved
	agent.Agent = "claude"
	tests := []struct {
		name string
		cfg  Config
		pane herdr.Pane
		want bool
	}{
		{"moved", Config{Format: "{cwd}"}, moved, true},
		{"moved, nothing ignored", Config{Format: "{cwd}", Ignore: []string{}}, moved, true},
		{"moved, only extend-ignore", Config{Format: "{cwd}", Ignore: []string{}, ExtendIgnore: []string{"x"}}, moved, true},
		{"in the shell's directory", Config{Format: "{cwd}"}, here, false},
		{"agent", Config{Format: "{cwd}"}, agent, false},
		{"no cwd from herdr", Config{Format: "{cwd}"}, herdr.Pane{ID: "w1:p1", ForegroundCwd: "/x"}, false},
	}
	for _, tt := range tests {
		n := mustNew(t, tt.cfg)
		p := n.Plan(herdr.Tab{ID: "w1:t1"}, herdr.Workspace{ID: "w1"}, []herdr.Pane{tt.pane})
		if p.NeedsProc != tt.want {
			t.Errorf("%s: NeedsProc = %v, want %v", tt.name, p.NeedsProc, tt.want)
		}
	}
}

// An agent pane is named by its agent whatever its program is called.
func TestQuickLeavesAgentsAlone(t *testing.T) {
	pane := shellPane
	pane.Agent = "claude"
	cfg := Config{Format: "{glyph} {agent|proc|dir}", ExtendIgnore: []string{"*"}}
	if got := decideWith(t, cfg, pane, Facts{Proc: "node", Exe: "node", Glyph: "A"}).Want; got != "A claude" {
		t.Errorf("agent pane = %q, want %q", got, "A claude")
	}
}

// A program rule never sees a quick program: the tab is the shell's.
func TestQuickBeatsProgramRules(t *testing.T) {
	cfg := Config{Rules: []RuleSpec{{Program: "ls", Name: "listing"}}}
	if got := decideWith(t, cfg, shellPane, prog("ls", "ls")).Want; got != "proj" {
		t.Errorf("ls with a program rule = %q, want %q", got, "proj")
	}
}

func TestIgnoreErrors(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{Ignore: []string{"ls", "[ls"}}, `ignore: entry 2: bad glob "[ls": column 4: unexpected end of input`},
		{Config{ExtendIgnore: []string{"{a,b"}}, "extend-ignore: entry 1: bad glob \"{a,b\": column 5: unclosed `{`"},
		{Config{Ignore: []string{" "}}, `ignore: entry 1: empty pattern`},
	}
	for _, tt := range tests {
		_, err := New(tt.cfg)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("New(%+v) = %v, want one line starting %s", tt.cfg, err, tt.want)
		}
	}
}

// The defaults compile, are filled into Config, and none is listed twice.
func TestDefaultIgnore(t *testing.T) {
	n := mustNew(t, Config{})
	got := n.Config().Ignore
	if !reflect.DeepEqual(got, DefaultIgnore()) {
		t.Fatalf("Config().Ignore = %q, want DefaultIgnore()", got)
	}
	seen := map[string]bool{}
	for _, p := range got {
		if seen[p] {
			t.Errorf("%q listed twice", p)
		}
		seen[p] = true
		if err := CheckIgnore(p); err != nil {
			t.Errorf("default %q: %v", p, err)
		}
	}
	for _, watched := range []string{"less", "man", "vim", "nvim", "top", "htop", "tail", "watch", "sleep", "ssh", "make", "git"} {
		if seen[watched] {
			t.Errorf("%q is a program people watch; it must not be in the defaults", watched)
		}
	}
}

// BenchmarkQuick is the look-up Decide makes for a pane's program against
// the built-in list: a program that is not on it (every busy pane pays
// this), one that is, and one matched by its command line.
func BenchmarkQuick(b *testing.B) {
	n := mustNew(b, Config{})
	var p Plan
	for _, f := range []Facts{prog("vim", "vim main.go"), prog("ls", "ls -la"), prog("git", "git status -sb")} {
		b.Run(f.Proc+"/"+f.Args, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				n.quickProgram(p, f)
			}
		})
	}
}
