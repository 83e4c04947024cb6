// Package config reads the TOML config file: every long flag name is a
// key, plus the [[rules]], [[rewrites]] and [glyphs] tables. It records each
// key's line as it reads, so every later error names its place.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kong"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/herdrtabrenamer/herdrtabrenamer/facts/glyphs"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/safefile"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
	"github.com/herdrtabrenamer/herdrtabrenamer/sidebar"
)

// File is the TOML file: every long flag name is a key (`max-len =
// 24`), plus the per-directory [[rules]], program-name [[rewrites]] and
// the [glyphs] table.
// Precedence is flags > HERDRTABRENAMER_* env > file > defaults; kong gives
// env priority over resolvers, and a resolver only fills unset flags.
type File struct {
	Path     string
	values   map[string]value
	Rules    []namer.RuleSpec
	Rewrites []procinfo.RewriteSpec
	Glyphs   map[string]string // [glyphs]: program = "glyph"
	// ruleLines and rewriteLines are the lines of each table's header, so
	// an error about rule N points at its table.
	ruleLines, rewriteLines []int
	// Broken is why the file cannot be used; the file then sets nothing,
	// and only the commands that need it fail (see Main).
	Broken error
}

// value is a top-level key's value and the line that set it.
type value struct {
	v     any // string, int64, float64, bool or []any of strings
	line  int
	items []int // a list's entries' lines
}

// Error is a problem at a place in the config file.
type Error struct {
	Path string
	Line int // 0: the file as a whole
	Err  error
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("config %s: %v", e.Path, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// DefaultPath is $XDG_CONFIG_HOME/herdrtabrenamer/config.toml.
func DefaultPath() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "herdrtabrenamer", "config.toml")
}

// maxSize bounds what is read of the config file.
const maxSize = 4 << 20

// Load reads path. A missing default file is no config; a missing
// file the user named is an error. The error is a *Error naming the
// file and, where there is one, the line.
func Load(path string, named bool) (*File, error) {
	cf := &File{Path: path, values: map[string]value{}}
	if path == "" {
		return cf, nil
	}
	// A FIFO or device at the config path must not hang every command.
	b, err := safefile.ReadFile(path, maxSize)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && !named {
			return cf, nil
		}
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is said once, by Error
		}
		return nil, &Error{Path: path, Err: err}
	}
	if err := cf.decode(b); err != nil {
		return nil, err
	}
	return cf, nil
}

// decode is the one reader of the file: it walks TOML expressions in order
// and records each key's line as it goes, so every later error can name
// its line without looking at the text again.
func (cf *File) decode(b []byte) error {
	var p unstable.Parser
	p.Reset(b)
	d := &configDecoder{cf: cf, lines: newLineIndex(b), seen: map[string]int{}}
	for p.NextExpression() {
		e := p.Expression()
		key, keyLine := keyPath(e, d.line)
		var err error
		switch e.Kind {
		case unstable.ArrayTable:
			err = d.arrayTable(key, keyLine)
		case unstable.Table:
			err = d.plainTable(key, keyLine)
		case unstable.KeyValue:
			err = d.keyValue(e, key, keyLine)
		}
		if err != nil {
			return err
		}
	}
	if err := p.Error(); err != nil {
		var pe *unstable.ParserError
		if errors.As(err, &pe) {
			return d.bad(d.lines.line(int(p.Range(pe.Highlight).Offset)), "%s", pe.Message)
		}
		return &Error{Path: cf.Path, Err: err}
	}
	return nil
}

// configDecoder is where decode is in the file: the table it reads and
// the keys set there so far.
type configDecoder struct {
	cf    *File
	lines lineIndex
	table string         // "", "rules", "rewrites" or "glyphs"
	seen  map[string]int // keys of the current table -> line
}

// line is the 1-based line n starts on.
func (d *configDecoder) line(n *unstable.Node) int { return d.lines.line(int(n.Raw.Offset)) }

// bad is an error at line l of the file.
func (d *configDecoder) bad(l int, format string, args ...any) error {
	return &Error{Path: d.cf.Path, Line: l, Err: fmt.Errorf(format, args...)}
}

