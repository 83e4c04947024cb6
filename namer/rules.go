package namer

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	resyntax "regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gobwas/glob"
	"github.com/gobwas/glob/syntax"
)

// RuleSpec is one [[rules]] table of the config file.
type RuleSpec struct {
	Dir     string `toml:"dir"`     // glob on the cwd or an ancestor ("~/projects/*")
	Program string `toml:"program"` // glob on {proc} or the program's own name ("ssh" for "@zmb", "{n,}vim")
	Format  string `toml:"format"`  // template for matching tabs
	Name    string `toml:"name"`    // fixed name for matching tabs
	Skip    bool   `toml:"skip"`    // never rename matching tabs
}

// RuleMatch says which rule matched and how.
type RuleMatch struct {
	Index   int    // 1-based position in Config.Rules
	Dir     string // the rule's dir pattern as written
	Program string // the rule's program pattern as written
	Path    string // the cwd or ancestor the dir pattern matched ("" without dir)
	Match   string // the {match} value
}

// String describes the match for explain output:
// `rule 2 (dir "~/projects/*" matched /home/u/projects/api)`.
func (m *RuleMatch) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "rule %d (", m.Index)
	if m.Dir != "" {
		fmt.Fprintf(&b, "dir %q matched %s", m.Dir, m.Path)
	}
	if m.Program != "" {
		if m.Dir != "" {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "program %q", m.Program)
	}
	b.WriteString(")")
	return b.String()
}

// rule is a compiled RuleSpec.
type rule struct {
	spec    RuleSpec
	index   int
	dir     *linearGlob // nil: any dir
	program *linearGlob // nil: any program
	format  *Template   // nil for name and skip rules
	name    string      // sanitised fixed name
}

// dirCompiler: '/' bounds "*" and "?", and "**/" may match zero segments,
// which is what people who write shell globs expect.
var dirCompiler = glob.Compiler{Separators: []rune{'/'}, Globstar: true}

// RuleError is a rule that does not compile. Index lets the config file
// point at the rule's own [[rules]] table without parsing this message.
type RuleError struct {
	Index int    // 1-based position in Config.Rules
	What  string // the part at fault, e.g. `dir "~/[a"`; "" for the whole rule
	Err   error
}

func (e *RuleError) Error() string {
	if e.What == "" {
		return fmt.Sprintf("rule %d: %v", e.Index, e.Err)
	}
	return fmt.Sprintf("rule %d (%s): %v", e.Index, e.What, e.Err)
}

func (e *RuleError) Unwrap() error { return e.Err }

func compileRule(i int, spec RuleSpec, home string) (*rule, error) {
	r, err := compileRuleSpec(i, spec, home)
	if err != nil {
		var re *RuleError
		if !errors.As(err, &re) {
			err = &RuleError{Index: i + 1, Err: err}
		}
		return nil, err
	}
	return r, nil
}

func compileRuleSpec(i int, spec RuleSpec, home string) (*rule, error) {
	r := &rule{spec: spec, index: i + 1}
	bad := func(what string, err error) error { return &RuleError{Index: i + 1, What: what, Err: err} }
	if spec.Dir == "" && spec.Program == "" {
		return nil, errors.New("needs dir or program")
	}
	set := 0
	if spec.Format != "" {
		set++
	}
	if spec.Name != "" {
		set++
	}
	if spec.Skip {
		set++
	}
	if set != 1 {
		return nil, fmt.Errorf("set exactly one of format, name and skip (it sets %d)", set)
	}
	if spec.Dir != "" {
		g, err := compileDir(spec.Dir, home)
		if err != nil {
			return nil, bad(fmt.Sprintf("dir %q", spec.Dir), err)
		}
		r.dir = g
	}
	if spec.Program != "" {
		g, err := compileLinear(spec.Program, false)
		if err != nil {
			return nil, bad(fmt.Sprintf("program %q", spec.Program), globReason(err, spec.Program, 0))
		}
		r.program = g
	}
	if spec.Format != "" {
		t, err := ParseTemplate(spec.Format)
		if err != nil {
			return nil, bad("format", err)
		}
		r.format = t
	}
	if spec.Name != "" {
		r.name = Sanitize(spec.Name)
		if r.name == "" {
			return nil, bad(fmt.Sprintf("name %q", spec.Name), errors.New("nothing left after removing control characters"))
		}
	}
	return r, nil
}

