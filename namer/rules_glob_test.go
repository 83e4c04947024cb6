package namer

import (
	"slices"
	"strings"
	"testing"

	"github.com/gobwas/glob"
	"pgregory.net/rapid"
)

// globPattern draws a well-formed glob, with groups nested depth deep.
func globPattern(depth int) *rapid.Generator[string] {
	leaves := []string{"a", "b", "ä", "/", "/a", "a/", "*", "**", "?", "[ab]", "[!a]", "[a-b]", "[!/]", `\*`, ","}
	return rapid.Custom(func(t *rapid.T) string {
		var b strings.Builder
		for range rapid.IntRange(0, 6).Draw(t, "len") {
			if depth > 0 && rapid.IntRange(0, 5).Draw(t, "group") == 0 {
				alts := rapid.SliceOfN(globPattern(depth-1), 1, 3).Draw(t, "alts")
				b.WriteString("{" + strings.Join(alts, ",") + "}")
				continue
			}
			b.WriteString(rapid.SampledFrom(leaves).Draw(t, "leaf"))
		}
		return b.String()
	})
}

// shortPaths are every string of up to four of a, b and /.
func shortPaths() []string {
	out, layer := []string{""}, []string{""}
	for range 4 {
		var next []string
		for _, p := range layer {
			for _, c := range []string{"a", "b", "/"} {
				next = append(next, p+c)
			}
		}
		out, layer = append(out, next...), next
	}
	return out
}

// oldDeepest is the ancestor walk with gobwas's matcher: the reference
// the linear matcher must agree with.
func oldDeepest(g *glob.Pattern, cwd string) (string, bool) {
	for p := cwd; ; {
		if g.Match(p) {
			return p, true
		}
		i := strings.LastIndexByte(p, '/')
		switch {
		case i < 0 || p == "/":
			return "", false
		case i == 0:
			p = "/"
		default:
			p = p[:i]
		}
	}
}

// agree fails unless the regexp form of pat answers as gobwas/glob does
// on every path: for dir patterns (with the ancestor walk) and for
// program patterns. It reports whether gobwas took the pattern.
func agree(t interface{ Fatalf(string, ...any) }, pat string, paths []string) bool {
	for _, dir := range []bool{true, false} {
		c := glob.Compiler{}
		if dir {
			c = dirCompiler
		}
		want, err := c.Compile(pat)
		if err != nil {
			return false
		}
		got, err := compileLinear(pat, dir)
		if err != nil {
			t.Fatalf("compileLinear(%q, %v): %v", pat, dir, err)
		}
		for _, p := range paths {
			if w, g := want.Match(p), got.match(p); w != g {
				t.Fatalf("dir=%v %q on %q: linear %v, gobwas %v (regexp %s)", dir, pat, p, g, w, got.whole)
			}
			if !dir || p == "" {
				continue
			}
			wp, wok := oldDeepest(want, p)
			if gp, gok := got.deepest(p); gp != wp || gok != wok {
				t.Fatalf("%q on %q and its ancestors: linear %q %v, gobwas %q %v", pat, p, gp, gok, wp, wok)
			}
		}
	}
	return true
}

// TestLinearGlobAgreesWithGobwas: every pattern of up to three pieces
// against every short path.
func TestLinearGlobAgreesWithGobwas(t *testing.T) {
	pieces := []string{"a", "/", "/a", "a/", "*", "**", "?", "[!a]", "{a,}", "{/,**/}", "{**}", "{b,*/}"}
	paths := shortPaths()
	pats := []string{""}
	for range 3 {
		for _, p := range pats {
			for _, q := range pieces {
				pats = append(pats, p+q)
			}
		}
	}
	for _, pat := range slices.Compact(slices.Sorted(slices.Values(pats))) {
		agree(t, pat, paths)
	}
}

// TestPropLinearGlobAgreesWithGobwas: longer patterns with nested groups.
func TestPropLinearGlobAgreesWithGobwas(t *testing.T) {
	paths := shortPaths()
	rapid.Check(t, func(t *rapid.T) {
		pat := globPattern(2).Draw(t, "pattern")
		more := rapid.SliceOfN(rapid.StringOf(rapid.RuneFrom([]rune("ab/ä*,"))), 1, 8).Draw(t, "paths")
		if !agree(t, pat, append(more, paths...)) {
			t.Skipf("gobwas refuses %q", pat)
		}
	})
}

