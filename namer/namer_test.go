package namer

import (
	"slices"
	"strings"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

const home = "/home/u"

// scene is a one-pane tab, the shape most tests need.
type scene struct {
	cwd, agent, proc string
	status           herdr.AgentStatus
	number           int
	title, termTitle string
	tokens           map[string]string
	host, repo       string
	branch, wsLabel  string
	session          string // the agent session's title, for an agent pane
}

func (s scene) plan(n *Namer) Plan {
	st := s.status
	if st == "" {
		st = herdr.StatusUnknown
	}
	num := s.number
	if num == 0 {
		num = 1
	}
	tab := herdr.Tab{ID: "w1:t" + herdr.EncodeNumber(num), WorkspaceID: "w1", Number: num, Label: "1", AgentStatus: st}
	ws := herdr.Workspace{ID: "w1", Number: 1, Label: s.wsLabel}
	pane := herdr.Pane{ID: "w1:p1", TabID: tab.ID, WorkspaceID: "w1", Cwd: s.cwd, Agent: s.agent,
		Title: s.title, TerminalTitleStripped: s.termTitle, Tokens: s.tokens, AgentStatus: st}
	if s.agent != "" {
		pane.AgentSession = &herdr.AgentSession{Source: "herdr:claude", Agent: s.agent, Kind: herdr.SessionKindID, Value: "s1"}
	}
	return n.Plan(tab, ws, []herdr.Pane{pane})
}

func (s scene) decide(n *Namer) Decision {
	return n.Decide(s.plan(n), Facts{Proc: s.proc, Host: s.host, Repo: s.repo, Branch: s.branch, Session: s.session})
}

func mustNew(t testing.TB, cfg Config) *Namer {
	t.Helper()
	if cfg.Home == "" {
		cfg.Home = home
	}
	n, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return n
}

// The examples people asked for, verbatim.
func TestSeedExamples(t *testing.T) {
	tests := []struct {
		format string
		s      scene
		want   string
	}{
		{"{proc|dir}", scene{cwd: "/etc/nixos", proc: "btop"}, "btop"},
		{"{proc|dir}", scene{cwd: "/etc/nixos"}, "nixos"},
		{"{proc|dir}", scene{cwd: home + "/src/rmk"}, "rmk"},
		{"{proc|agent}:{dir}", scene{cwd: home + "/src/rmk", proc: "btop"}, "btop:rmk"},
		{"{proc|agent}:{dir}", scene{cwd: "/etc/nixos", agent: "claude", proc: "node", status: herdr.StatusWorking}, "claude:nixos"},
		{"{proc|agent}:{dir}", scene{cwd: home + "/src/rmk"}, "rmk"},
		{"{number}:{dir}", scene{cwd: "/etc/nixos", number: 36}, "36:nixos"},
		{"{icon} {proc|dir}", scene{cwd: "/etc/nixos", status: herdr.StatusWorking}, "🟡 nixos"},
	}
	for _, tt := range tests {
		n := mustNew(t, Config{Format: tt.format, MaxLen: DefaultMaxLen})
		if got := tt.s.decide(n).Want; got != tt.want {
			t.Errorf("%s with %+v = %q, want %q", tt.format, tt.s, got, tt.want)
		}
	}
}

func TestTokenValues(t *testing.T) {
	tests := []struct {
		name   string
		format string
		s      scene
		want   string
	}{
		{"dir home is ~", "{dir}", scene{cwd: home}, "~"},
		{"dir home trailing slash", "{dir}", scene{cwd: home + "/"}, "~"},
		{"dir root", "{dir}", scene{cwd: "/"}, "/"},
		{"dir below home", "{dir}", scene{cwd: home + "/a/b"}, "b"},
		{"no cwd", "{dir}", scene{}, ""},
		{"cwd tilde", "{cwd}", scene{cwd: home + "/a/b"}, "~/a/b"},
		{"cwd home prefix is not home", "{cwd}", scene{cwd: home + "x/a"}, "/home/ux/a"},
		{"cwd outside home", "{cwd}", scene{cwd: "/etc/nixos"}, "/etc/nixos"},
		{"agent", "{agent}", scene{cwd: "/", agent: "codex"}, "codex"},
		{"agent hides proc", "{proc}", scene{cwd: "/", agent: "codex", proc: "node"}, ""},
		{"title from metadata", "{title}", scene{title: "meta", termTitle: "term"}, "meta"},
		{"title falls back", "{title}", scene{termTitle: "term"}, "term"},
		{"title blank metadata falls back", "{title}", scene{title: " \x1b[0m ", termTitle: "term"}, "term"},
		{"status", "{status}", scene{status: herdr.StatusBlocked}, "blocked"},
		{"status unknown is empty", "[{status}]", scene{status: herdr.StatusUnknown}, ""},
		{"status bracket", "[{status}]", scene{status: herdr.StatusIdle}, "[idle]"},
		{"status from the future is unknown", "{status}{icon}", scene{status: "pondering"}, ""},
		{"icon done", "{icon}", scene{status: herdr.StatusDone}, "🟢"},
		{"icon blocked", "{icon}", scene{status: herdr.StatusBlocked}, "🔴"},
		{"icon idle", "{icon}", scene{status: herdr.StatusIdle}, "⚪"},
		{"number", "t{number}", scene{number: 33}, "t33"},
		{"workspace", "{workspace}/{dir}", scene{cwd: "/x/y", wsLabel: "api"}, "api/y"},
		{"metadata token", "{token.branch|dir}", scene{cwd: "/x/y", tokens: map[string]string{"branch": "main"}}, "main"},
		{"metadata token missing", "{token.branch|dir}", scene{cwd: "/x/y"}, "y"},
		{"facts", "{host}:{repo}@{branch}", scene{host: "box", repo: "r", branch: "b"}, "box:r@b"},
		{"facts missing", "{host}:{repo}@{branch}", scene{repo: "r"}, "r"},
		{"hostile value", "{proc}", scene{proc: "\x1b]0;pwned\x07vim\u202e  x\n"}, "vim x"},
		{"match without rule", "{match|dir}", scene{cwd: "/a"}, "a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := mustNew(t, Config{Format: tt.format})
			if got := tt.s.decide(n).Want; got != tt.want {
				t.Errorf("%s = %q, want %q", tt.format, got, tt.want)
			}
		})
	}
}