// compileDir expands a leading "~" (quoted, so a home directory with glob
// characters stays literal) and compiles the pattern.
func compileDir(pat, home string) (*linearGlob, error) {
	expanded, shift := pat, 0
	if pat == "~" || strings.HasPrefix(pat, "~/") {
		if home == "" {
			return nil, errors.New("uses ~ but the home directory is unknown")
		}
		q := glob.QuoteMeta(home)
		if pat == "~" {
			expanded = q
		} else {
			expanded = strings.TrimSuffix(q, "/") + pat[1:]
		}
		shift = len(expanded) - len(pat)
	} else if strings.HasPrefix(pat, "~") {
		return nil, errors.New("~user is not supported; write the path")
	}
	if !strings.ContainsAny(expanded[:1], "/*{[?") {
		return nil, errors.New("relative pattern: it is matched against absolute paths, so start it with / or ~")
	}
	g, err := compileLinear(expanded, true)
	if err != nil {
		return nil, globReason(err, pat, shift)
	}
	return g, nil
}

// globReason restates a glob syntax error with a 1-based column in the
// pattern as the user wrote it.
func globReason(err error, pat string, shift int) error {
	var se *glob.SyntaxError
	if !errors.As(err, &se) {
		return err
	}
	off := max(se.Offset-shift, 0)
	off = min(off, len(pat))
	return fmt.Errorf("column %d: %s", utf8.RuneCountInString(pat[:off])+1, se.Reason)
}

// matchDir tries the cwd and then each ancestor, deepest first, and returns
// the first that matches. An empty cwd matches only dir-less rules.
func (r *rule) matchDir(cwd string) (matched string, ok bool) {
	if r.dir == nil {
		return "", true
	}
	if cwd == "" {
		return "", false
	}
	return r.dir.deepest(cwd)
}

// match applies the whole rule; proc "" never matches a program glob. The
// glob may also match exe, the program's own name when {proc} shows
// something else ("ssh" for "@zmb").
func (r *rule) match(cwd, proc, exe string) (*RuleMatch, bool) {
	if r.program != nil && (proc == "" || !r.program.match(proc) && (exe == "" || !r.program.match(exe))) {
		return nil, false
	}
	p, ok := r.matchDir(cwd)
	if !ok {
		return nil, false
	}
	m := &RuleMatch{Index: r.index, Dir: r.spec.Dir, Program: r.spec.Program, Path: p}
	switch {
	case r.dir != nil:
		m.Match = path.Base(p)
	default:
		m.Match = proc
	}
	return m, true
}

// linearGlob is a rule glob matched by Go's regexp, which runs in time
// linear in the input. gobwas/glob reads the pattern (its syntax and its
// errors are the ones people see) but matches by backtracking: a segment
// with several stars, `*a*a*a*a*a*`, costs time polynomial in the length
// of a folder name, seconds per match on a path a local user can create.
// The translation follows gobwas's own compilation (the parse, simplify
// and globstar steps of parse.go), and a property test holds its answers
// to gobwas's.
type linearGlob struct {
	whole *regexp.Regexp // the pattern, anchored at both ends
	// below is the pattern followed by a separator, longest match first:
	// its match ends at the deepest ancestor the pattern matches.
	below *regexp.Regexp
	// suffix is a literal every match ends with: a string without it is
	// turned down in one scan (`**/node_modules` on most paths), where
	// the regexp would step through every byte.
	suffix string
}