// arrayTable opens a [[rules]] or [[rewrites]] entry.
func (d *configDecoder) arrayTable(key string, keyLine int) error {
	d.table, d.seen = key, map[string]int{}
	cf := d.cf
	switch key {
	case "rules":
		cf.Rules = append(cf.Rules, namer.RuleSpec{})
		cf.ruleLines = append(cf.ruleLines, keyLine)
	case "rewrites":
		cf.Rewrites = append(cf.Rewrites, procinfo.RewriteSpec{})
		cf.rewriteLines = append(cf.rewriteLines, keyLine)
	default:
		return d.bad(keyLine, "unknown table [[%s]] (want [[rules]] or [[rewrites]])", key)
	}
	return nil
}

// plainTable opens [glyphs], the one plain table.
func (d *configDecoder) plainTable(key string, keyLine int) error {
	if key != "glyphs" {
		return d.bad(keyLine, "unknown table [%s] (the tables are [[rules]], [[rewrites]] and [glyphs])", key)
	}
	d.table, d.seen = key, map[string]int{}
	if d.cf.Glyphs == nil {
		d.cf.Glyphs = map[string]string{}
	}
	return nil
}

// keyValue sets one key of the current table, once.
func (d *configDecoder) keyValue(e *unstable.Node, key string, keyLine int) error {
	if first, dup := d.seen[key]; dup {
		return d.bad(keyLine, "%q is set twice (first on line %d); keep one", key, first)
	}
	d.seen[key] = keyLine
	var v any
	var items []int
	var err error
	errLine := keyLine
	if e.Value().Kind == unstable.Array {
		v, items, errLine, err = stringList(e.Value(), d.line, keyLine)
	} else {
		v, err = scalar(e.Value())
	}
	if err != nil {
		return d.bad(errLine, "%s: %v", key, err)
	}
	cf := d.cf
	if err := cf.set(d.table, key, v, keyLine); err != nil {
		return &Error{Path: cf.Path, Line: keyLine, Err: err}
	}
	if cv, ok := cf.values[key]; ok && d.table == "" && items != nil {
		cv.items = items
		cf.values[key] = cv
	}
	return nil
}

// lineIndex holds the offsets of a file's newlines, found in one scan, so
// that a key's line is a binary search: the parser's own Shape counts
// lines from the top of the file on every call, quadratic in a file of
// many keys.
type lineIndex []int

func newLineIndex(b []byte) lineIndex {
	var li lineIndex
	for i, c := range b {
		if c == '\n' {
			li = append(li, i)
		}
	}
	return li
}

// line is the 1-based line of the byte at offset.
func (li lineIndex) line(offset int) int {
	n, _ := slices.BinarySearch(li, offset)
	return n + 1
}

// keyPath joins a dotted key and returns the line of its first part.
func keyPath(e *unstable.Node, line func(*unstable.Node) int) (string, int) {
	var parts []string
	l := 0
	for it := e.Key(); it.Next(); {
		k := it.Node()
		if l == 0 {
			l = line(k)
		}
		parts = append(parts, string(k.Data))
	}
	return strings.Join(parts, "."), l
}

// stringList converts a TOML array of strings (ignore = ["ls", "git
// status*"]) and returns each entry's line; errLine is the bad entry's.
func stringList(n *unstable.Node, line func(*unstable.Node) int, keyLine int) (list []any, lines []int, errLine int, err error) {
	list, lines = []any{}, []int{}
	for it := n.Children(); it.Next(); {
		c := it.Node()
		if c.Kind != unstable.String {
			return nil, nil, line(c), fmt.Errorf("want a list of strings, entry %d is %s", len(list)+1, strings.ToLower(c.Kind.String()))
		}
		list, lines = append(list, string(c.Data)), append(lines, line(c))
	}
	return list, lines, keyLine, nil
}

// scalar converts a TOML value. Settings are strings, numbers and booleans
// only; arrays, inline tables and dates have no place in this file.
func scalar(n *unstable.Node) (any, error) {
	s := string(n.Data)
	switch n.Kind {
	case unstable.String:
		return s, nil
	case unstable.Bool:
		return s == "true", nil
	case unstable.Integer:
		i, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 0, 64)
		if err != nil {
			return nil, fmt.Errorf("integer %s out of range", s)
		}
		return i, nil
	case unstable.Float:
		f, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
		if err != nil {
			return nil, fmt.Errorf("number %s out of range", s)
		}
		return f, nil
	case unstable.Array, unstable.InlineTable:
		return nil, errors.New("want a string, number or true/false, not a list or table (rules go in [[rules]] tables)")
	}
	return nil, errors.New("want a string, number or true/false, not a date")
}

