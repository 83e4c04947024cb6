package namer

import (
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// TestDirGlobSemantics pins down what a rule's dir pattern matches; the
// docs/rules.md documents this table. The pattern is tried on the cwd and then on
// each ancestor; Path is the first (deepest) that matched.
func TestDirGlobSemantics(t *testing.T) {
	tests := []struct {
		pattern, cwd string
		path         string // "" = no match
	}{
		// "*" stays within one path segment...
		{"~/projects/*", home + "/projects/api", home + "/projects/api"},
		{"~/projects/*", home + "/projects", ""},
		// ...but ancestors make a project pattern cover everything below it.
		{"~/projects/*", home + "/projects/api/src/cmd", home + "/projects/api"},
		{"/srv/*/logs", "/srv/a/b/logs", ""},
		{"/srv/*/logs", "/srv/a/logs/2024", "/srv/a/logs"},
		// "**" crosses '/'.
		{"/srv/**/logs", "/srv/a/b/logs", "/srv/a/b/logs"},
		// A whole "**/" segment also matches zero segments (globstar).
		{"/srv/**/logs", "/srv/logs", "/srv/logs"},
		{"**/node_modules", "/x/y/node_modules/pkg", "/x/y/node_modules"},
		{"**/node_modules", "/node_modules", "/node_modules"},
		// A trailing "/**" needs at least one more segment.
		{"~/src/**", home + "/src", ""},
		{"~/src/**", home + "/src/a/b", home + "/src/a/b"},
		// "~" alone is the home directory, and so every path below it.
		{"~", home, home},
		{"~", home + "/a/b", home},
		{"~", "/etc", ""},
		// Exact paths, braces, classes, "?".
		{"/etc/nixos", "/etc/nixos/hosts", "/etc/nixos"},
		{"/h/{work,play}/*", "/h/play/x", "/h/play/x"},
		{"/h/[!.]*", "/h/.cfg", ""},
		{"/h/[!.]*", "/h/cfg", "/h/cfg"},
		{"/h/?", "/h/a/b", "/h/a"},
		{"/h/?", "/h/ab", ""},
		{"/", "/anything/at/all", "/"},
		{"/*", "/etc/x", "/etc"},
		// The deepest match wins: {match} is the innermost project.
		{"~/**", home + "/a/b", home + "/a/b"},
		// Matching is case-sensitive.
		{"/Etc", "/etc", ""},
		// No cwd, no dir match.
		{"/**", "", ""},
	}
	for _, tt := range tests {
		r, err := compileRule(0, RuleSpec{Dir: tt.pattern, Skip: true}, home, false)
		if err != nil {
			t.Fatalf("compile %q: %v", tt.pattern, err)
		}
		got, ok := r.matchDir(tt.cwd)
		if ok != (tt.path != "") || got != tt.path {
			t.Errorf("%q on %q = %q %v, want %q", tt.pattern, tt.cwd, got, ok, tt.path)
		}
	}
}

func TestHomeWithGlobCharacters(t *testing.T) {
	// The home directory is literal even when it looks like a pattern.
	r, err := compileRule(0, RuleSpec{Dir: "~/*", Skip: true}, "/home/[u]", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.matchDir("/home/[u]/x"); !ok {
		t.Error("~ with glob characters did not match itself")
	}
	if _, ok := r.matchDir("/home/u/x"); ok {
		t.Error("~ with glob characters acted as a class")
	}
}

func TestRules(t *testing.T) {
	rules := []RuleSpec{
		{Dir: "~/scratch/**", Skip: true},
		{Dir: "~/projects/*", Program: "ssh", Format: "{match}>{host}"},
		{Program: "{n,}vim", Format: "✎ {dir}"},
		{Dir: "~/projects/*", Format: "{match}:{proc|dir}"},
		{Dir: "/etc/nixos", Name: "nix\x1b[1m config"},
		{Dir: "~/projects/api", Name: "never: rule 4 comes first"},
		{Program: "ssh", Format: "{match} {host}"},
	}
	n := mustNew(t, Config{Format: "{proc|dir}", Rules: rules})
	tests := []struct {
		name      string
		s         scene
		want      string
		skip      bool
		rule      int
		ruleMatch string
	}{
		{"no rule", scene{cwd: "/tmp/x"}, "x", false, 0, ""},
		{"skip", scene{cwd: home + "/scratch/a/b", proc: "vim"}, "", true, 1, "b"},
		{"dir and program", scene{cwd: home + "/projects/api/src", proc: "ssh", host: "box"}, "api>box", false, 2, "api"},
		{"program only", scene{cwd: home + "/projects/api/src", proc: "nvim"}, "✎ src", false, 3, "nvim"},
		{"dir rule after program rules that do not match", scene{cwd: home + "/projects/api/src", proc: "make"}, "api:make", false, 4, "api"},
		{"dir rule, no proc", scene{cwd: home + "/projects/api/src"}, "api:src", false, 4, "api"},
		{"agent pane never matches program rules", scene{cwd: home + "/projects/api", proc: "ssh", agent: "claude"}, "api:api", false, 4, "api"},
		{"fixed name, sanitised", scene{cwd: "/etc/nixos/hosts", proc: "vim"}, "✎ hosts", false, 3, "vim"},
		{"fixed name", scene{cwd: "/etc/nixos/hosts"}, "nix config", false, 5, "nixos"},
		{"later program rule", scene{cwd: "/tmp", proc: "ssh", host: "h"}, "ssh h", false, 7, "ssh"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.s.decide(n)
			if d.Want != tt.want || d.Skip != tt.skip {
				t.Errorf("Want %q skip %v, want %q %v", d.Want, d.Skip, tt.want, tt.skip)
			}
			switch {
			case tt.rule == 0 && d.Rule != nil:
				t.Errorf("rule %d matched, want none", d.Rule.Index)
			case tt.rule != 0 && (d.Rule == nil || d.Rule.Index != tt.rule || d.Rule.Match != tt.ruleMatch):
				t.Errorf("rule %+v, want index %d match %q", d.Rule, tt.rule, tt.ruleMatch)
			}
			if tt.rule != 0 && d.Values["match"] != tt.ruleMatch {
				t.Errorf("Values[match] = %q", d.Values["match"])
			}
		})
	}
}

func TestPlanRuleIsDirOnly(t *testing.T) {
	n := mustNew(t, Config{Rules: []RuleSpec{
		{Program: "ssh", Format: "{host}"},
		{Dir: "/a", Format: "A"},
	}})
	p := (scene{cwd: "/a/b"}).plan(n)
	if p.Rule == nil || p.Rule.Index != 2 || p.Rule.Path != "/a" || p.Rule.Match != "a" {
		t.Fatalf("Plan.Rule = %+v, want rule 2 on /a", p.Rule)
	}
	if !p.NeedsProc || !p.NeedsHost {
		t.Errorf("Plan needs proc %v host %v; a program rule may still apply", p.NeedsProc, p.NeedsHost)
	}
	if d := n.Decide(p, Facts{Proc: "ssh", Host: "h"}); d.Want != "h" || d.Rule.Index != 1 {
		t.Errorf("with proc ssh: %q rule %+v", d.Want, d.Rule)
	}
	if d := n.Decide(p, Facts{}); d.Want != "A" || d.Rule.Index != 2 {
		t.Errorf("without proc: %q rule %+v", d.Want, d.Rule)
	}
}

func TestRuleErrors(t *testing.T) {
	tests := []struct {
		spec RuleSpec
		home string
		want string
	}{
		{RuleSpec{Dir: "~/src/[a", Skip: true}, home, `rule 3 (dir "~/src/[a"): column 9: unexpected end of input`},
		{RuleSpec{Dir: "/src/{a,b", Skip: true}, home, `rule 3 (dir "/src/{a,b"): column 10: unclosed ` + "`{`"},
		{RuleSpec{Dir: "src/*", Skip: true}, home, `rule 3 (dir "src/*"): relative pattern: it is matched against absolute paths, so start it with / or ~`},
		{RuleSpec{Dir: "~bob/x", Skip: true}, home, `rule 3 (dir "~bob/x"): ~user is not supported; write the path`},
		{RuleSpec{Dir: "~/x", Skip: true}, "", `rule 3 (dir "~/x"): uses ~ but the home directory is unknown`},
		{RuleSpec{Program: "[", Skip: true}, home, `rule 3 (program "["): column 2: unexpected end of input`},
		{RuleSpec{Skip: true}, home, `rule 3: needs dir or program`},
		{RuleSpec{Dir: "/a"}, home, `rule 3: set exactly one of format, name and skip, or pane-format alone (it sets 0)`},
		{RuleSpec{Dir: "/a", Name: "x", Skip: true}, home, `rule 3: set exactly one of format, name and skip, or pane-format alone (it sets 2)`},
		{RuleSpec{Dir: "/a", Format: "{nope}"}, home, `rule 3 (format): template "{nope}" column 2: unknown token "nope" (known: ` + knownTokens + `)`},
		{RuleSpec{Dir: "/a", Name: "\x1b[0m"}, home, `rule 3 (name "\x1b[0m"): nothing left after removing control characters`},
	}
	for _, tt := range tests {
		cfg := Config{Home: tt.home, Rules: []RuleSpec{{Dir: "/ok", Skip: true}, {Program: "ok", Name: "ok"}, tt.spec}}
		_, err := New(cfg)
		if err == nil || err.Error() != tt.want {
			t.Errorf("New with %+v:\n got %v\nwant %s", tt.spec, err, tt.want)
		}
	}
}

func TestRuleMatchEmptyDirOnlyDirless(t *testing.T) {
	n := mustNew(t, Config{Rules: []RuleSpec{{Dir: "/**", Name: "any"}, {Program: "*", Name: "prog"}}})
	tab := herdr.Tab{ID: "w1:t1", Number: 1}
	p := n.Plan(tab, herdr.Workspace{}, nil)
	if p.Rule != nil {
		t.Errorf("a tab without cwd matched %+v", p.Rule)
	}
	if d := n.Decide(p, Facts{Proc: "x"}); d.Want != "prog" {
		t.Errorf("dir-less program rule: %q", d.Want)
	}
	if d := n.Decide(p, Facts{}); d.Want != "" {
		t.Errorf("empty tab: %q, want nothing", d.Want)
	}
}

func TestRuleMatchString(t *testing.T) {
	tests := []struct {
		m    RuleMatch
		want string
	}{
		{RuleMatch{Index: 2, Dir: "~/p/*", Path: "/home/u/p/a", Match: "a"}, `rule 2 (dir "~/p/*" matched /home/u/p/a)`},
		{RuleMatch{Index: 1, Program: "ssh", Match: "ssh"}, `rule 1 (program "ssh")`},
		{RuleMatch{Index: 3, Dir: "/x", Program: "vim", Path: "/x"}, `rule 3 (dir "/x" matched /x, program "vim")`},
	}
	for _, tt := range tests {
		if got := tt.m.String(); got != tt.want {
			t.Errorf("String() = %s, want %s", got, tt.want)
		}
	}
}
