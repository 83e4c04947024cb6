package glob

import (
	"errors"
	"slices"
	"strings"
	"testing"

	gobwas "github.com/gobwas/glob"
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
func oldDeepest(g *gobwas.Pattern, cwd string) (string, bool) {
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
// on every path: for path patterns (with the ancestor walk) and for
// patterns without separators. It reports whether gobwas took the pattern.
func agree(t interface{ Fatalf(string, ...any) }, pat string, paths []string) bool {
	for _, path := range []bool{true, false} {
		c := gobwas.Compiler{}
		if path {
			c = pathCompiler
		}
		want, err := c.Compile(pat)
		if err != nil {
			return false
		}
		got, err := compile(pat, path)
		if err != nil {
			t.Fatalf("compile(%q, %v): %v", pat, path, err)
		}
		for _, p := range paths {
			if w, g := want.Match(p), got.Match(p); w != g {
				t.Fatalf("path=%v %q on %q: linear %v, gobwas %v (regexp %s)", path, pat, p, g, w, got.whole)
			}
			if !path || p == "" {
				continue
			}
			wp, wok := oldDeepest(want, p)
			if gp, gok := got.Deepest(p); gp != wp || gok != wok {
				t.Fatalf("%q on %q and its ancestors: linear %q %v, gobwas %q %v", pat, p, gp, gok, wp, wok)
			}
		}
	}
	return true
}

// TestAgreesWithGobwas: every pattern of up to three pieces
// against every short path.
func TestAgreesWithGobwas(t *testing.T) {
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

// TestPropAgreesWithGobwas: longer patterns with nested groups.
func TestPropAgreesWithGobwas(t *testing.T) {
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
func TestGlobstar(t *testing.T) {
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
		g, err := CompilePath(tt.pattern)
		if err != nil {
			t.Fatalf("%q: %v", tt.pattern, err)
		}
		for _, p := range tt.match {
			if !g.Match(p) {
				t.Errorf("%q does not match %q (regexp %s)", tt.pattern, p, g.whole)
			}
		}
		for _, p := range tt.miss {
			if g.Match(p) {
				t.Errorf("%q matches %q (regexp %s)", tt.pattern, p, g.whole)
			}
		}
	}
}

// A syntax error is gobwas's, so a caller can point at its offset.
func TestSyntaxErrorIsGobwas(t *testing.T) {
	for _, pat := range []string{"a[b", "{a,b"} {
		var se *gobwas.SyntaxError
		if _, err := Compile(pat); !errors.As(err, &se) {
			t.Errorf("Compile(%q) = %v, want a *glob.SyntaxError", pat, err)
		}
	}
}

// A pattern whose regexp form is past Go's bounds is refused with that
// reason alone.
func TestTooComplex(t *testing.T) {
	pat := strings.Repeat("{a,b", 1100) + strings.Repeat("}", 1100)
	_, err := Compile(pat)
	if err == nil || err.Error() != "too complex to match: expression nests too deeply" {
		t.Fatalf("Compile: %v, want too complex to match", err)
	}
}