// Where gobwas's compilation makes a pattern mean more than it reads: a
// `**` that begins a segment before a '/' also matches no segment, and a
// group of one alternative is no group.
func TestLinearGlobGlobstar(t *testing.T) {
	tests := []struct {
		pattern string
		match   []string
		miss    []string
	}{
		{"**/**/x", []string{"x", "a/x", "a/b/x"}, []string{"ax", "/"}},
		{"/a/**/b", []string{"/a/b", "/a/c/d/b"}, []string{"/ab", "/a//"}},
		{"a**/b", []string{"a/b", "ac/d/b"}, []string{"b"}},
		{"{a/**}/x", []string{"a/x", "a/c/x"}, []string{"ax"}},
		{"{a/**,b}/x", []string{"a//x", "a/c/x", "b/x"}, []string{"a/x"}},
		{"{**,b}/x", []string{"c/x", "/x"}, []string{"x"}},
		{"**{/x,/y}", []string{"/x", "c/y"}, []string{"x"}},
		{"*/x", []string{"a/x", "/x"}, []string{"x", "a/b/x"}},
	}
	for _, tt := range tests {
		g, err := compileLinear(tt.pattern, true)
		if err != nil {
			t.Fatalf("%q: %v", tt.pattern, err)
		}
		for _, p := range tt.match {
			if !g.match(p) {
				t.Errorf("%q does not match %q (regexp %s)", tt.pattern, p, g.whole)
			}
		}
		for _, p := range tt.miss {
			if g.match(p) {
				t.Errorf("%q matches %q (regexp %s)", tt.pattern, p, g.whole)
			}
		}
	}
}

// A pattern that takes gobwas's backtracking seconds gives the same
// answers: many stars in one segment, on a deep path of long names.
func TestRuleDirManyStars(t *testing.T) {
	r, err := compileRule(0, RuleSpec{Dir: "**/**/**/**/*a*a*a*a*a*", Skip: true}, home)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ cwd, want string }{
		{deepPath(2, 100), "/" + strings.Repeat("a", 100) + "/" + strings.Repeat("a", 100)},
		{"/x/aaaa/b", ""},
		{"/xaxaxaxaxa/b/c", "/xaxaxaxaxa"},
	} {
		got, ok := r.matchDir(tc.cwd)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("on %.40q: %q %v, want %q", tc.cwd, got, ok, tc.want)
		}
	}
}

// deepPath is a path of segs segments of n letters a, under /, ending in
// a segment no rule below matches.
func deepPath(segs, n int) string {
	return "/" + strings.Repeat(strings.Repeat("a", n)+"/", segs) + "b"
}

// BenchmarkRuleDirMatch is one rule's dir match on a cwd, ancestors
// included, as Plan runs it for every tab on every pass: common patterns
// on paths they match and miss, and a pattern with five stars in one
// segment on paths that grow in depth and in folder name length.
func BenchmarkRuleDirMatch(b *testing.B) {
	project := home + "/projects/api/src/cmd/server"
	deepModules := strings.Repeat("/abcdefghi", 100) + "/node_modules/pkg/lib"
	for _, tc := range []struct{ name, pattern, cwd string }{
		{"project", "~/projects/*", project},
		{"project-miss", "~/projects/*", "/srv/www/site/public"},
		{"tree", "~/src/**", home + "/src/a/b/c/d"},
		{"modules-miss-120", "**/node_modules", deepPath(2, 60)},
		{"modules-miss-2200", "**/node_modules", deepPath(200, 10)},
		{"modules-1020", "**/node_modules", deepModules},
		{"stars-2x15", "**/**/**/**/*a*a*a*a*a*", deepPath(2, 15)},
		{"stars-2x30", "**/**/**/**/*a*a*a*a*a*", deepPath(2, 30)},
		{"stars-2x60", "**/**/**/**/*a*a*a*a*a*", deepPath(2, 60)},
		{"stars-4x60", "**/**/**/**/*a*a*a*a*a*", deepPath(4, 60)},
		{"stars-2x100", "**/**/**/**/*a*a*a*a*a*", deepPath(2, 100)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			r, err := compileRule(0, RuleSpec{Dir: tc.pattern, Skip: true}, home)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				r.matchDir(tc.cwd)
			}
		})
	}
}

// A glob whose regexp form is past Go's bounds is a one-line error.
func TestRuleDirTooComplex(t *testing.T) {
	pat := "/" + strings.Repeat("{a,b", 1100) + strings.Repeat("}", 1100)
	_, err := New(Config{Rules: []RuleSpec{{Dir: pat, Skip: true}}})
	if err == nil || !strings.HasSuffix(err.Error(), "too complex to match: expression nests too deeply") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %.80v…, want one line saying the pattern is too complex", err)
	}
}
