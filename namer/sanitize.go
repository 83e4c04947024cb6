package namer

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// Ellipsis marks a name cut by Truncate.
const Ellipsis = "…"

// Sanitize makes untrusted text (titles, command lines, paths) safe for a
// one-row tab label: it drops ANSI escape sequences (CSI, OSC, DCS, SOS, PM,
// APC in their 7-bit and C1 forms, and two- or three-byte ESC sequences),
// C0 and C1 control characters, bidi embedding/override/isolate marks,
// invisible format characters (isInvisible) and invalid UTF-8, turns every whitespace run into one space and trims both
// ends.
func Sanitize(s string) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false // a space is pending; written only before a visible rune
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			i++ // invalid byte
			continue
		}
		switch {
		case r == 0x1b:
			i = skipEscape(s, i+size)
			continue
		case r == 0x9b: // C1 CSI
			i = skipCSI(s, i+size)
			continue
		case r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f: // C1 OSC DCS SOS PM APC
			i = skipString(s, i+size)
			continue
		case unicode.IsSpace(r):
			space = b.Len() > 0
		case r < 0x20 || (r >= 0x7f && r <= 0x9f) || isBidi(r) || isInvisible(r):
			// dropped
		default:
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// isClean reports whether s needs no change: valid UTF-8 without controls,
// escapes, bidi marks or whitespace other than single inner ASCII spaces.
// It is the common case and costs no copy.
func isClean(s string) bool {
	if len(s) == 0 {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	prev := byte(0)
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f || (c == ' ' && prev == ' ') {
				return false
			}
			prev = c
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || r <= 0x9f || isBidi(r) || isInvisible(r) || unicode.IsSpace(r) {
			return false
		}
		prev = 0
		i += size
	}
	return true
}

func isBidi(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) ||
		r == 0x200e || r == 0x200f || r == 0x061c
}

// isInvisible reports format characters that show nothing but make two
// labels that look the same differ (ZWSP, BOM, soft hyphen, word joiner and
// the invisible operators, Mongolian vowel separator, interlinear
// annotation marks). ZWJ and ZWNJ stay: emoji sequences and scripts such
// as Persian need them.
func isInvisible(r rune) bool {
	return r == 0x00ad || r == 0x200b || (r >= 0x2060 && r <= 0x2064) ||
		r == 0xfeff || r == 0x180e || (r >= 0xfff9 && r <= 0xfffb)
}

// skipEscape returns the index just past the escape sequence whose ESC ends
// at i.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return skipCSI(s, i+1)
	case ']', 'P', 'X', '^', '_':
		return skipString(s, i+1)
	}
	// nF sequences: intermediates 0x20-0x2f, then one final byte.
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipCSI skips parameter and intermediate bytes and the final byte. A
// malformed sequence ends at the first byte that cannot belong to it.
func skipCSI(s string, i int) int {
	for i < len(s) {
		c := s[i]
		switch {
		case c >= 0x20 && c <= 0x3f:
			i++
		case c >= 0x40 && c <= 0x7e:
			return i + 1
		default:
			return i
		}
	}
	return i
}

// skipString skips a control string (OSC, DCS, ...) up to and including its
// terminator: BEL, ESC \ or C1 ST. An unterminated string runs to the end:
// showing half an escape is worse than losing the tail.
func skipString(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == 0x1b:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i + 1
		case strings.HasPrefix(s[i:], "\u009c"):
			return i + len("\u009c")
		}
		i++
	}
	return i
}

// Width is the display width of s in terminal columns.
func Width(s string) int {
	if isASCIIPrintable(s) {
		return len(s)
	}
	return uniseg.StringWidth(s)
}

func isASCIIPrintable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// Truncate cuts s to at most cols display columns, never inside a grapheme
// cluster, and ends a cut name with Ellipsis (its column counts). Spaces
// before the ellipsis are dropped. cols <= 0 means no limit.
func Truncate(s string, cols int) string {
	// Display width never exceeds the byte length (wide clusters take at
	// least 3 bytes), which spares the grapheme walk for short names.
	if cols <= 0 || len(s) <= cols || Width(s) <= cols {
		return s
	}
	ell := uniseg.StringWidth(Ellipsis)
	if cols < ell {
		return ""
	}
	budget := cols - ell
	used, end := 0, 0
	rest, state := s, -1
	for rest != "" {
		var cluster string
		var w int
		cluster, rest, w, state = uniseg.FirstGraphemeClusterInString(rest, state)
		if used+w > budget {
			break
		}
		used += w
		end += len(cluster)
	}
	return strings.TrimRight(s[:end], " ") + Ellipsis
}
