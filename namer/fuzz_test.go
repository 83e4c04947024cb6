package namer

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseTemplate: parsing never panics; an error always names a column
// inside (or just past) the template; a parsed template renders hostile
// values without panicking and keeps them sanitised. `go test` runs only the
// seeds (here and in testdata/fuzz); `go test -fuzz FuzzParseTemplate
// ./namer/` explores.
func FuzzParseTemplate(f *testing.F) {
	for _, s := range append(cloneStrings(templates), "{proc|}", "{", "}", "{{", "}}", "{a{b}}", "{token.x|dir}",
		"{|}", "é{dir", "{proc|dir", "{{{proc}}}", "\x00{dir}\xff", "{token.}", "{session|task}") {
		f.Add(s)
	}
	vals := map[string]string{"proc": "p\x1b[0m", "dir": "d\u202e", "agent": "", "token.x": "\tx\n", "session": "s\x1b]0;t\x07\n2"}
	f.Fuzz(func(t *testing.T, s string) {
		tmpl, err := ParseTemplate(s)
		if err != nil {
			var te *TemplateError
			if !errors.As(err, &te) {
				t.Fatalf("error %v is not a *TemplateError", err)
			}
			if te.Column < 1 || te.Column > utf8.RuneCountInString(s)+1 || te.Template != s || te.Reason == "" {
				t.Fatalf("bad error %+v for %q", te, s)
			}
			if strings.ContainsAny(te.Error(), "\n") && !strings.Contains(s, "\n") {
				t.Fatalf("error is not one line: %q", te.Error())
			}
			return
		}
		if tmpl.String() != s {
			t.Fatalf("String() = %q, want %q", tmpl.String(), s)
		}
		out := tmpl.renderVals(vals)
		for _, bad := range []string{"\x1b", "\u202e", "\t", "\n"} {
			if strings.Contains(out, bad) && !strings.Contains(s, bad) {
				t.Fatalf("Render(%q) = %q lets %q through from a value", s, out, bad)
			}
		}
		_ = tmpl.tokens()
	})
}

func cloneStrings(s []string) []string { return append([]string(nil), s...) }

// FuzzSanitize: the output is always clean, idempotent and no longer than
// the input.
func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", "a  b", "\x1b]0;x\x07y", "\x1b[", "\u009b", "\u202e", "\xff\xfe", "👩\u200d💻"} {
		f.Add(s, 5)
	}
	f.Fuzz(func(t *testing.T, s string, cols int) {
		out := Sanitize(s)
		if len(out) > len(s) || Sanitize(out) != out || !utf8.ValidString(out) {
			t.Fatalf("Sanitize(%q) = %q", s, out)
		}
		for _, r := range out {
			if r < 0x20 || (r >= 0x7f && r <= 0x9f) || strings.ContainsRune(bidiMarks, r) {
				t.Fatalf("Sanitize(%q) = %q keeps %U", s, out, r)
			}
		}
		cols %= 64
		if cut := Truncate(out, cols); cols > 0 && Width(cut) > cols {
			t.Fatalf("Truncate(%q, %d) = %q is %d wide", out, cols, cut, Width(cut))
		}
	})
}