func TestLiteralGlue(t *testing.T) {
	vals := map[string]string{"proc": "p", "dir": "d", "agent": ""}
	tests := []struct{ format, want string }{
		{"{proc}:{dir}", "p:d"},
		{"{agent}:{dir}", "d"},
		{"{dir}:{agent}", "d"},
		{"<{agent}>", ""},
		{"<{proc}>", "<p>"},
		{"<{proc}{agent}>", "<p"},              // ">" touches the empty agent
		{"{proc} - {agent} - {dir}", "pd"},     // both runs touch the empty group
		{"{proc}{agent}{dir}", "pd"},           // no literals
		{"fixed", "fixed"},                     // no groups at all
		{"{{{proc}}}", "{p}"},                  // literal braces glue like any literal
		{"{{{agent}}}", ""},                    //
		{"a{{b}}c", "a{b}c"},                   //
		{"{agent|proc|dir}", "p"},              // first non-empty alternative
		{"{agent|match|dir}", "d"},             //
		{"x {agent|match} y", ""},              // empty group drops both runs
		{"{proc} {agent|dir}", "p d"},          //
		{"{token.a-b_C|dir}", "d"},             //
		{"{proc}\u00a0\t{dir}", "p\u00a0\td"},  // Render does not sanitise the result
		{"{proc}{{}}{dir}", "p{}d"},            //
		{"{agent}{{}}{dir}", "d"},              //
		{"{dir}{agent}x{proc}", "dp"},          //
		{"{dir}x{agent}{proc}", "dp"},          //
		{"{dir}x{proc}", "dxp"},                //
		{"{agent}x{agent}", ""},                //
		{"{agent}x{agent}y{dir}", "d"},         //
		{"{dir}y{agent}x{agent}", "d"},         //
		{"{dir}y{agent}x{proc}", "dp"},         //
		{"{proc}y{dir}x{proc}", "pydxp"},       //
		{"{proc}y{dir}x{agent}", "pyd"},        //
		{"{agent}y{dir}x{proc}", "dxp"},        //
		{"{agent}y{agent}x{agent}", ""},        //
		{"y{agent}x", ""},                      //
		{"y{dir}x", "ydx"},                     //
		{"{proc|dir} ({agent})", "p"},          //
		{"{proc|dir} ({dir})", "p (d)"},        //
		{"{proc|dir}{{{agent}}}", "p"},         //
		{"{proc|dir}{{{proc}}}", "p{p}"},       //
		{"{proc|dir} {{x}} {agent}", "p"},      //
		{"{proc|dir} {{x}} {proc}", "p {x} p"}, //
		{"{{x}}", "{x}"},                       //
		{"", ""},                               //
		{"{proc}{dir}{agent}{proc}{dir}{agent}{proc}{dir}{agent}{proc}{dir}{agent}{proc}{dir}{agent}{proc}{dir}{agent}", "pdpdpdpdpdpd"}, // more parts than the stack buffer
	}
	for _, tt := range tests {
		tmpl, err := ParseTemplate(tt.format)
		if err != nil {
			t.Fatalf("ParseTemplate(%q): %v", tt.format, err)
		}
		if got := tmpl.renderVals(vals); got != tt.want {
			t.Errorf("Render(%q) = %q, want %q", tt.format, got, tt.want)
		}
	}
}

