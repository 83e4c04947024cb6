package namer

import (
	"github.com/herdrtabrenamer/herdrtabrenamer/owner"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"pgregory.net/rapid"
)

// hostile draws text programs might put in titles and command lines.
func hostile() *rapid.Generator[string] {
	piece := rapid.OneOf(
		rapid.String(),
		rapid.SampledFrom([]string{
			"\x1b[31m", "\x1b]0;t\x07", "\x1b]8;;u\x1b\\", "\x1bP", "\x1b", "\u009b1m", "\u009d2;x",
			"\u202e", "\u2066", "\u200f", "\u061c", "\t", "\n", "  ", "\u00a0", "\x00", "\x7f", "\u0085",
			"👩\u200d💻", "🇫🇷", "e\u0301", "日本", "🟡", "…", "a", "vim", "/", " ", "\xff", "\u0300",
		}),
	)
	return rapid.Custom(func(t *rapid.T) string {
		return strings.Join(rapid.SliceOfN(piece, 0, 6).Draw(t, "pieces"), "")
	})
}

var templates = []string{
	DefaultFormat, "{proc|agent}:{dir}", "{icon} {proc|dir}", "{number}:{dir}", "[{status}] {title|dir}",
	"{workspace}/{cwd}", "{agent|proc} {token.k} {host|repo}@{branch}", "{{{match|dir}}}", "x{title}y{proc}z",
	"{icon} {session|task|proc|dir}",
}

var agentStatuses = []herdr.AgentStatus{"idle", "working", "blocked", "done", "unknown", "", "weird"}

// bidiMarks is spelled out here rather than taken from isBidi, so a bug
// there cannot hide itself.
const bidiMarks = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"

// assertClean fails unless s is safe to show as a label of at most cols columns.
func assertClean(t *rapid.T, what, s string, cols int) {
	if !utf8.ValidString(s) {
		t.Fatalf("%s %q is not UTF-8", what, s)
	}
	for _, r := range s {
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) || strings.ContainsRune(bidiMarks, r) {
			t.Fatalf("%s %q contains %U", what, s, r)
		}
		if r != ' ' && r != 0x200d && strings.ContainsRune("\t\n\v\f\r\u00a0\u2028\u2029\u3000", r) {
			t.Fatalf("%s %q contains whitespace %U", what, s, r)
		}
	}
	if strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") || strings.Contains(s, "  ") {
		t.Fatalf("%s %q has stray spaces", what, s)
	}
	if cols > 0 && Width(s) > cols {
		t.Fatalf("%s %q is %d columns, limit %d", what, s, Width(s), cols)
	}
}

func TestPropRenderIsClean(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		maxLen := rapid.IntRange(0, 30).Draw(t, "maxLen")
		n, err := New(Config{Format: rapid.SampledFrom(templates).Draw(t, "format"), MaxLen: maxLen, Home: home,
			Rules: []RuleSpec{{Dir: "/r/*", Format: "{match}:{title}"}}})
		if err != nil {
			t.Fatal(err)
		}
		h := hostile()
		cwd := rapid.SampledFrom([]string{"", "/", home, "/r/x/y"}).Draw(t, "cwdBase") + "/" + h.Draw(t, "cwd")
		s := scene{
			cwd: cwd, agent: h.Draw(t, "agent"), proc: h.Draw(t, "proc"),
			status: rapid.SampledFrom(agentStatuses).Draw(t, "status"), number: rapid.IntRange(0, 5000).Draw(t, "number"),
			title: h.Draw(t, "title"), termTitle: h.Draw(t, "termTitle"), tokens: map[string]string{"k": h.Draw(t, "token")},
			host: h.Draw(t, "host"), repo: h.Draw(t, "repo"), branch: h.Draw(t, "branch"), wsLabel: h.Draw(t, "ws"),
			session: h.Draw(t, "session"),
		}
		d := s.decide(n)
		assertClean(t, "Want", d.Want, maxLen)
		for _, v := range d.Variants {
			assertClean(t, "variant", v, maxLen)
		}
		for k, v := range d.Values {
			assertClean(t, "value "+k, v, 0)
		}
		for _, u := range n.Unique([]UniqueItem{{TabID: "w1:t1", Name: d.Want, Dir: cwd}, {TabID: "w1:t2", Name: d.Want, Dir: h.Draw(t, "otherDir")}}) {
			assertClean(t, "unique", u, maxLen)
		}
	})
}