// compileLinear checks pat with gobwas/glob (dir: '/' is a separator and
// "**/" may match zero segments) and compiles its regexp form.
func compileLinear(pat string, dir bool) (*linearGlob, error) {
	c := glob.Compiler{}
	if dir {
		c = dirCompiler
	}
	if _, err := c.Compile(pat); err != nil {
		return nil, err
	}
	n, err := parseGlob(pat)
	if err != nil {
		return nil, err
	}
	n = simplifyGlob(n)
	if dir {
		n, _ = globstarGlob(n, true)
	}
	var b strings.Builder
	n.regexp(&b, dir)
	whole, err := compileRegexp(`\A(?:` + b.String() + `)\z`)
	if err != nil {
		return nil, err
	}
	below, err := compileRegexp(`\A(?:` + b.String() + `)/`)
	if err != nil {
		return nil, err
	}
	below.Longest()
	return &linearGlob{whole: whole, below: below, suffix: n.suffix()}, nil
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

func (g *linearGlob) match(s string) bool {
	return strings.HasSuffix(s, g.suffix) && g.whole.MatchString(s)
}

// deepest finds the first of p and its ancestors, deepest first, that the
// pattern matches: p, each prefix of p that ends before a '/', then "/".
// That is three passes over p, however many ancestors it has.
func (g *linearGlob) deepest(p string) (string, bool) {
	if g.match(p) {
		return p, true
	}
	if strings.Contains(p, g.suffix+"/") {
		// A match ending at a leading '/' is the empty prefix, no ancestor.
		if loc := g.below.FindStringIndex(p); loc != nil && loc[1] > 1 {
			return p[:loc[1]-1], true
		}
	}
	if len(p) > 1 && p[0] == '/' && g.match("/") {
		return "/", true
	}
	return "", false
}

// globKind is the kind of a node of a parsed glob; they are gobwas's
// matchers.
type globKind uint8

const (
	globText   globKind = iota // a literal
	globSingle                 // ?
	globStar                   // *, which stops at a separator
	globSuper                  // **
	globClass                  // [...]
	globSeq                    // one node after another
	globAlt                    // {a,b}
	globVoid                   // the empty string
)

type globNode struct {
	kind globKind
	text string // globText: the literal; globClass: the class as a regexp
	kids []*globNode
}

// parseGlob builds the tree of a pattern gobwas has accepted, as gobwas's
// Compiler.Compile does: `{` opens a group and its first alternative, `,`
// closes an alternative, `}` closes both.
func parseGlob(pat string) (*globNode, error) {
	type open struct {
		group bool // the group; else its current alternative
		at    int  // the stack length when it opened
	}
	var stack []*globNode
	var opens []open
	closeAt := func(at int, kind globKind) {
		stack = append(stack[:at], &globNode{kind: kind, kids: slices.Clone(stack[at:])})
	}
	lex := syntax.NewLexer(pat)
	for {
		tok := lex.Next()
		switch tok.Type {
		case syntax.EOF:
			if len(opens) > 0 {
				return nil, errors.New("unclosed `{`")
			}
			return &globNode{kind: globSeq, kids: stack}, nil
		case syntax.Error:
			return nil, errors.New(tok.Data)
		case syntax.Text:
			stack = append(stack, &globNode{kind: globText, text: tok.Data})
		case syntax.Single:
			stack = append(stack, &globNode{kind: globSingle})
		case syntax.Any:
			stack = append(stack, &globNode{kind: globStar})
		case syntax.Super:
			stack = append(stack, &globNode{kind: globSuper})
		case syntax.RangeOpen:
			class, err := parseGlobClass(lex)
			if err != nil {
				return nil, err
			}
			stack = append(stack, &globNode{kind: globClass, text: class})
		case syntax.TermsOpen:
			opens = append(opens, open{true, len(stack)}, open{false, len(stack)})
		case syntax.TermSeparator, syntax.TermsClose:
			if len(opens) < 2 || opens[len(opens)-1].group {
				return nil, fmt.Errorf("unexpected %q", tok.Data)
			}
			closeAt(opens[len(opens)-1].at, globSeq)
			opens = opens[:len(opens)-1]
			if tok.Type == syntax.TermSeparator {
				opens = append(opens, open{false, len(stack)})
				continue
			}
			closeAt(opens[len(opens)-1].at, globAlt)
			opens = opens[:len(opens)-1]
		}
	}
}

// parseGlobClass reads a class after its `[` into regexp syntax, each
// character written as \x{...} so none is special there.
func parseGlobClass(lex *syntax.Lexer) (string, error) {
	var b strings.Builder
	b.WriteByte('[')
	for {
		tok := lex.Next()
		switch tok.Type {
		case syntax.Not:
			b.WriteByte('^')
		case syntax.Text, syntax.RangeLo, syntax.RangeHi:
			for _, r := range tok.Data {
				fmt.Fprintf(&b, `\x{%x}`, r)
			}
		case syntax.RangeBetween:
			b.WriteByte('-')
		case syntax.RangeClose:
			return b.String() + "]", nil
		case syntax.Error:
			return "", errors.New(tok.Data)
		default:
			return "", errors.New("unclosed `[`")
		}
	}
}

// simplifyGlob is gobwas's simplify: bottom up, nested sequences are
// inlined, voids dropped, adjacent literals merged and adjacent stars
// coalesced into the most general one; a sequence or group of one node
// is that node, of none the void.
func simplifyGlob(n *globNode) *globNode {
	if n.kind != globSeq && n.kind != globAlt {
		return n
	}
	kids := make([]*globNode, 0, len(n.kids))
	for _, k := range n.kids {
		kids = append(kids, simplifyGlob(k))
	}
	if n.kind == globSeq {
		kids = flattenGlobSeq(kids)
	}
	switch len(kids) {
	case 0:
		return &globNode{kind: globVoid}
	case 1:
		return kids[0]
	}
	return &globNode{kind: n.kind, kids: kids}
}

func flattenGlobSeq(kids []*globNode) []*globNode {
	var out []*globNode
	var push func(*globNode)
	push = func(k *globNode) {
		var last *globNode
		if len(out) > 0 {
			last = out[len(out)-1]
		}
		switch {
		case k.kind == globSeq:
			for _, c := range k.kids {
				push(c)
			}
		case k.kind == globVoid:
		case k.kind == globText && last != nil && last.kind == globText:
			out[len(out)-1] = &globNode{kind: globText, text: last.text + k.text}
		case isGlobStar(k) && last != nil && isGlobStar(last):
			if k.kind == globSuper {
				out[len(out)-1] = k
			}
		default:
			out = append(out, k)
		}
	}
	for _, k := range kids {
		push(k)
	}
	return out
}

func isGlobStar(n *globNode) bool { return n.kind == globStar || n.kind == globSuper }

// globstarGlob is gobwas's globstar rewrite for the '/' separator: a `**`
// that begins a segment and is followed by a literal starting with '/'
// becomes an optional run of segments, `{**/,}`, and two such runs in a
// row are one. start says whether n begins at a segment start; the result
// says whether n ends at one.
func globstarGlob(n *globNode, start bool) (*globNode, bool) {
	switch n.kind {
	case globAlt:
		end := true
		for i, k := range n.kids {
			var e bool
			n.kids[i], e = globstarGlob(k, start)
			end = end && e
		}
		return n, end
	case globSeq:
		return globstarSeq(slices.Clone(n.kids), start)
	case globText:
		return n, strings.HasSuffix(n.text, "/")
	case globVoid:
		return n, start
	}
	return n, false
}

func globstarSeq(kids []*globNode, start bool) (*globNode, bool) {
	var out []*globNode
	merged := false // out ends with a `{**/,}` run
	for i := 0; i < len(kids); i++ {
		k := kids[i]
		if start && k.kind == globSuper && i+1 < len(kids) && kids[i+1].kind == globText && strings.HasPrefix(kids[i+1].text, "/") {
			if !merged {
				out = append(out, &globNode{kind: globAlt, kids: []*globNode{
					{kind: globSeq, kids: []*globNode{k, {kind: globText, text: "/"}}},
					{kind: globVoid},
				}})
				merged = true
			}
			if rest := kids[i+1].text[1:]; rest != "" {
				kids[i+1] = &globNode{kind: globText, text: rest}
			} else {
				i++
			}
			continue
		}
		merged = false
		k, start = globstarGlob(k, start)
		out = append(out, k)
	}
	if len(out) == 1 {
		return out[0], start
	}
	return &globNode{kind: globSeq, kids: out}, start
}

// suffix is the literal every string n matches ends with, as gobwas's
// requiredSuffix finds it.
func (n *globNode) suffix() string {
	switch n.kind {
	case globText:
		return n.text
	case globSeq:
		return n.kids[len(n.kids)-1].suffix()
	case globAlt:
		s := n.kids[0].suffix()
		for _, k := range n.kids[1:] {
			t := k.suffix()
			i := 0
			for i < len(s) && i < len(t) && s[len(s)-1-i] == t[len(t)-1-i] {
				i++
			}
			s = s[len(s)-i:]
		}
		return s
	}
	return ""
}

// regexp writes n in Go's regexp syntax; with seps, `*` and `?` do not
// match '/'.
func (n *globNode) regexp(b *strings.Builder, seps bool) {
	switch n.kind {
	case globText:
		b.WriteString(regexp.QuoteMeta(n.text))
	case globSingle:
		if seps {
			b.WriteString(`[^/]`)
		} else {
			b.WriteString(`(?s:.)`)
		}
	case globStar:
		if seps {
			b.WriteString(`[^/]*`)
		} else {
			b.WriteString(`(?s:.*)`)
		}
	case globSuper:
		b.WriteString(`(?s:.*)`)
	case globClass:
		b.WriteString(n.text)
	case globSeq:
		for _, k := range n.kids {
			k.regexp(b, seps)
		}
	case globAlt:
		b.WriteString("(?:")
		for i, k := range n.kids {
			if i > 0 {
				b.WriteByte('|')
			}
			k.regexp(b, seps)
		}
		b.WriteByte(')')
	}
}