func TestParseTemplateErrors(t *testing.T) {
	tests := []struct{ format, want string }{
		{"{proc|}", `template "{proc|}" column 7: empty alternative`},
		{"{|proc}", `template "{|proc}" column 2: empty alternative`},
		{"{proc||dir}", `template "{proc||dir}" column 7: empty alternative`},
		{"{}", `template "{}" column 2: empty token`},
		{"{proc", `template "{proc" column 1: unclosed brace`},
		{"ab {dir", `template "ab {dir" column 4: unclosed brace`},
		{"é{dir", `template "é{dir" column 2: unclosed brace`}, // columns count runes
		{"{dir}}", `template "{dir}}" column 6: stray '}' (write }} for a literal brace)`},
		{"a}b", `template "a}b" column 2: stray '}' (write }} for a literal brace)`},
		{"{pro{c}", `template "{pro{c}" column 5: '{' inside a token (write {{ for a literal brace)`},
		{"{dir|bogus}", `template "{dir|bogus}" column 6: unknown token "bogus" (known: ` + knownTokens + `)`},
		{"{ proc}", `template "{ proc}" column 2: unknown token " proc" (known: ` + knownTokens + `)`},
		{"{PROC}", `template "{PROC}" column 2: unknown token "PROC" (known: ` + knownTokens + `)`},
		{"{token.}", `template "{token.}" column 2: bad metadata token name "" (1-32 of A-Z a-z 0-9 _ -)`},
		{"{token.a b}", `template "{token.a b}" column 2: bad metadata token name "a b" (1-32 of A-Z a-z 0-9 _ -)`},
		{"{token." + strings.Repeat("x", 33) + "}", `template "{token.` + strings.Repeat("x", 33) + `}" column 2: bad metadata token name "` + strings.Repeat("x", 33) + `" (1-32 of A-Z a-z 0-9 _ -)`},
	}
	for _, tt := range tests {
		_, err := ParseTemplate(tt.format)
		if err == nil {
			t.Errorf("ParseTemplate(%q) succeeded, want %s", tt.format, tt.want)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("ParseTemplate(%q):\n got %s\nwant %s", tt.format, err, tt.want)
		}
	}
	// New names the setting, and rule formats name the rule.
	if _, err := New(Config{Format: "{x}"}); err == nil || !strings.HasPrefix(err.Error(), `format: template "{x}" column 2: unknown token "x"`) {
		t.Errorf("New with a bad format: %v", err)
	}
}

func TestTemplateTokens(t *testing.T) {
	tmpl, err := ParseTemplate("{icon} {proc|dir}:{dir|token.x} {{match}}")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tmpl.tokens(), []string{"icon", "proc", "dir", "token.x"}; !slices.Equal(got, want) {
		t.Errorf("Tokens = %q, want %q", got, want)
	}
	if tmpl.String() != "{icon} {proc|dir}:{dir|token.x} {{match}}" {
		t.Errorf("String = %q", tmpl.String())
	}
}

func TestIcons(t *testing.T) {
	ic, err := ParseIcons("blocked=🟥, idle=")
	if err != nil {
		t.Fatal(err)
	}
	for st, want := range map[herdr.AgentStatus]string{
		herdr.StatusBlocked: "🟥", herdr.StatusIdle: "", herdr.StatusWorking: "🟡",
		herdr.StatusDone: "🟢", herdr.StatusUnknown: "", "": "",
	} {
		if got := ic.Icon(st); got != want {
			t.Errorf("Icon(%q) = %q, want %q", st, got, want)
		}
	}
	if ic, err := ParseIcons("unknown=?,working=\x1b[1m*"); err != nil || ic.Icon(herdr.StatusUnknown) != "?" || ic.Icon(herdr.StatusWorking) != "*" {
		t.Errorf("unknown icon and sanitising: %v %+v", err, ic)
	}
	bad := []struct{ spec, want string }{
		{"sleeping=z", `icons "sleeping=z": unknown status "sleeping" (known: idle working blocked done unknown)`},
		{"idle", `icons "idle": entry "idle" has no '=' (want status=icon)`},
		{"idle=a,idle=b", `icons "idle=a,idle=b": status "idle" given twice`},
		{"idle=a,", `icons "idle=a,": entry "" has no '=' (want status=icon)`},
	}
	for _, tt := range bad {
		if _, err := ParseIcons(tt.spec); err == nil || err.Error() != tt.want {
			t.Errorf("ParseIcons(%q) = %v, want %s", tt.spec, err, tt.want)
		}
	}
	// Icon choices flow into names, and an icon-less status drops its glue.
	n := mustNew(t, Config{Format: "{icon} {dir}", Icons: "idle="})
	if got := (scene{cwd: "/a", status: herdr.StatusIdle}).decide(n).Want; got != "a" {
		t.Errorf("idle without icon = %q, want a", got)
	}
	if _, err := New(Config{Icons: "zzz=1"}); err == nil {
		t.Error("New accepted a bad icon spec")
	}
}

