package namer

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// kind is a built-in token; kToken is {token.NAME}.
type kind uint8

const (
	kProc kind = iota
	kDir
	kAgent
	kCwd
	kTitle
	kIcon
	kStatus
	kNumber
	kHost
	kRepo
	kBranch
	kWorkspace
	kIndex
	kTask
	kSession
	kTicket
	kArgs
	kGlyph
	kMatch
	kToken
	numKinds
)

var kindNames = [numKinds]string{
	kProc: "proc", kDir: "dir", kAgent: "agent", kCwd: "cwd", kTitle: "title",
	kIcon: "icon", kStatus: "status", kNumber: "number", kHost: "host",
	kRepo: "repo", kBranch: "branch", kWorkspace: "workspace", kIndex: "index",
	kTask: "task", kSession: "session", kTicket: "ticket", kArgs: "args", kGlyph: "glyph", kMatch: "match",
	kToken: "token.NAME",
}

const knownTokens = "proc dir agent cwd title icon status number host repo branch workspace index task session ticket args glyph match token.NAME"

// ref is one alternative of a token group.
type ref struct {
	kind kind
	name string // NAME of {token.NAME}
}

// part is a literal run (alts == nil) or a token group.
type part struct {
	lit  string
	alts []ref
}

// Template is a parsed naming template. It is immutable and safe for
// concurrent use.
type Template struct {
	src   string
	parts []part
	uses  uint32 // bit per kind
}

// TemplateError is a template parse error. Column counts runes from 1.
type TemplateError struct {
	Template string
	Column   int
	Reason   string
}

func (e *TemplateError) Error() string {
	return fmt.Sprintf("template %q column %d: %s", e.Template, e.Column, e.Reason)
}

// ParseTemplate parses a template (syntax in the package documentation).
func ParseTemplate(s string) (*Template, error) {
	t := &Template{src: s}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			t.parts = append(t.parts, part{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); {
		switch c := s[i]; c {
		case '{':
			if i+1 < len(s) && s[i+1] == '{' {
				lit.WriteByte('{')
				i += 2
				continue
			}
			flush()
			alts, next, err := parseGroup(s, i)
			if err != nil {
				return nil, err
			}
			for _, r := range alts {
				t.uses |= 1 << r.kind
			}
			t.parts = append(t.parts, part{alts: alts})
			i = next
		case '}':
			if i+1 < len(s) && s[i+1] == '}' {
				lit.WriteByte('}')
				i += 2
				continue
			}
			return nil, templateError(s, i, "stray '}' (write }} for a literal brace)")
		default:
			lit.WriteByte(c)
			i++
		}
	}
	flush()
	return t, nil
}

// parseGroup parses the token group that opens at s[open], `{a|b}`, and
// returns its alternatives and the index just past its '}'.
func parseGroup(s string, open int) (alts []ref, next int, err error) {
	i := open + 1
	altStart := i
	for {
		if i >= len(s) {
			return nil, 0, templateError(s, open, "unclosed brace")
		}
		c := s[i]
		if c == '{' {
			return nil, 0, templateError(s, i, "'{' inside a token (write {{ for a literal brace)")
		}
		if c != '|' && c != '}' {
			i++
			continue
		}
		name := s[altStart:i]
		if name == "" {
			if c == '}' && len(alts) == 0 {
				return nil, 0, templateError(s, i, "empty token")
			}
			return nil, 0, templateError(s, i, "empty alternative")
		}
		r, ok := lookupToken(name)
		if !ok {
			if strings.HasPrefix(name, "token.") {
				return nil, 0, templateError(s, altStart, "bad metadata token name %q (1-32 of A-Z a-z 0-9 _ -)", name[len("token."):])
			}
			return nil, 0, templateError(s, altStart, "unknown token %q (known: %s)", name, knownTokens)
		}
		alts = append(alts, r)
		i++
		if c == '}' {
			return alts, i, nil
		}
		altStart = i
	}
}

// templateError is a parse error in s at byte offset at.
func templateError(s string, at int, format string, args ...any) *TemplateError {
	return &TemplateError{Template: s, Column: utf8.RuneCountInString(s[:at]) + 1, Reason: fmt.Sprintf(format, args...)}
}

func lookupToken(name string) (ref, bool) {
	if tok, ok := strings.CutPrefix(name, "token."); ok {
		return ref{kind: kToken, name: tok}, validTokenName(tok)
	}
	for k := kProc; k < kToken; k++ {
		if kindNames[k] == name {
			return ref{kind: k}, true
		}
	}
	return ref{}, false
}

// validTokenName follows herdr's rule for metadata token keys.
func validTokenName(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// String returns the template's source text.
func (t *Template) String() string { return t.src }

func (t *Template) uses1(k kind) bool { return t.uses&(1<<k) != 0 }

// values holds the sanitised token values of one render.
type values struct {
	v      [kToken]string
	tokens map[string]string // raw pane metadata tokens
}

func (vs *values) get(r ref) string {
	if r.kind == kToken {
		return Sanitize(vs.tokens[r.name])
	}
	return vs.v[r.kind]
}

// render appends the rendering of t to buf. Literal runs are kept only when
// every group they touch is non-empty (see the package documentation).
func (t *Template) render(vs *values, buf []byte) []byte {
	var small [16]string
	groups := small[:0]
	for _, p := range t.parts {
		if p.alts == nil {
			groups = append(groups, "")
			continue
		}
		val := ""
		for _, r := range p.alts {
			if val = vs.get(r); val != "" {
				break
			}
		}
		groups = append(groups, val)
	}
	for i, p := range t.parts {
		if p.alts != nil {
			buf = append(buf, groups[i]...)
			continue
		}
		// Adjacent literals were merged by the parser, so neighbours of a
		// literal are groups.
		if i > 0 && groups[i-1] == "" {
			continue
		}
		if i+1 < len(t.parts) && groups[i+1] == "" {
			continue
		}
		buf = append(buf, p.lit...)
	}
	return buf
}
