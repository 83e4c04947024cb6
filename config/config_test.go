package config

import (
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

// An error about a rule points at that rule's own table header, found
// from the typed error's index, not from its text.
func TestConfigRuleErrorsPointAtTheirTable(t *testing.T) {
	cf, err := Load(writeConfig(t, "[[rules]]\ndir = \"/a\"\nskip = true\n\n# two\n[[rules]]\ndir = \"/b\"\nskip = true\n"), true)
	if err != nil {
		t.Fatal(err)
	}
	err = cf.AtTable(&namer.RuleError{Index: 2, Err: errors.New("made up")})
	var ce *Error
	if !errors.As(err, &ce) || ce.Line != 6 {
		t.Fatalf("err = %v, want line 6 (the second [[rules]])", err)
	}
	if err := cf.AtTable(&namer.RuleError{Index: 3, Err: errors.New("x")}); !errors.As(err, &ce) || ce.Line != 0 {
		t.Fatalf("a rule index past the file: %v", err)
	}
}

// Every command but the hooks' nudge reads the whole file: this is that
// cost for a typical one.
func BenchmarkLoadConfigFile(b *testing.B) {
	path := writeConfig(b, "format = \"{icon} {proc|dir}\"\nmax-len = 20\nsocket = \"/run/herdr.sock\"\n\n[[rules]]\ndir = \"~/projects/*\"\nformat = \"{proc|match}\"\n\n[[rules]]\ndir = \"/tmp/**\"\nskip = true\n\n[[rewrites]]\nmatch = '^python3?$'\nreplace = \"python\"\n")
	b.ReportAllocs()
	for b.Loop() {
		cf, err := Load(path, true)
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
		cf, err := Load(path, true)
		if err != nil || len(cf.Glyphs) != 10000 {
			b.Fatal(err)
		}
	}
}
