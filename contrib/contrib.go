// Package contrib holds the service definitions that keep the daemon
// running in the background: a systemd user unit (Linux) and a launchd
// agent (macOS). They are real files beside this one, so they can be read
// and checked with systemd-analyze or plutil, and are embedded here for
// `herdrtabrenamer init systemd` and `init launchd`, which fill in the
// binary's absolute path. The home-manager module in flake.nix renders the
// same settings from Nix.
package contrib

import (
	_ "embed"
	"encoding/xml"
	"fmt"
	"strings"
)

var (
	//go:embed herdrtabrenamer.service
	systemdTemplate string
	//go:embed herdrtabrenamer.plist
	launchdTemplate string
)

// Where the files are meant to be installed, for help texts and messages.
const (
	// SystemdUnitName is the file name under ~/.config/systemd/user.
	SystemdUnitName = "herdrtabrenamer.service"
	// LaunchdLabel is the agent's label; the file is
	// ~/Library/LaunchAgents/<LaunchdLabel>.plist.
	LaunchdLabel = "io.github.herdrtabrenamer"
)

// SystemdUnit returns the user unit with bin (the absolute path of the
// herdrtabrenamer binary) as ExecStart's command, quoted and escaped so any
// path survives systemd's word splitting and its % and $ expansions.
func SystemdUnit(bin string) string {
	return strings.ReplaceAll(systemdTemplate, "@BIN@", systemdQuote(bin))
}

// LaunchdPlist returns the agent with bin as the program and logs under
// home/Library/Logs. launchd expands neither ~ nor variables, so home must
// be the absolute home directory.
func LaunchdPlist(bin, home string) string {
	home = strings.TrimRight(home, "/")
	return strings.NewReplacer("@BIN@", xmlEscape(bin), "@HOME@", xmlEscape(home)).Replace(launchdTemplate)
}

// systemdQuote makes one ExecStart word of s. Plain paths stay as they are,
// so the unit reads naturally; anything else becomes a double-quoted word
// with C-style escapes (systemd.syntax(7)), and % is doubled because systemd
// expands specifiers even inside quotes. $ stays: systemd expands variables
// in arguments only, never in the command itself.
func systemdQuote(s string) string {
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

// xmlEscape escapes s for a plist <string>. encoding/xml also turns
// characters XML cannot carry into U+FFFD, so the plist always parses and a
// strange path shows up in launchd's error instead.
func xmlEscape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder never fails
	return b.String()
}
