// Package glob matches globs in time linear in the input. A glob here has
// gobwas/glob's syntax and gobwas/glob reads it, so its errors are the ones
// people see, but gobwas matches by backtracking: a segment with several
// stars, `*a*a*a*a*a*`, costs time polynomial in the length of a folder
// name, seconds per match on a path a local user can create. This package
// translates the pattern into Go's regexp syntax instead, following
// gobwas's own compilation (the parse, simplify and globstar steps of its
// parse.go) so a pattern means what gobwas means by it, and Go's regexp
// runs in time linear in the input. A property test holds its answers to
// gobwas's.
package glob

import (
	"errors"
	"fmt"
	"regexp"
	resyntax "regexp/syntax"
	"strings"

	gobwas "github.com/gobwas/glob"
)

// Glob is a compiled pattern.
type Glob struct {
	whole *regexp.Regexp // the pattern, anchored at both ends
	// below is the pattern followed by a separator, longest match first:
	// its match ends at the deepest ancestor the pattern matches.
	below *regexp.Regexp
	// suffix is a literal every match ends with: a string without it is
	// turned down in one scan (`**/node_modules` on most paths), where
	// the regexp would step through every byte.
	suffix string
}

// pathCompiler: '/' bounds "*" and "?", and "**/" may match zero segments,
// which is what people who write shell globs expect.
var pathCompiler = gobwas.Compiler{Separators: []rune{'/'}, Globstar: true}

// Compile compiles a pattern without separators: "*" and "?" match any
// character, '/' included. A syntax error is gobwas's *glob.SyntaxError,
// whose offset lets a caller point at the fault.
func Compile(pattern string) (*Glob, error) {
	return compile(pattern, false)
}

// CompilePath compiles a pattern on slash-separated paths: "*" and "?"
// never cross '/', "**" does, and a whole "**/" segment also matches zero
// segments. A syntax error is gobwas's *glob.SyntaxError, as for Compile.
func CompilePath(pattern string) (*Glob, error) {
	return compile(pattern, true)
}

// compile checks pat with gobwas/glob (path: '/' is a separator and "**/"
// may match zero segments) and compiles its regexp form.
func compile(pat string, path bool) (*Glob, error) {
	c := gobwas.Compiler{}
	if path {
		c = pathCompiler
	}
	if _, err := c.Compile(pat); err != nil {
		return nil, err
	}
	n, err := parse(pat)
	if err != nil {
		return nil, err
	}
	n = simplify(n)
	if path {
		n, _ = globstar(n, true)
	}
	var b strings.Builder
	n.regexp(&b, path)
	whole, err := compileRegexp(`\A(?:` + b.String() + `)\z`)
	if err != nil {
		return nil, err
	}
	below, err := compileRegexp(`\A(?:` + b.String() + `)/`)
	if err != nil {
		return nil, err
	}
	below.Longest()
	return &Glob{whole: whole, below: below, suffix: n.suffix()}, nil
}

// compileRegexp compiles a glob's regexp form. Go's regexp bounds the
// nesting and size of what it compiles; a glob past them is refused with
// that reason alone, the regexp being no text of the user's.
func compileRegexp(expr string) (*regexp.Regexp, error) {
	re, err := regexp.Compile(expr)
	var se *resyntax.Error
	if errors.As(err, &se) {
		return nil, fmt.Errorf("too complex to match: %s", se.Code)
	}
	return re, err
}

// Match reports whether the pattern matches all of s.
func (g *Glob) Match(s string) bool {
	return strings.HasSuffix(s, g.suffix) && g.whole.MatchString(s)
}

// Deepest finds the first of p and its ancestors, deepest first, that the
// pattern matches: p, each prefix of p that ends before a '/', then "/".
// That is three passes over p, however many ancestors it has.
func (g *Glob) Deepest(p string) (string, bool) {
	if g.Match(p) {
		return p, true
	}
	if strings.Contains(p, g.suffix+"/") {
		// A match ending at a leading '/' is the empty prefix, no ancestor.
		if loc := g.below.FindStringIndex(p); loc != nil && loc[1] > 1 {
			return p[:loc[1]-1], true
		}
	}
	if len(p) > 1 && p[0] == '/' && g.Match("/") {
		return "/", true
	}
	return "", false
}
