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
	"strings"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/quote"
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
	return strings.ReplaceAll(systemdTemplate, "@BIN@", quote.Systemd(bin))
}

// LaunchdPlist returns the agent with bin as the program and logs under
// home/Library/Logs. launchd expands neither ~ nor variables, so home must
// be the absolute home directory.
func LaunchdPlist(bin, home string) string {
	home = strings.TrimRight(home, "/")
	return strings.NewReplacer("@BIN@", xmlEscape(bin), "@HOME@", xmlEscape(home)).Replace(launchdTemplate)
}

// xmlEscape escapes s for a plist <string>. encoding/xml also turns
// characters XML cannot carry into U+FFFD, so the plist always parses and a
// strange path shows up in launchd's error instead.
func xmlEscape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s)) // a strings.Builder never fails
	return b.String()
}
