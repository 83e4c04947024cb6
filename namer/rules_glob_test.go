package namer

import (
	"strings"
	"testing"
)

// A pattern that takes gobwas's backtracking seconds gives the same
// answers: many stars in one segment, on a deep path of long names.
func TestRuleDirManyStars(t *testing.T) {
	r, err := compileRule(0, RuleSpec{Dir: "**/**/**/**/*a*a*a*a*a*", Skip: true}, home, false)
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
			r, err := compileRule(0, RuleSpec{Dir: tc.pattern, Skip: true}, home, false)
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
