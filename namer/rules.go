package namer

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	gobwas "github.com/gobwas/glob"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/glob"
)

// RuleSpec is one [[rules]] table of the config file.
type RuleSpec struct {
	Dir     string `toml:"dir"`     // glob on the cwd or an ancestor ("~/projects/*")
	Program string `toml:"program"` // glob on {proc} or the program's own name ("ssh" for "@zmb", "{n,}vim")
	Format  string `toml:"format"`  // template for matching tabs
	Name    string `toml:"name"`    // fixed name for matching tabs
	Skip    bool   `toml:"skip"`    // never rename matching tabs
	// PaneFormat is the template for the panes of matching tabs
	// (Config.Panes); a rule may set it alone, and then names no tab.
	PaneFormat string `toml:"pane-format"`
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
	dir     *glob.Glob // nil: any dir
	program *glob.Glob // nil: any program
	format  *Template  // nil for name and skip rules
	name    string     // sanitised fixed name
	skip    bool       // never rename what matches
	// paneFormat is the pane template; a pane namer's format.
	paneFormat *Template
	// inert: the rule says nothing of what this namer names (a rule with
	// only a pane template, for tabs; a name rule, for panes) and never
	// matches.
	inert bool
}

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

func compileRule(i int, spec RuleSpec, home string, panes bool) (*rule, error) {
	r, err := compileRuleSpec(i, spec, home, panes)
	if err != nil {
		var re *RuleError
		if !errors.As(err, &re) {
			err = &RuleError{Index: i + 1, Err: err}
		}
		return nil, err
	}
	return r, nil
}

func compileRuleSpec(i int, spec RuleSpec, home string, panes bool) (*rule, error) {
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
	if set > 1 || set == 0 && spec.PaneFormat == "" {
		return nil, fmt.Errorf("set exactly one of format, name and skip, or pane-format alone (it sets %d)", set)
	}
	if spec.Dir != "" {
		g, err := compileDir(spec.Dir, home)
		if err != nil {
			return nil, bad(fmt.Sprintf("dir %q", spec.Dir), err)
		}
		r.dir = g
	}
	if spec.Program != "" {
		g, err := glob.Compile(spec.Program)
		if err != nil {
			return nil, bad(fmt.Sprintf("program %q", spec.Program), globReason(err, spec.Program, 0))
		}
		r.program = g
	}
	if err := r.compileOutcome(spec, bad); err != nil {
		return nil, err
	}
	if panes {
		r.forPanes()
	}
	r.inert = r.format == nil && r.name == "" && !r.skip
	return r, nil
}

// compileOutcome compiles what the rule does: its templates, name or skip.
func (r *rule) compileOutcome(spec RuleSpec, bad func(string, error) error) error {
	for _, f := range []struct {
		key, text string
		dst       **Template
	}{{"format", spec.Format, &r.format}, {"pane-format", spec.PaneFormat, &r.paneFormat}} {
		if f.text == "" {
			continue
		}
		t, err := ParseTemplate(f.text)
		if err != nil {
			return bad(f.key, err)
		}
		*f.dst = t
	}
	if spec.Name != "" {
		r.name = Sanitize(spec.Name)
		if r.name == "" {
			return bad(fmt.Sprintf("name %q", spec.Name), errors.New("nothing left after removing control characters"))
		}
	}
	r.skip = spec.Skip
	return nil
}

// forPanes turns a rule into what it says of panes: its pane template, or
// its skip; a name would call every pane of a tab the same.
func (r *rule) forPanes() {
	r.format, r.name = r.paneFormat, ""
	if r.format != nil {
		r.skip = false
	}
}

// compileDir expands a leading "~" (quoted, so a home directory with glob
// characters stays literal) and compiles the pattern.
func compileDir(pat, home string) (*glob.Glob, error) {
	expanded, shift := pat, 0
	if pat == "~" || strings.HasPrefix(pat, "~/") {
		if home == "" {
			return nil, errors.New("uses ~ but the home directory is unknown")
		}
		q := gobwas.QuoteMeta(home)
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
	g, err := glob.CompilePath(expanded)
	if err != nil {
		return nil, globReason(err, pat, shift)
	}
	return g, nil
}

// globReason restates a glob syntax error with a 1-based column in the
// pattern as the user wrote it.
func globReason(err error, pat string, shift int) error {
	var se *gobwas.SyntaxError
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
	if r.inert {
		return "", false
	}
	if r.dir == nil {
		return "", true
	}
	if cwd == "" {
		return "", false
	}
	return r.dir.Deepest(cwd)
}

// match applies the whole rule; proc "" never matches a program glob. The
// glob may also match exe, the program's own name when {proc} shows
// something else ("ssh" for "@zmb").
func (r *rule) match(cwd, proc, exe string) (*RuleMatch, bool) {
	if r.program != nil && (proc == "" || !r.program.Match(proc) && (exe == "" || !r.program.Match(exe))) {
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
