// Package quote turns any string into one word of the languages our
// generated files are written in: POSIX shells (sh, bash, zsh), fish,
// systemd unit command lines and TOML. The hooks, the completion scripts,
// the service units and the status command's fix lines all quote through
// it, so a path with a space or a quote is handled the same everywhere.
package quote

import (
	"fmt"
	"strings"
)

// POSIX single-quotes s for sh, bash and zsh: inside single quotes nothing
// is special except the quote itself, which is closed, escaped and reopened.
func POSIX(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// fishEscaper escapes what fish treats specially inside single quotes.
var fishEscaper = strings.NewReplacer(`\`, `\\`, `'`, `\'`)

// Fish single-quotes s for fish, where \ and ' are escapes inside single
// quotes.
func Fish(s string) string {
	return "'" + fishEscaper.Replace(s) + "'"
}

// Shell quotes s for the named shell: fish, or a POSIX shell otherwise.
func Shell(shell, s string) string {
	if shell == "fish" {
		return Fish(s)
	}
	return POSIX(s)
}

// Systemd makes one ExecStart word of s. Plain paths stay as they are, so
// the unit reads naturally; anything else becomes a double-quoted word
// with C-style escapes (systemd.syntax(7)), and % is doubled because
// systemd expands specifiers even inside quotes. $ stays: systemd expands
// variables in arguments only, never in the command itself.
func Systemd(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+@,=", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '%':
			b.WriteString("%%")
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TOML makes a TOML basic string. TOML has no \x escape and forbids raw
// control characters, so those become \uXXXX.
func TOML(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
