package glyphs

import (
	"strings"
	"testing"
	"unicode"

	"github.com/rivo/uniseg"
)

func TestBuiltinTable(t *testing.T) {
	if n := len(builtin); n < 100 {
		t.Fatalf("built-in table has %d programs, want at least 100", n)
	}
	for _, sh := range []string{"bash", "zsh", "fish", "sh", "dash", "ksh", "tcsh", "nu", "elvish", "xonsh", "login"} {
		if g, ok := builtin[sh]; ok {
			t.Errorf("shell %s has glyph %q; shells get none", sh, g)
		}
	}
	// Every agent label herdr detects (pi ... maki) has a glyph.
	for _, a := range strings.Fields("pi claude codex gemini cursor devin agy cline omp mastracode opencode copilot kimi kiro droid amp grok hermes kilo qodercli maki") {
		if builtin[a] != agent {
			t.Errorf("agent %s has glyph %q, want the agent glyph", a, builtin[a])
		}
	}
	for name, g := range builtin {
		if err := CheckKey(name); err != nil {
			t.Errorf("built-in key: %v", err)
		}
		if err := CheckValue(name, g); err != nil || g == "" {
			t.Errorf("built-in %s = %q: %v", name, g, err)
		}
		// Every built-in glyph is one Nerd Font code point from a private
		// use area.
		r := []rune(g)
		if len(r) != 1 || !unicode.Is(unicode.Co, r[0]) {
			t.Errorf("built-in %s = %q (%U): want one private-use code point", name, g, r)
		}
	}
}

func TestLookup(t *testing.T) {
	tab, err := New(map[string]string{"nvim": "N", "mytool": "🔧", "btop": ""})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ program, want string }{
		{"vim", vim},
		{"nvim", "N"},          // overridden
		{"mytool", "🔧"},        // added
		{"btop", ""},           // removed
		{"htop", monitor},      // untouched
		{"python3.12", python}, // versioned: the stem
		{"node18", nodejs},
		{"Docker", docker}, // case
		{"zsh", ""},        // shells have none
		{"unknown-program", ""},
		{"", ""},
		{"claude", agent},
		{"ssh", remote},
	}
	for _, tt := range tests {
		if got := tab.Lookup(tt.program); got != tt.want {
			t.Errorf("Lookup(%q) = %q, want %q", tt.program, got, tt.want)
		}
	}
	if (*Table)(nil).Lookup("vim") != "" {
		t.Error("a nil table has glyphs")
	}
}

func TestNewRejects(t *testing.T) {
	tests := []struct {
		overrides map[string]string
		want      string
	}{
		{map[string]string{"": "x"}, "glyphs: empty program name"},
		{map[string]string{"my tool": "x"}, `glyphs: "my tool" is no program name`},
		{map[string]string{"bin/x": "x"}, `glyphs: "bin/x" is no program name`},
		{map[string]string{"vim": "a\x1b[31m"}, `glyphs: vim: "a\x1b[31m" has control characters`},
		{map[string]string{"vim": "abcdefgh"}, `glyphs: vim: "abcdefgh" is 8 columns wide, more than 4`},
	}
	for _, tt := range tests {
		_, err := New(tt.overrides)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("New(%q) = %v, want %s...", tt.overrides, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("error is not one line: %q", err)
		}
	}
	if _, err := New(map[string]string{"vim": strings.Repeat("x", 4)}); err != nil || uniseg.StringWidth("xxxx") != MaxWidth {
		t.Errorf("a %d-column glyph is refused: %v", MaxWidth, err)
	}
}