func TestLead(t *testing.T) {
	p := func(id string, focused bool, agent string) herdr.Pane {
		return herdr.Pane{ID: id, Focused: focused, Agent: agent}
	}
	tests := []struct {
		name    string
		panes   []herdr.Pane
		wantID  string
		wantWhy string
	}{
		{"agent beats focus", []herdr.Pane{p("w1:p1", true, ""), p("w1:p2", false, "claude")}, "w1:p2", "agent claude"},
		{"focused agent among agents", []herdr.Pane{p("w1:p1", false, "codex"), p("w1:p2", true, "claude")}, "w1:p2", "agent claude"},
		{"lowest agent", []herdr.Pane{p("w1:p3", false, "codex"), p("w1:p2", false, "claude")}, "w1:p2", "agent claude"},
		{"focused", []herdr.Pane{p("w1:p1", false, ""), p("w1:p2", true, "")}, "w1:p2", "focused"},
		{"lowest id numerically: pA (10) after p9", []herdr.Pane{p("w1:pA", false, ""), p("w1:p9", false, "")}, "w1:p9", "lowest id"},
		{"p11 (33) after p0 (32)", []herdr.Pane{p("w1:p11", false, ""), p("w1:p0", false, "")}, "w1:p0", "lowest id"},
		{"bad ids last", []herdr.Pane{p("junk", false, ""), p("w1:p5", false, "")}, "w1:p5", "lowest id"},
		{"only bad ids, string order", []herdr.Pane{p("zz", false, ""), p("aa", false, "")}, "aa", "lowest id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, order := range [][]herdr.Pane{tt.panes, reversed(tt.panes)} {
				got, why, ok := Lead(order)
				if !ok || got.ID != tt.wantID || why != tt.wantWhy {
					t.Errorf("Lead = %s %q %v, want %s %q", got.ID, why, ok, tt.wantID, tt.wantWhy)
				}
			}
		})
	}
	if _, why, ok := Lead(nil); ok || why != "no panes" {
		t.Errorf("Lead(nil) = %q %v", why, ok)
	}
}

func reversed(ps []herdr.Pane) []herdr.Pane {
	out := slices.Clone(ps)
	slices.Reverse(out)
	return out
}

func TestPlanUsesLeadCwd(t *testing.T) {
	n := mustNew(t, Config{})
	tab := herdr.Tab{ID: "w1:t1", Number: 1, AgentStatus: herdr.StatusUnknown}
	panes := []herdr.Pane{
		{ID: "w1:p2", Cwd: "/two"},
		{ID: "w1:p1", ForegroundCwd: "/one/fg"}, // no cwd: foreground cwd is used
	}
	p := n.Plan(tab, herdr.Workspace{}, panes)
	if p.Lead.ID != "w1:p1" || p.LeadWhy != "lowest id" || p.Dir != "/one/fg" {
		t.Errorf("Plan = lead %s (%s) dir %q", p.Lead.ID, p.LeadWhy, p.Dir)
	}
	if !p.NeedsProc || p.NeedsHost || p.NeedsRepo || p.NeedsBranch {
		t.Errorf("needs for {proc|dir}: %+v", p)
	}
	if got := n.Decide(p, Facts{}).Want; got != "fg" {
		t.Errorf("Want = %q", got)
	}
}