// set stores one key of the top level or of the current table.
func (cf *File) set(table, key string, v any, line int) error {
	switch table {
	case "":
		if key == "glyphs" {
			return fmt.Errorf("glyphs: want a table [glyphs] of program = \"glyph\", got %v", v)
		}
		cf.values[key] = value{v: v, line: line}
		return nil
	case "rules":
		r := &cf.Rules[len(cf.Rules)-1]
		switch key {
		case "dir":
			return setString(&r.Dir, key, v)
		case "program":
			return setString(&r.Program, key, v)
		case "format":
			return setString(&r.Format, key, v)
		case "name":
			return setString(&r.Name, key, v)
		case "pane-format":
			return setString(&r.PaneFormat, key, v)
		case "skip":
			b, ok := v.(bool)
			if !ok {
				return fmt.Errorf("skip: want true or false, got %v", v)
			}
			r.Skip = b
			return nil
		}
		return fmt.Errorf("unknown key %q in [[rules]] (want dir, program, format, name, skip, pane-format)", key)
	case "glyphs":
		g, ok := v.(string)
		if !ok {
			return fmt.Errorf("glyphs: %s: want a string (\"\" removes the glyph), got %v", key, v)
		}
		if err := glyphs.CheckKey(key); err != nil {
			return err
		}
		if err := glyphs.CheckValue(key, g); err != nil {
			return err
		}
		cf.Glyphs[key] = g
		return nil
	default: // rewrites
		r := &cf.Rewrites[len(cf.Rewrites)-1]
		switch key {
		case "match":
			return setString(&r.Match, key, v)
		case "replace":
			return setString(&r.Replace, key, v)
		}
		return fmt.Errorf("unknown key %q in [[rewrites]] (want match, replace)", key)
	}
}

func setString(dst *string, key string, v any) error {
	s, ok := v.(string)
	if !ok {
		return fmt.Errorf("%s: want a string, got %v", key, v)
	}
	*dst = s
	return nil
}

// Validate is kong's resolver check, run while parsing. It passes: the
// file was checked by CheckKeys before, and a file that failed then is
// marked broken and sets nothing, so that only commands that need it stop.
func (cf *File) Validate(*kong.Application) error { return nil }

// CheckKeys rejects keys that are no flag and values of the wrong type,
// naming file and line.
func (cf *File) CheckKeys(app *kong.Application) error {
	flags := map[string]*kong.Flag{}
	_ = kong.Visit(app, func(n kong.Visitable, next kong.Next) error {
		if f, ok := n.(*kong.Flag); ok {
			flags[f.Name] = f
		}
		return next(nil)
	})
	// File order: the first error a person sees is the first in the file.
	keys := make([]string, 0, len(cf.values))
	for k := range cf.values {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return cf.values[a].line - cf.values[b].line })
	for _, k := range keys {
		v := cf.values[k]
		f, ok := flags[k]
		if !ok || Excluded[k] {
			return &Error{Path: cf.Path, Line: v.line,
				Err: fmt.Errorf("unknown key %q (keys are long flag names, e.g. format, max-len, plus [[rules]], [[rewrites]] and [glyphs])", k)}
		}
		if err := checkType(f, v.v); err != nil {
			return &Error{Path: cf.Path, Line: v.line, Err: fmt.Errorf("%s: %w", k, err)}
		}
		if err := cf.checkEntries(k, v); err != nil {
			return err
		}
	}
	return nil
}

// checkEntries checks each entry of the lists whose entries have rules
// of their own, naming the entry's line: ignore's globs, and
// sidebar-tokens' names (each known, none twice).
func (cf *File) checkEntries(k string, v value) error {
	list, ok := v.v.([]any)
	if !ok {
		return nil
	}
	var names []string
	for i, p := range list {
		var err error
		switch k {
		case "ignore", "extend-ignore":
			err = namer.CheckIgnore(p.(string))
		case "sidebar-tokens":
			names = append(names, p.(string))
			err = sidebar.Check(names)
		default:
			return nil
		}
		if err != nil {
			return &Error{Path: cf.Path, Line: v.items[i], Err: fmt.Errorf("%s: entry %d: %w", k, i+1, err)}
		}
	}
	return nil
}

// Excluded are flags that make no sense in a file.
var Excluded = map[string]bool{
	"help": true, "version": true, "config": true,
	// per-invocation switches, not settings
	"when": true, "quiet": true, "json": true, "cmd": true, "no-preexec": true, "pause": true, "if-not-running": true, "notify": true, "pane": true,
}

var durationType = reflect.TypeFor[time.Duration]()

