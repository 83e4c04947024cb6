package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
)

func writeConfig(t testing.TB, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// The values TOML can spell in several ways reach the flags as written.
func TestConfigValueSpellings(t *testing.T) {
	tests := []struct {
		body  string
		check func(*CLI) bool
	}{
		{"max-len = 1_6\n", func(c *CLI) bool { return c.Once.MaxLen == 16 }},
		{"max-len = 0x10\n", func(c *CLI) bool { return c.Once.MaxLen == 16 }},
		{"max-len = +7\n", func(c *CLI) bool { return c.Once.MaxLen == 7 }},
		{"format = '{dir}'\n", func(c *CLI) bool { return c.Once.Format == "{dir}" }},
		{"format = \"\"\"\n{proc}\"\"\"\n", func(c *CLI) bool { return c.Once.Format == "{proc}" }},
		{"\"format\" = \"{agent}\" # comment\n", func(c *CLI) bool { return c.Once.Format == "{agent}" }},
		{"apply = true\n", func(c *CLI) bool { return c.Once.Apply }},
		// Lists: an empty one is set (it ignores nothing), an unset one
		// is nil (the built-in list).
		{"ignore = []\n", func(c *CLI) bool {
			return c.Once.Ignore != nil && len(c.Once.Ignore) == 0 && c.Once.ExtendIgnore == nil
		}},
		{"extend-ignore = [\n  'make', # slow\n  \"git push*\",\n]\n", func(c *CLI) bool {
			return c.Once.Ignore == nil && strings.Join(c.Once.ExtendIgnore, "|") == "make|git push*"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			cli, _, cf, err := parse([]string{"--config", writeConfig(t, tt.body), "once"}, &bytes.Buffer{}, &bytes.Buffer{}, func(int) {})
			if err != nil || cf.broken != nil {
				t.Fatalf("parse: %v, config: %v", err, cf.broken)
			}
			if !tt.check(cli) {
				t.Fatalf("value not applied: %+v", cli.Once)
			}
		})
	}
}

// Shapes the file has no use for are errors on their own line.
func TestConfigShapesRejected(t *testing.T) {
	tests := []struct{ body, want string }{
		{"a.b = 1\n", `:1: unknown key "a.b"`},
		{"format = [\"x\"]\n", ":1: format: want a string, number or true/false, not a list"},
		{"format = {a = 1}\n", ":1: format: want a string, number or true/false, not a list or table"},
		{"\n\nformat = 1979-05-27\n", ":3: format: want a string, number or true/false, not a date"},
		{"[[rules]]\ndir = \"/a\"\nskip = \"yes\"\n", ":3: skip: want true or false"},
		{"[[rules]]\ndir = 1\n", ":2: dir: want a string, got 1"},
		{"[[other]]\n", ":1: unknown table [[other]]"},
		{"max-len = 99999999999999999999\n", ":1: "},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			_, _, cf, _ := parse([]string{"--config", writeConfig(t, tt.body), "version"}, &bytes.Buffer{}, &bytes.Buffer{}, func(int) {})
			err := cf.broken
			var ce *ConfigError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %v, want a one-line ConfigError with %q", err, tt.want)
			}
		})
	}
}

// An error about a rule points at that rule's own table header, found
// from the typed error's index, not from its text.
func TestConfigRuleErrorsPointAtTheirTable(t *testing.T) {
	cf, err := loadConfigFile(writeConfig(t, "[[rules]]\ndir = \"/a\"\nskip = true\n\n# two\n[[rules]]\ndir = \"/b\"\nskip = true\n"), true)
	if err != nil {
		t.Fatal(err)
	}
	err = cf.atTable(&namer.RuleError{Index: 2, Err: errors.New("made up")})
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Line != 6 {
		t.Fatalf("err = %v, want line 6 (the second [[rules]])", err)
	}
	if err := cf.atTable(&namer.RuleError{Index: 3, Err: errors.New("x")}); !errors.As(err, &ce) || ce.Line != 0 {
		t.Fatalf("a rule index past the file: %v", err)
	}
}

// Every command but the hooks' nudge reads the whole file: this is that
// cost for a typical one.
func BenchmarkLoadConfigFile(b *testing.B) {
	path := writeConfig(b, "format = \"{icon} {proc|dir}\"\nmax-len = 20\nsocket = \"/run/herdr.sock\"\n\n[[rules]]\ndir = \"~/projects/*\"\nformat = \"{proc|match}\"\n\n[[rules]]\ndir = \"/tmp/**\"\nskip = true\n\n[[rewrites]]\nmatch = '^python3?$'\nreplace = \"python\"\n")
	b.ReportAllocs()
	for b.Loop() {
		cf, err := loadConfigFile(path, true)
		if err != nil || cf.values["socket"].v != "/run/herdr.sock" {
			b.Fatal(err)
		}
	}
}

// manyGlyphs is a config file with n [glyphs] keys after a socket key.
func manyGlyphs(n int) string {
	var b strings.Builder
	b.WriteString("socket = \"/run/herdr.sock\"\n\n[glyphs]\n")
	for i := range n {
		fmt.Fprintf(&b, "prog%d = \"x\"\n", i)
	}
	return b.String()
}

// BenchmarkLoadConfigFile10000Keys: parsing is linear in the file; each
// key's line must not cost a scan from the top.
func BenchmarkLoadConfigFile10000Keys(b *testing.B) {
	path := writeConfig(b, manyGlyphs(10000))
	b.ReportAllocs()
	for b.Loop() {
		cf, err := loadConfigFile(path, true)
		if err != nil || len(cf.Glyphs) != 10000 {
			b.Fatal(err)
		}
	}
}
