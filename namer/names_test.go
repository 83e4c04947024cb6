package namer

import (
	"github.com/herdrtabrenamer/herdrtabrenamer/owner"
	"strings"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// decideWith renders format for one pane with the given facts.
func decideWith(t *testing.T, cfg Config, pane herdr.Pane, f Facts) Decision {
	t.Helper()
	if cfg.MaxLen == 0 {
		cfg.MaxLen = DefaultMaxLen
	}
	n := mustNew(t, cfg)
	pane.ID, pane.TabID, pane.WorkspaceID = "w1:p1", "w1:t1", "w1"
	if pane.AgentStatus == "" {
		pane.AgentStatus = herdr.StatusUnknown
	}
	tab := herdr.Tab{ID: "w1:t1", WorkspaceID: "w1", Number: 1, Label: "1", AgentStatus: pane.AgentStatus}
	return n.Decide(n.Plan(tab, herdr.Workspace{ID: "w1"}, []herdr.Pane{pane}), f)
}

func TestForegroundCwdWins(t *testing.T) {
	tests := []struct {
		name        string
		cwd, fg     string
		format      string
		rules       []RuleSpec
		want, wantD string
	}{
		{"program runs elsewhere", home + "/src/api", home + "/src/api/frontend", "{dir}", nil, "frontend", home + "/src/api/frontend"},
		{"cwd shown whole", home + "/src/api", home + "/src/api/frontend", "{cwd}", nil, "~/src/api/frontend", home + "/src/api/frontend"},
		{"no foreground_cwd: cwd", home + "/src/api", "", "{dir}", nil, "api", home + "/src/api"},
		{"only foreground_cwd", "", "/srv/x", "{dir}", nil, "x", "/srv/x"},
		{"rules follow it", home + "/src/api", home + "/work/w", "{dir}", []RuleSpec{{Dir: "~/work/*", Format: "W:{match}"}}, "W:w", home + "/work/w"},
	}
	// A symlinked cwd: OSC 7 keeps the link, /proc resolves it.
	sameDir := func(cwd, fg string) bool { return cwd == home+"/work/w" && fg == "/mnt/ssd/w" }
	tests = append(tests, struct {
		name        string
		cwd, fg     string
		format      string
		rules       []RuleSpec
		want, wantD string
	}{"symlinked cwd keeps the shell's path", home + "/work/w", "/mnt/ssd/w", "{cwd}", []RuleSpec{{Dir: "~/work/*", Format: "W:{cwd}"}}, "W:~/work/w", home + "/work/w"})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := mustNew(t, Config{Format: tt.format, Rules: tt.rules, SameDir: sameDir})
			tab := herdr.Tab{ID: "w1:t1", Number: 1, AgentStatus: herdr.StatusUnknown}
			p := n.Plan(tab, herdr.Workspace{}, []herdr.Pane{{ID: "w1:p1", Cwd: tt.cwd, ForegroundCwd: tt.fg}})
			if p.Dir != tt.wantD {
				t.Errorf("Plan.Dir = %q, want %q", p.Dir, tt.wantD)
			}
			if got := n.Decide(p, Facts{}).Want; got != tt.want {
				t.Errorf("Want = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTask(t *testing.T) {
	tests := []struct {
		name string
		pane herdr.Pane
		want string
	}{
		{"claude idle", herdr.Pane{Agent: "claude", TerminalTitle: "✳ Fix login redirect"}, "Fix login redirect"},
		{"claude spinner", herdr.Pane{Agent: "claude", TerminalTitle: "⠐ Fix login redirect"}, "Fix login redirect"},
		{"claude default title", herdr.Pane{Agent: "claude", TerminalTitle: "✳ Claude Code"}, ""},
		{"agent name prefix", herdr.Pane{Agent: "codex", TerminalTitle: "codex: review the parser"}, "review the parser"},
		{"display name prefix", herdr.Pane{Agent: "claude", TerminalTitle: "Claude Code - Add tests"}, "Add tests"},
		{"pi with dir and model", herdr.Pane{Agent: "pi", Cwd: "/h/my-project", TerminalTitle: "⠹ π my-project · claude-sonnet-4"}, ""},
		{"pi tool", herdr.Pane{Agent: "pi", Cwd: "/h/my-project", TerminalTitle: "π my-project · my-session · claude-sonnet-4"}, "my-session"},
		{"path only", herdr.Pane{Agent: "pi", TerminalTitle: "pi - ~/src/api"}, ""},
		{"absolute path", herdr.Pane{Agent: "codex", TerminalTitle: "/home/u/src"}, ""},
		{"bare version", herdr.Pane{Agent: "claude", TerminalTitle: "Claude Code v2.0.14"}, ""},
		{"version alone", herdr.Pane{Agent: "gemini", TerminalTitle: "1.2.3"}, ""},
		{"metadata title first", herdr.Pane{Agent: "claude", Title: "Refactor store", TerminalTitle: "✳ Other"}, "Refactor store"},
		{"stripped title as fallback", herdr.Pane{Agent: "claude", TerminalTitleStripped: "Write docs"}, "Write docs"},
		{"no agent, no task", herdr.Pane{TerminalTitle: "✳ Fix login redirect"}, ""},
		{"escapes sanitised", herdr.Pane{Agent: "claude", TerminalTitle: "✳ Fix \x1b[31mlogin\x1b[0m\x07"}, "Fix login"},
		{"dash inside a task kept", herdr.Pane{Agent: "claude", TerminalTitle: "✳ Fix log-in - part 2"}, "Fix log-in - part 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Task(tt.pane); got != tt.want {
				t.Errorf("Task = %q, want %q", got, tt.want)
			}
		})
	}
	// Through a template: docs/templates.md's `{icon} {task|proc|dir}`.
	d := decideWith(t, Config{Format: "{icon} {task|proc|dir}"},
		herdr.Pane{Agent: "claude", AgentStatus: herdr.StatusWorking, Cwd: "/x/api", TerminalTitle: "⠂ Fix login redirect"}, Facts{})
	if d.Want != "🟡 Fix login redirect" {
		t.Errorf("{icon} {task|proc|dir} = %q", d.Want)
	}
	d = decideWith(t, Config{Format: "{icon} {task|proc|dir}"},
		herdr.Pane{Agent: "claude", AgentStatus: herdr.StatusIdle, Cwd: "/x/api", TerminalTitle: "✳ Claude Code"}, Facts{})
	if d.Want != "⚪ api" {
		t.Errorf("no task: %q", d.Want)
	}
}

func TestSessionToken(t *testing.T) {
	session := &herdr.AgentSession{Source: "herdr:claude", Agent: "claude", Kind: herdr.SessionKindID, Value: "s1"}
	claude := herdr.Pane{Agent: "claude", AgentSession: session, AgentStatus: herdr.StatusWorking, Cwd: "/x/api",
		TerminalTitle: "⠂ Fix login redirect"}
	const format = "{icon} {session|task|proc|dir}"
	tests := []struct {
		name        string
		format      string
		pane        herdr.Pane
		f           Facts
		want        string
		needSession bool
	}{
		{"the session's title first", format, claude, Facts{Session: "auth redirect"}, "🟡 auth redirect", true},
		{"no title: the task", format, claude, Facts{}, "🟡 Fix login redirect", true},
		{"sanitised, one line", "{session}", claude, Facts{Session: " auth\x1b]0;evil\x07 \u202eredirect\nmore"}, "auth redirect more", true},
		{"cut to max-len", "{session}", claude, Facts{Session: strings.Repeat("long ", 10)}, "long long long long lon…", true},
		{"no agent: no session", format, herdr.Pane{Cwd: "/x/api"}, Facts{Proc: "vim", Session: "stale"}, "vim", false},
		{"an agent without a session is not asked", format, herdr.Pane{Agent: "pi", AgentStatus: herdr.StatusIdle, Cwd: "/x/pi"}, Facts{}, "⚪ pi", false},
		{"not in the template: not asked", "{task|dir}", claude, Facts{Session: "auth redirect"}, "Fix login redirect", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := mustNew(t, Config{Format: tt.format, MaxLen: DefaultMaxLen})
			pane := tt.pane
			pane.ID, pane.TabID, pane.WorkspaceID = "w1:p1", "w1:t1", "w1"
			tab := herdr.Tab{ID: "w1:t1", WorkspaceID: "w1", Number: 1, Label: "1", AgentStatus: pane.AgentStatus}
			if tab.AgentStatus == "" {
				tab.AgentStatus = herdr.StatusUnknown
			}
			p := n.Plan(tab, herdr.Workspace{ID: "w1"}, []herdr.Pane{pane})
			if p.NeedsSession != tt.needSession {
				t.Errorf("NeedsSession = %v, want %v", p.NeedsSession, tt.needSession)
			}
			d := n.Decide(p, tt.f)
			if d.Want != tt.want {
				t.Errorf("Want = %q, want %q", d.Want, tt.want)
			}
			if v := d.Values["session"]; strings.ContainsAny(v, "\n\x1b") {
				t.Errorf("Values[session] = %q", v)
			}
		})
	}
}