func checkType(f *kong.Flag, v any) error {
	t := f.Target.Type()
	_, list := v.([]any)
	switch {
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String:
		if !list {
			return fmt.Errorf("want a list of strings like [\"ls\", \"git status*\"], got %v", v)
		}
	case list:
		return errors.New("want a string, number or true/false, not a list")
	case t == durationType:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want a duration string like \"3s\", got %v", v)
		}
		if _, err := time.ParseDuration(s); err != nil {
			return fmt.Errorf("want a duration like \"3s\", got %q", s)
		}
	case t.Kind() == reflect.Bool:
		if _, ok := v.(bool); !ok {
			return fmt.Errorf("want true or false, got %v", v)
		}
	case t.Kind() == reflect.Int:
		if _, ok := v.(int64); !ok {
			return fmt.Errorf("want a whole number, got %v", v)
		}
	case t.Kind() == reflect.String:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want a string, got %v", v)
		}
		if f.Enum != "" && !slices.Contains(f.EnumSlice(), s) {
			return fmt.Errorf("want one of %s, got %q", strings.Join(f.EnumSlice(), ", "), s)
		}
	}
	return nil
}

// Resolve hands kong the file's value for a flag; kong calls it only for
// flags not set on the command line or in the environment. Validate has
// checked every value, and a broken file sets nothing.
func (cf *File) Resolve(_ *kong.Context, _ *kong.Path, f *kong.Flag) (any, error) {
	if cf.Broken != nil {
		return nil, nil
	}
	v, ok := cf.values[f.Name]
	if !ok {
		return nil, nil
	}
	// The environment outranks the file; kong would otherwise let a
	// resolver's value stand over HERDRTABRENAMER_*.
	for _, e := range f.Envs {
		if _, set := os.LookupEnv(e); set {
			return nil, nil
		}
	}
	if i, ok := v.v.(int64); ok {
		return strconv.FormatInt(i, 10), nil
	}
	return v.v, nil
}

// BoolValue is the file's value of a top-level boolean key; ok is false
// when the file has none (or is broken, which sets nothing).
func (cf *File) BoolValue(key string) (v, ok bool) {
	if cf == nil || cf.Broken != nil {
		return false, false
	}
	v, ok = cf.values[key].v.(bool)
	return v, ok
}

// Socket reads the file's socket key and nothing after it, for the
// hooks' nudge, which runs twice per shell command: top-level keys come
// before the first table, so it stops at the key or at the first table.
// A file that cannot be read that far, or a socket that is no string, is
// an error, which the full load then states with its line.
func Socket(path string, named bool) (string, error) {
	if path == "" {
		return "", nil
	}
	b, err := safefile.ReadFile(path, maxSize)
	if errors.Is(err, os.ErrNotExist) && !named {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("config %s: %w", path, err)
	}
	var p unstable.Parser
	p.Reset(b)
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			return "", nil
		case unstable.KeyValue:
			if key, _ := keyPath(e, func(*unstable.Node) int { return 0 }); key != "socket" {
				continue
			}
			if v := e.Value(); v.Kind == unstable.String {
				return string(v.Data), nil
			}
			return "", fmt.Errorf("config %s: socket: want a string", path)
		}
	}
	if err := p.Error(); err != nil {
		return "", fmt.Errorf("config %s: %w", path, err)
	}
	return "", nil
}

// AtKey puts file and line on an error about a top-level key's value when
// that value is the one in use (a flag or env var may have replaced it).
func (cf *File) AtKey(key string, inUse any, err error) error {
	if cf == nil || cf.Path == "" {
		return err
	}
	if v, ok := cf.values[key]; ok && v.v == inUse {
		return &Error{Path: cf.Path, Line: v.line, Err: err}
	}
	return err
}

// AtTable puts file and line on an error about the file's rules: the
// [[rules]] or [[rewrites]] table it is about, else the file.
func (cf *File) AtTable(err error) error {
	if cf == nil || cf.Path == "" {
		return err
	}
	var re *namer.RuleError
	if errors.As(err, &re) && re.Index >= 1 && re.Index <= len(cf.ruleLines) {
		return &Error{Path: cf.Path, Line: cf.ruleLines[re.Index-1], Err: err}
	}
	var we *procinfo.RewriteError
	if errors.As(err, &we) && we.Index >= 1 && we.Index <= len(cf.rewriteLines) {
		return &Error{Path: cf.Path, Line: cf.rewriteLines[we.Index-1], Err: err}
	}
	return &Error{Path: cf.Path, Err: err}
}
