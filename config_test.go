package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/config"
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
			if err != nil || cf.Broken != nil {
				t.Fatalf("parse: %v, config: %v", err, cf.Broken)
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
		{"sidebar-tokens = [\n  \"task\",\n  \"proc\",\n]\n", `:3: sidebar-tokens: entry 2: unknown token "proc"`},
		{"sidebar-tokens = [\"task\", \"task\"]\n", `:1: sidebar-tokens: entry 2: token "task" is listed twice`},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			_, _, cf, _ := parse([]string{"--config", writeConfig(t, tt.body), "version"}, &bytes.Buffer{}, &bytes.Buffer{}, func(int) {})
			err := cf.Broken
			var ce *config.Error
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %v, want a one-line config.Error with %q", err, tt.want)
			}
		})
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