func TestBranchShaping(t *testing.T) {
	tests := []struct {
		name         string
		hide         bool
		branch, def  string
		format, want string
	}{
		{"default branch hidden", true, "main", "main", "{repo}:{branch}", "api"},
		{"other branch shown", true, "feature/x", "main", "{repo}:{branch}", "api:feature/x"},
		{"not hidden without the option", false, "main", "main", "{repo}:{branch}", "api:main"},
		{"unknown default: nothing hidden", true, "main", "", "{repo}:{branch}", "api:main"},
		{"ticket", false, "feature/ABC-123-fix-login", "main", "{ticket|branch}", "ABC-123"},
		{"no ticket: branch", false, "fix-2-bugs", "main", "{ticket|branch}", "fix-2-bugs"},
		{"ticket on a hidden default branch", true, "main", "main", "{ticket|repo}", "api"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := decideWith(t, Config{Format: tt.format, HideDefaultBranch: tt.hide}, herdr.Pane{Cwd: "/x/api"},
				Facts{Repo: "api", Branch: tt.branch, DefaultBranch: tt.def})
			if d.Want != tt.want {
				t.Errorf("Want = %q, want %q", d.Want, tt.want)
			}
		})
	}
	tickets := map[string]string{
		"feature/ABC-123-fix-login": "ABC-123", "ABC-1": "ABC-1", "fix/GH-7": "GH-7",
		"feature/abc-123-fix": "", "main": "", "release-2.0": "", "XABC-12y": "", "A-1": "",
		"JIRA-12_and-OPS-4": "JIRA-12", "v2-PROJ-99": "PROJ-99",
	}
	for in, want := range tickets {
		if got := Ticket(in); got != want {
			t.Errorf("Ticket(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIndexArgsGlyphTokens(t *testing.T) {
	tests := []struct {
		name   string
		format string
		pane   herdr.Pane
		f      Facts
		want   string
	}{
		{"index", "{index} {proc|dir}", herdr.Pane{Cwd: "/x/a"}, Facts{Proc: "vim", Index: 2}, "2 vim"},
		{"index 9", "{index} {proc|dir}", herdr.Pane{Cwd: "/x/a"}, Facts{Index: 9}, "9 a"},
		{"no index from 10", "{index} {proc|dir}", herdr.Pane{Cwd: "/x/a"}, Facts{Proc: "vim", Index: 10}, "vim"},
		{"unknown index", "{index} {proc|dir}", herdr.Pane{Cwd: "/x/a"}, Facts{Proc: "vim"}, "vim"},
		{"args", "{args}", herdr.Pane{Cwd: "/x/a"}, Facts{Proc: "git", Args: "git log --oneline"}, "git log --oneline"},
		{"args sanitised", "{args}", herdr.Pane{Cwd: "/x/a"}, Facts{Proc: "figlet", Args: "figlet \x1b]0;evil\x07hi\nthere"}, "figlet hi there"},
		{"args of an agent pane", "{args|dir}", herdr.Pane{Cwd: "/x/a", Agent: "claude"}, Facts{Args: "node cli.js"}, "a"},
		{"args cut", "{args}", herdr.Pane{Cwd: "/x/a"}, Facts{Proc: "git", Args: "git log --oneline --graph --all --decorate"}, "git log --oneline --gra…"},
		{"glyph", "{glyph} {proc|dir}", herdr.Pane{Cwd: "/x/a"}, Facts{Proc: "nvim", Glyph: "\ue7c5"}, "\ue7c5 nvim"},
		{"no glyph", "{glyph} {proc|dir}", herdr.Pane{Cwd: "/x/a"}, Facts{}, "a"},
		{"ssh host in proc", "{proc|dir}", herdr.Pane{Cwd: "/x/a"}, Facts{Proc: "@zmb:btop", Exe: "ssh"}, "@zmb:btop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := decideWith(t, Config{Format: tt.format}, tt.pane, tt.f).Want; got != tt.want {
				t.Errorf("Want = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestProgramRuleMatchesExe(t *testing.T) {
	cfg := Config{Format: "{proc|dir}", Rules: []RuleSpec{{Program: "ssh", Format: "remote {host}"}}}
	d := decideWith(t, cfg, herdr.Pane{Cwd: "/x/a"}, Facts{Proc: "@zmb", Exe: "ssh", Host: "zmb"})
	if d.Want != "remote zmb" || d.Rule == nil {
		t.Errorf("program = \"ssh\" on @zmb: Want %q rule %v", d.Want, d.Rule)
	}
	cfg.Rules[0].Program = "@*"
	if d := decideWith(t, cfg, herdr.Pane{Cwd: "/x/a"}, Facts{Proc: "@zmb", Exe: "ssh", Host: "zmb"}); d.Want != "remote zmb" {
		t.Errorf("program = \"@*\": Want %q", d.Want)
	}
}

func TestNeedsNewTokens(t *testing.T) {
	tests := []struct {
		format              string
		agent               string
		proc, branch, glyph bool
	}{
		{"{args}", "", true, false, false},
		{"{glyph}", "", true, false, true},
		{"{glyph}", "claude", false, false, true},
		{"{ticket}", "", false, true, false},
		{"{task}{index}", "", false, false, false},
	}
	for _, tt := range tests {
		n := mustNew(t, Config{Format: tt.format})
		p := (scene{cwd: "/a", agent: tt.agent}).plan(n)
		if p.NeedsProc != tt.proc || p.NeedsBranch != tt.branch || p.NeedsGlyph != tt.glyph {
			t.Errorf("%s (agent %q): needs proc=%v branch=%v glyph=%v, want %v %v %v",
				tt.format, tt.agent, p.NeedsProc, p.NeedsBranch, p.NeedsGlyph, tt.proc, tt.branch, tt.glyph)
		}
	}
}

func TestIndexPrefix(t *testing.T) {
	tests := []struct {
		label string
		index int
		want  string
	}{
		{"notes", 2, "2 notes"},
		{"3 amigos", 1, "1 3 amigos"}, // a person's leading digit is their text
		{"notes", 10, "notes"},        // no jump key from 10 on
		{"notes", 0, "notes"},
		{"10 things", 1, "1 10 things"},
		{"7 ", 2, "2 7 "},
		{"2", 3, "3 2"},
		{"", 1, ""},
	}
	for _, tt := range tests {
		if got := IndexPrefix(tt.label, tt.index); got != tt.want {
			t.Errorf("IndexPrefix(%q, %d) = %q, want %q", tt.label, tt.index, got, tt.want)
		}
	}
}

func TestPositions(t *testing.T) {
	tabs := []herdr.Tab{
		{ID: "w1:t3", WorkspaceID: "w1"}, {ID: "w1:t1", WorkspaceID: "w1"},
		{ID: "w2:t1", WorkspaceID: "w2"}, {ID: "w1:tA", WorkspaceID: "w1"},
	}
	got := Positions(tabs)
	want := map[string]int{"w1:t3": 1, "w1:t1": 2, "w2:t1": 1, "w1:tA": 3}
	for id, p := range want {
		if got[id] != p {
			t.Errorf("position of %s = %d, want %d", id, got[id], p)
		}
	}
}

func TestIndexVariantsAreOurs(t *testing.T) {
	n := mustNew(t, Config{Format: "{index} {proc|dir}", MaxLen: DefaultMaxLen})
	pane := herdr.Pane{ID: "w1:p1", TabID: "w1:t1", Cwd: "/x/a"}
	tab := herdr.Tab{ID: "w1:t1", Number: 1, Label: "2 vim", AgentStatus: herdr.StatusUnknown}
	d := n.Decide(n.Plan(tab, herdr.Workspace{}, []herdr.Pane{pane}), Facts{Proc: "vim", Index: 3})
	if d.Want != "3 vim" {
		t.Fatalf("Want = %q", d.Want)
	}
	for _, label := range []string{"2 vim", "9 vim", "vim", "3 a"} {
		if v := judge(d, label, owner.Memory{}, false); v != owner.Ours {
			t.Errorf("label %q after a move: %v, want ours", label, v)
		}
	}
	if v := judge(d, "2 emacs", owner.Memory{}, false); v != owner.Human {
		t.Errorf("label \"2 emacs\": %v, want person's", v)
	}
}

// With the pane's own shell in front, its directory names the tab, not the
// foreground_cwd herdr up to 0.8 reports: the cwd of another member of the
// shell's process group, such as a background job started while the shell
// had no job control yet (fish's first-start completion generator, through
// pyenv's shims, sits in pyenv.d/which).
func TestShellInFrontKeepsItsDirectory(t *testing.T) {
	const shellDir, jobDir = home + "/projects/rmk", "/root/.pyenv/pyenv.d/which"
	tests := []struct {
		name   string
		cfg    Config
		facts  Facts
		want   string
		wantNP bool
	}{
		{"{proc|dir}", Config{Format: "{proc|dir}"}, Facts{ShellInFront: true}, "rmk", true},
		{"{cwd}", Config{Format: "{cwd}"}, Facts{ShellInFront: true}, "~/projects/rmk", true},
		{"{dir}, nothing ignored", Config{Format: "{dir}", Ignore: []string{}}, Facts{ShellInFront: true}, "rmk", true},
		{"a dir rule of the job's folder", Config{Format: "{dir}", Rules: []RuleSpec{{Dir: "/root/**", Name: "job"}}}, Facts{ShellInFront: true}, "rmk", true},
		{"a program in front keeps its own", Config{Format: "{dir}"}, Facts{Proc: "python3", Exe: "python3"}, "which", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := mustNew(t, tt.cfg)
			tab := herdr.Tab{ID: "w1:t1", Number: 1, AgentStatus: herdr.StatusUnknown}
			p := n.Plan(tab, herdr.Workspace{}, []herdr.Pane{{ID: "w1:p1", Cwd: shellDir, ForegroundCwd: jobDir}})
			if p.NeedsProc != tt.wantNP {
				t.Errorf("NeedsProc = %v, want %v: whether the shell is in front decides the name", p.NeedsProc, tt.wantNP)
			}
			if got := n.Decide(p, tt.facts).Want; got != tt.want {
				t.Errorf("Want = %q, want %q", got, tt.want)
			}
		})
	}
}
