package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/alecthomas/kong"

	"github.com/herdrtabrenamer/herdrtabrenamer/facts/glyphs"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// configFile is the TOML file: every long flag name is a key (`max-len =
// 24`), plus the per-directory [[rules]], program-name [[rewrites]] and
// the [glyphs] table.
// Precedence is flags > HERDRTABRENAMER_* env > file > defaults; kong gives
// env priority over resolvers, and a resolver only fills unset flags.
type configFile struct {
	Path     string
	values   map[string]any
	lines    []string
	Rules    []namer.RuleSpec
	Rewrites []procinfo.RewriteSpec
	Glyphs   map[string]string // [glyphs]: program = "glyph"
}

// defaultConfigPath is $XDG_CONFIG_HOME/herdrtabrenamer/config.toml.
func defaultConfigPath() string {
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

// loadConfigFile reads path. A missing default file is no config; a missing
// file the user named is an error.
func loadConfigFile(path string, named bool) (*configFile, error) {
	cf := &configFile{Path: path, values: map[string]any{}}
	if path == "" {
		return cf, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && !named {
			return cf, nil
		}
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	cf.lines = strings.Split(string(b), "\n")
	var raw map[string]any
	if _, err := toml.Decode(string(b), &raw); err != nil {
		return nil, cf.tomlError(err)
	}
	var tables struct {
		Rules    []namer.RuleSpec       `toml:"rules"`
		Rewrites []procinfo.RewriteSpec `toml:"rewrites"`
	}
	md, err := toml.Decode(string(b), &tables)
	if err != nil {
		return nil, cf.tomlError(err)
	}
	for _, k := range md.Undecoded() {
		if len(k) >= 2 && (k[0] == "rules" || k[0] == "rewrites") {
			return nil, fmt.Errorf("%s: unknown key %q in [[%s]] (want %s)", cf.where(k[len(k)-1]), k[len(k)-1], k[0], tableKeys(k[0]))
		}
	}
	cf.Rules, cf.Rewrites = tables.Rules, tables.Rewrites
	if g, ok := raw["glyphs"]; ok {
		if cf.Glyphs, err = cf.glyphTable(g); err != nil {
			return nil, err
		}
	}
	for k, v := range raw {
		if k == "rules" || k == "rewrites" || k == "glyphs" {
			continue
		}
		cf.values[k] = v
	}
	return cf, nil
}

// glyphTable checks the [glyphs] table: program names to glyphs, each
// error naming the line.
func (cf *configFile) glyphTable(v any) (map[string]string, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: glyphs: want a table of program = \"glyph\", got %v", cf.where("glyphs"), v)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make(map[string]string, len(m))
	for _, k := range keys {
		g, ok := m[k].(string)
		if !ok {
			return nil, fmt.Errorf("%s: glyphs: %s: want a string (\"\" removes the glyph), got %v", cf.whereIn("glyphs", k), k, m[k])
		}
		err := glyphs.CheckKey(k)
		if err == nil {
			err = glyphs.CheckValue(k, g)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", cf.whereIn("glyphs", k), err)
		}
		out[k] = g
	}
	return out, nil
}

// whereIn finds the line that sets key inside [table], for file:line
// errors; it falls back to where.
func (cf *configFile) whereIn(table, key string) string {
	re := regexp.MustCompile(`^\s*("` + regexp.QuoteMeta(key) + `"|'` + regexp.QuoteMeta(key) + `'|` + regexp.QuoteMeta(key) + `)\s*=`)
	in := false
	for i, l := range cf.lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			in = t == "["+table+"]"
			continue
		}
		if in && re.MatchString(l) {
			return fmt.Sprintf("%s:%d", cf.Path, i+1)
		}
	}
	return cf.where(table)
}

func tableKeys(table string) string {
	if table == "rules" {
		return "dir, program, format, name, skip"
	}
	return "match, replace"
}

func (cf *configFile) tomlError(err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d: %s", cf.Path, pe.Position.Line, pe.Message)
	}
	return fmt.Errorf("config %s: %w", cf.Path, err)
}

// where finds the line that sets key, for file:line errors.
func (cf *configFile) where(key string) string {
	re := regexp.MustCompile(`^\s*"?` + regexp.QuoteMeta(key) + `"?\s*=`)
	for i, l := range cf.lines {
		if re.MatchString(l) {
			return fmt.Sprintf("%s:%d", cf.Path, i+1)
		}
	}
	return cf.Path
}

// Validate rejects keys that are no flag and values of the wrong type,
// naming file and line.
func (cf *configFile) Validate(app *kong.Application) error {
	flags := map[string]*kong.Flag{}
	_ = kong.Visit(app, func(n kong.Visitable, next kong.Next) error {
		if f, ok := n.(*kong.Flag); ok {
			flags[f.Name] = f
		}
		return next(nil)
	})
	keys := make([]string, 0, len(cf.values))
	for k := range cf.values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		f, ok := flags[k]
		if !ok || configExcluded[k] {
			return fmt.Errorf("%s: unknown key %q (keys are long flag names, e.g. format, max-len, plus [[rules]], [[rewrites]] and [glyphs])", cf.where(k), k)
		}
		if err := checkType(f, cf.values[k]); err != nil {
			return fmt.Errorf("%s: %s: %w", cf.where(k), k, err)
		}
	}
	return nil
}

// configExcluded are flags that make no sense in a file.
var configExcluded = map[string]bool{
	"help": true, "version": true, "config": true,
	// per-invocation switches, not settings
	"when": true, "quiet": true, "json": true, "cmd": true, "no-preexec": true, "pause": true, "if-not-running": true, "notify": true,
}

var durationType = reflect.TypeOf(time.Duration(0))

func checkType(f *kong.Flag, v any) error {
	t := f.Target.Type()
	switch {
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
		if _, ok := v.(string); !ok {
			return fmt.Errorf("want a string, got %v", v)
		}
	}
	return nil
}

// Resolve hands kong the file's value for a flag; kong calls it only for
// flags not set on the command line or in the environment.
func (cf *configFile) Resolve(_ *kong.Context, _ *kong.Path, f *kong.Flag) (any, error) {
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
	if err := checkType(f, v); err != nil {
		// kong prefixes the flag name.
		return nil, fmt.Errorf("%s: %w", cf.where(f.Name), err)
	}
	if i, ok := v.(int64); ok {
		return fmt.Sprint(i), nil
	}
	return v, nil
}

var tableErr = regexp.MustCompile(`^(rewrite rule|rule) (\d+)\b`)

// locate prefixes an error about the n-th [[rules]] or [[rewrites]] table
// with file:line of that table's header.
func (cf *configFile) locate(err error) error {
	if cf == nil || cf.Path == "" {
		return err
	}
	m := tableErr.FindStringSubmatch(err.Error())
	if m == nil {
		return fmt.Errorf("%s: %w", cf.Path, err)
	}
	header := "[[rules]]"
	if m[1] == "rewrite rule" {
		header = "[[rewrites]]"
	}
	n, _ := strconv.Atoi(m[2])
	for i, l := range cf.lines {
		if strings.TrimSpace(l) == header {
			if n--; n == 0 {
				return fmt.Errorf("%s:%d: %w", cf.Path, i+1, err)
			}
		}
	}
	return fmt.Errorf("%s: %w", cf.Path, err)
}
