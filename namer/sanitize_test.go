package namer

import "testing"

func TestSanitize(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"clean", "vim main.go", "vim main.go"},
		{"empty", "", ""},
		{"trim and collapse", "  a \t\n b  ", "a b"},
		{"unicode spaces", "a\u00a0\u2003b\u2028c\u0085d", "a b c d"},
		{"C0 controls", "a\x00b\x07c\x7fd", "abcd"},
		{"C1 controls", "a\u0080b\u0094c", "abc"},
		{"CSI colour", "\x1b[1;31mred\x1b[0m", "red"},
		{"CSI with intermediates", "a\x1b[?25hb\x1b[2 qc", "abc"},
		{"C1 CSI", "a\u009b31mb", "ab"},
		{"OSC BEL", "\x1b]0;title\x07vim", "vim"},
		{"OSC ST", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"OSC C1 ST", "\x1b]2;t\u009cvim", "vim"},
		{"C1 OSC", "\u009d0;t\x07vim", "vim"},
		{"unterminated OSC eats the rest", "vim\x1b]0;never ends", "vim"},
		{"DCS", "a\x1bPq#0;2;0;0;0\x1b\\b", "ab"},
		{"APC PM SOS", "a\x1b_x\x1b\\b\x1b^y\x1b\\c\x1bXz\x1b\\d", "abcd"},
		{"charset designation", "a\x1b(Bb", "ab"},
		{"two-byte escape", "a\x1bcb\x1b7c", "abc"},
		{"lone ESC at end", "abc\x1b", "abc"},
		{"truncated CSI", "abc\x1b[12", "abc"},
		{"bidi overrides", "a\u202eb\u2066c\u2069d\u200ee\u200ff\u061cg\u202ah", "abcdefgh"},
		{"invalid UTF-8", "a\xffb\xc3", "ab"},
		{"keeps emoji ZWJ", "👩\u200d💻 x", "👩\u200d💻 x"},
		{"keeps CJK", "日本 語", "日本 語"},
		{"only junk", "\x1b[0m \u202e\t", ""},
		{"space then escape then space", "a \x1b[0m b", "a b"},
		{"invisible format characters", "a\u200bb\ufeffc\u00add\u2060e\u2063f\u180eg\ufff9h", "abcdefgh"},
		{"keeps ZWNJ", "می\u200cخواهم", "می\u200cخواهم"},
		{"only invisible", "\u200b\ufeff", ""},
	}
	for _, tt := range tests {
		if got := Sanitize(tt.in); got != tt.want {
			t.Errorf("%s: Sanitize(%q) = %q, want %q", tt.name, tt.in, got, tt.want)
		}
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		in   string
		cols int
		want string
	}{
		{"abcdef", 0, "abcdef"},
		{"abcdef", -3, "abcdef"},
		{"abcdef", 6, "abcdef"},
		{"abcdef", 5, "abcd…"},
		{"abcdef", 1, "…"},
		{"abc def", 5, "abc…"}, // no space before the ellipsis
		{"日本語です", 10, "日本語です"}, // 2 columns each
		{"日本語です", 9, "日本語で…"},  // 4*2 + 1 = 9
		{"日本語です", 8, "日本語…"},   // a fourth would need 9
		{"日本語です", 2, "…"},
		{"a🟡b", 3, "a…"},                                      // the emoji is 2 wide
		{"👩\u200d💻👩\u200d💻", 3, "👩\u200d💻…"},                  // never splits a ZWJ sequence
		{"🇫🇷🇩🇪", 3, "🇫🇷…"},                                    // nor a flag
		{"e\u0301e\u0301e\u0301", 2, "e\u0301…"},              // combining marks stay with their base
		{"e\u0301e\u0301e\u0301", 3, "e\u0301e\u0301e\u0301"}, // fits: width 3
	}
	for _, tt := range tests {
		got := Truncate(tt.in, tt.cols)
		if got != tt.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", tt.in, tt.cols, got, tt.want)
		}
		if tt.cols > 0 && Width(got) > tt.cols {
			t.Errorf("Truncate(%q, %d) = %q is %d wide", tt.in, tt.cols, got, Width(got))
		}
	}
}
