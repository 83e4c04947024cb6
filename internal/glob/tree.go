package glob

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/gobwas/glob/syntax"
)

// nodeKind is the kind of a node of a parsed glob; they are gobwas's
// matchers.
type nodeKind uint8

const (
	nodeText   nodeKind = iota // a literal
	nodeSingle                 // ?
	nodeStar                   // *, which stops at a separator
	nodeSuper                  // **
	nodeClass                  // [...]
	nodeSeq                    // one node after another
	nodeAlt                    // {a,b}
	nodeVoid                   // the empty string
)

type node struct {
	kind nodeKind
	text string // nodeText: the literal; nodeClass: the class as a regexp
	kids []*node
}

// parse builds the tree of a pattern gobwas has accepted, as gobwas's
// Compiler.Compile does: `{` opens a group and its first alternative, `,`
// closes an alternative, `}` closes both.
func parse(pat string) (*node, error) {
	type open struct {
		group bool // the group; else its current alternative
		at    int  // the stack length when it opened
	}
	var stack []*node
	var opens []open
	closeAt := func(at int, kind nodeKind) {
		stack = append(stack[:at], &node{kind: kind, kids: slices.Clone(stack[at:])})
	}
	lex := syntax.NewLexer(pat)
	for {
		tok := lex.Next()
		switch tok.Type {
		case syntax.EOF:
			if len(opens) > 0 {
				return nil, errors.New("unclosed `{`")
			}
			return &node{kind: nodeSeq, kids: stack}, nil
		case syntax.Error:
			return nil, errors.New(tok.Data)
		case syntax.Text:
			stack = append(stack, &node{kind: nodeText, text: tok.Data})
		case syntax.Single:
			stack = append(stack, &node{kind: nodeSingle})
		case syntax.Any:
			stack = append(stack, &node{kind: nodeStar})
		case syntax.Super:
			stack = append(stack, &node{kind: nodeSuper})
		case syntax.RangeOpen:
			class, err := parseClass(lex)
			if err != nil {
				return nil, err
			}
			stack = append(stack, &node{kind: nodeClass, text: class})
		case syntax.TermsOpen:
			opens = append(opens, open{true, len(stack)}, open{false, len(stack)})
		case syntax.TermSeparator, syntax.TermsClose:
			if len(opens) < 2 || opens[len(opens)-1].group {
				return nil, fmt.Errorf("unexpected %q", tok.Data)
			}
			closeAt(opens[len(opens)-1].at, nodeSeq)
			opens = opens[:len(opens)-1]
			if tok.Type == syntax.TermSeparator {
				opens = append(opens, open{false, len(stack)})
				continue
			}
			closeAt(opens[len(opens)-1].at, nodeAlt)
			opens = opens[:len(opens)-1]
		}
	}
}

// parseClass reads a class after its `[` into regexp syntax, each
// character written as \x{...} so none is special there.
func parseClass(lex *syntax.Lexer) (string, error) {
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

// simplify is gobwas's simplify: bottom up, nested sequences are
// inlined, voids dropped, adjacent literals merged and adjacent stars
// coalesced into the most general one; a sequence or group of one node
// is that node, of none the void.
func simplify(n *node) *node {
	if n.kind != nodeSeq && n.kind != nodeAlt {
		return n
	}
	kids := make([]*node, 0, len(n.kids))
	for _, k := range n.kids {
		kids = append(kids, simplify(k))
	}
	if n.kind == nodeSeq {
		kids = flattenSeq(kids)
	}
	switch len(kids) {
	case 0:
		return &node{kind: nodeVoid}
	case 1:
		return kids[0]
	}
	return &node{kind: n.kind, kids: kids}
}

func flattenSeq(kids []*node) []*node {
	var out []*node
	var push func(*node)
	push = func(k *node) {
		var last *node
		if len(out) > 0 {
			last = out[len(out)-1]
		}
		switch {
		case k.kind == nodeSeq:
			for _, c := range k.kids {
				push(c)
			}
		case k.kind == nodeVoid:
		case k.kind == nodeText && last != nil && last.kind == nodeText:
			out[len(out)-1] = &node{kind: nodeText, text: last.text + k.text}
		case isStar(k) && last != nil && isStar(last):
			if k.kind == nodeSuper {
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

func isStar(n *node) bool { return n.kind == nodeStar || n.kind == nodeSuper }

// globstar is gobwas's globstar rewrite for the '/' separator: a `**`
// that begins a segment and is followed by a literal starting with '/'
// becomes an optional run of segments, `{**/,}`, and two such runs in a
// row are one. start says whether n begins at a segment start; the result
// says whether n ends at one.
func globstar(n *node, start bool) (*node, bool) {
	switch n.kind {
	case nodeAlt:
		end := true
		for i, k := range n.kids {
			var e bool
			n.kids[i], e = globstar(k, start)
			end = end && e
		}
		return n, end
	case nodeSeq:
		return globstarSeq(slices.Clone(n.kids), start)
	case nodeText:
		return n, strings.HasSuffix(n.text, "/")
	case nodeVoid:
		return n, start
	}
	return n, false
}

func globstarSeq(kids []*node, start bool) (*node, bool) {
	var out []*node
	merged := false // out ends with a `{**/,}` run
	for i := 0; i < len(kids); i++ {
		k := kids[i]
		if start && k.kind == nodeSuper && i+1 < len(kids) && kids[i+1].kind == nodeText && strings.HasPrefix(kids[i+1].text, "/") {
			if !merged {
				out = append(out, &node{kind: nodeAlt, kids: []*node{
					{kind: nodeSeq, kids: []*node{k, {kind: nodeText, text: "/"}}},
					{kind: nodeVoid},
				}})
				merged = true
			}
			if rest := kids[i+1].text[1:]; rest != "" {
				kids[i+1] = &node{kind: nodeText, text: rest}
			} else {
				i++
			}
			continue
		}
		merged = false
		k, start = globstar(k, start)
		out = append(out, k)
	}
	if len(out) == 1 {
		return out[0], start
	}
	return &node{kind: nodeSeq, kids: out}, start
}

// suffix is the literal every string n matches ends with, as gobwas's
// requiredSuffix finds it.
func (n *node) suffix() string {
	switch n.kind {
	case nodeText:
		return n.text
	case nodeSeq:
		return n.kids[len(n.kids)-1].suffix()
	case nodeAlt:
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
func (n *node) regexp(b *strings.Builder, seps bool) {
	switch n.kind {
	case nodeText:
		b.WriteString(regexp.QuoteMeta(n.text))
	case nodeSingle:
		if seps {
			b.WriteString(`[^/]`)
		} else {
			b.WriteString(`(?s:.)`)
		}
	case nodeStar:
		if seps {
			b.WriteString(`[^/]*`)
		} else {
			b.WriteString(`(?s:.*)`)
		}
	case nodeSuper:
		b.WriteString(`(?s:.*)`)
	case nodeClass:
		b.WriteString(n.text)
	case nodeSeq:
		for _, k := range n.kids {
			k.regexp(b, seps)
		}
	case nodeAlt:
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