func TestPropSanitizeTruncate(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := hostile().Draw(t, "s")
		cols := rapid.IntRange(0, 20).Draw(t, "cols")
		clean := Sanitize(s)
		assertClean(t, "Sanitize", clean, 0)
		if Sanitize(clean) != clean {
			t.Fatalf("Sanitize is not idempotent on %q", s)
		}
		cut := Truncate(clean, cols)
		assertClean(t, "Truncate", cut, cols)
		if cut != clean && !strings.HasPrefix(clean, strings.TrimSuffix(cut, Ellipsis)) {
			t.Fatalf("Truncate(%q, %d) = %q is not a prefix plus %s", clean, cols, cut, Ellipsis)
		}
	})
}

var herdrLike = regexp.MustCompile(`^([1-9][0-9]*)?$`)

// TestPropHumanLabelsSurvive runs a tab through random states, human renames
// and daemon passes, and checks the daemon never overwrites a person's label
// unless that label is indistinguishable from ours: something we set before,
// a render of the current state under another status or with/without
// proc/agent (computed here by rendering those states, not from Variants),
// or herdr's own position label.
func TestPropHumanLabelsSurvive(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n, err := New(Config{Format: rapid.SampledFrom(templates).Draw(t, "format"), MaxLen: rapid.IntRange(0, 12).Draw(t, "maxLen"), Home: home})
		if err != nil {
			t.Fatal(err)
		}
		s := scene{cwd: "/p/api", status: herdr.StatusIdle, number: 3}
		label, human := "1", false
		var mem owner.Memory
		everSet := map[string]bool{}
		humanPool := rapid.OneOf(hostile(), rapid.SampledFrom([]string{
			"api", "vim", "🟡 api", "⚪ api", "idle", "[idle] api", "3:api", "3", "", "007", "my tab", "claude:api", "vim:api",
		}))
		steps := rapid.IntRange(1, 40).Draw(t, "steps")
		for range steps {
			switch rapid.IntRange(0, 2).Draw(t, "action") {
			case 0: // the world changes
				s.cwd = rapid.SampledFrom([]string{"/p/api", "/p/web", home, "/"}).Draw(t, "cwd")
				s.proc = rapid.SampledFrom([]string{"", "vim", "btop"}).Draw(t, "proc")
				s.agent = rapid.SampledFrom([]string{"", "", "claude"}).Draw(t, "agent")
				s.status = rapid.SampledFrom(agentStatuses[:5]).Draw(t, "status")
				s.title = rapid.SampledFrom([]string{"", "t"}).Draw(t, "title")
				s.session = rapid.SampledFrom([]string{"", "login bug", "auth"}).Draw(t, "session")
			case 1: // a person renames the tab
				label, human = humanPool.Draw(t, "human"), true
			case 2: // a daemon pass
				d := s.decide(n)
				v := judge(d, label, mem, false)
				if !v.MayRename() || d.Want == "" || d.Want == label {
					continue
				}
				if human && !everSet[label] && !herdrLike.MatchString(label) && !rendersNow(n, s, label) {
					t.Fatalf("overwrote the person's label %q with %q (verdict %v)", label, d.Want, v)
				}
				label, human = d.Want, false
				mem = mem.With(d.Want)
				everSet[d.Want] = true
				// Without memory, our own fresh name is still recognised.
				if judge(Decision{Variants: d.Variants}, d.Want, owner.Memory{}, false) != owner.Ours {
					t.Fatalf("our name %q not recognised from variants %q", d.Want, d.Variants)
				}
			}
		}
	})
}

// rendersNow reports whether label is what n renders for s under any status,
// with or without its program, and with or without its agent.
func rendersNow(n *Namer, s scene, label string) bool {
	for _, st := range statuses {
		try := []scene{s, s}
		try[1].proc = ""
		if s.agent != "" {
			try[1].agent = ""
			try[1].proc = "" // an agent pane has no proc to fall back to
		}
		for _, c := range try {
			c.status = st
			if c.decide(n).Want == label {
				return true
			}
		}
	}
	return false
}