func TestNeeds(t *testing.T) {
	tests := []struct {
		name                     string
		cfg                      Config
		s                        scene
		proc, host, repo, branch bool
	}{
		{"default", Config{}, scene{cwd: "/a"}, true, false, false, false},
		{"agent has no proc", Config{}, scene{cwd: "/a", agent: "claude"}, false, false, false, false},
		{"facts", Config{Format: "{host}{repo}{branch}"}, scene{cwd: "/a"}, false, true, true, true},
		{"dir rule format replaces template", Config{Rules: []RuleSpec{{Dir: "/a", Format: "{repo}"}}}, scene{cwd: "/a"}, false, false, true, false},
		{"skip rule needs nothing", Config{Rules: []RuleSpec{{Dir: "/a", Skip: true}}}, scene{cwd: "/a"}, false, false, false, false},
		{"program rule needs proc and its format's facts", Config{Format: "{dir}", Rules: []RuleSpec{{Program: "ssh", Format: "{host}"}}}, scene{cwd: "/a"}, true, true, false, false},
		{"program rule whose dir does not match", Config{Format: "{dir}", Rules: []RuleSpec{{Dir: "/b", Program: "ssh", Format: "{host}"}}}, scene{cwd: "/a"}, false, false, false, false},
		{"program rule after the dir rule that wins", Config{Format: "{dir}", Rules: []RuleSpec{{Dir: "/a", Name: "A"}, {Program: "ssh", Format: "{host}"}}}, scene{cwd: "/a"}, false, false, false, false},
		{"program rule with an agent", Config{Format: "{dir}", Rules: []RuleSpec{{Program: "ssh", Format: "{host}"}}}, scene{cwd: "/a", agent: "pi"}, false, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.s.plan(mustNew(t, tt.cfg))
			if p.NeedsProc != tt.proc || p.NeedsHost != tt.host || p.NeedsRepo != tt.repo || p.NeedsBranch != tt.branch {
				t.Errorf("needs proc=%v host=%v repo=%v branch=%v, want %v %v %v %v",
					p.NeedsProc, p.NeedsHost, p.NeedsRepo, p.NeedsBranch, tt.proc, tt.host, tt.repo, tt.branch)
			}
		})
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{MaxLen: -1}, "max-len -1: must be 0 (no limit) or more"},
		{Config{Home: "rel"}, `home directory "rel": must be an absolute path other than /`},
	}
	for _, tt := range tests {
		if _, err := New(tt.cfg); err == nil || err.Error() != tt.want {
			t.Errorf("New(%+v) = %v, want %s", tt.cfg, err, tt.want)
		}
	}
}

func TestMaxLenApplies(t *testing.T) {
	n := mustNew(t, Config{Format: "{dir}", MaxLen: 8})
	if got := (scene{cwd: "/x/a-very-long-directory"}).decide(n).Want; got != "a-very-…" {
		t.Errorf("Want = %q", got)
	}
	n = mustNew(t, Config{Format: "{dir}", MaxLen: 0})
	if got := (scene{cwd: "/x/a-very-long-directory"}).decide(n).Want; got != "a-very-long-directory" {
		t.Errorf("no limit: Want = %q", got)
	}
}

func TestValuesForExplain(t *testing.T) {
	n := mustNew(t, Config{Format: "{proc|dir}"})
	d := (scene{cwd: home + "/a", proc: "vim", status: herdr.StatusDone, number: 4, tokens: map[string]string{"k": "v\x07"}}).decide(n)
	want := map[string]string{"proc": "vim", "dir": "a", "cwd": "~/a", "status": "done", "icon": "🟢", "number": "4", "token.k": "v", "agent": "", "match": ""}
	for k, v := range want {
		if got, ok := d.Values[k]; !ok || got != v {
			t.Errorf("Values[%q] = %q (%v), want %q", k, got, ok, v)
		}
	}
	for _, k := range []string{"title", "host", "repo", "branch", "workspace"} {
		if _, ok := d.Values[k]; !ok {
			t.Errorf("Values lacks %q", k)
		}
	}
}

// UsesStatus: a status can show in a name only through {icon} or
// {status}, in the template or in any rule's format.
func TestUsesStatus(t *testing.T) {
	for _, tt := range []struct {
		cfg  Config
		want bool
	}{
		{Config{}, false},
		{Config{Format: "{agent|proc|dir}"}, false},
		{Config{Format: "{icon}{dir}"}, true},
		{Config{Format: "{status}: {dir}"}, true},
		{Config{Format: "{dir}", Rules: []RuleSpec{{Dir: "/x/*", Format: "{icon} {match}"}}}, true},
		{Config{Format: "{dir}", Rules: []RuleSpec{{Dir: "/x/*", Name: "x"}}}, false},
	} {
		n, err := New(tt.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := n.UsesStatus(); got != tt.want {
			t.Errorf("%+v: UsesStatus = %v, want %v", tt.cfg, got, tt.want)
		}
	}
}
