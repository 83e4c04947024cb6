package pluginmanifest

import (
	"strings"
	"testing"
)

const good = `id = "x.y"
name = "X"
version = "1.0.0"
min_herdr_version = "0.8.0"
platforms = ["linux", "macos"]
[[build]]
command = ["go", "build", "-o", "bin/x", "."]
[[startup]]
command = ["bin/x", "run"]
[[actions]]
id = "a-1"
title = "A"
contexts = ["tab", "pane"]
command = ["bin/x", "a"]
[[events]]
on = "pane.agent_status_changed"
command = ["bin/x", "nudge"]
[[panes]]
id = "p"
title = "P"
placement = "popup"
width = "80%"
command = ["bin/x", "p"]
[[link_handlers]]
id = "l"
title = "L"
pattern = "^https://"
action = "a-1"
`

// TestParse: the rules of herdr's loader, one broken line at a time.
func TestParse(t *testing.T) {
	tests := []struct {
		name, from, to, err string
	}{
		{"valid", "", "", ""},
		{"bad id", `id = "x.y"`, `id = "x y"`, `id "x y"`},
		{"no version", `version = "1.0.0"`, `version = " "`, "version"},
		{"min version not semver", `"0.8.0"`, `"0.8"`, "min_herdr_version"},
		{"no platforms", `platforms = ["linux", "macos"]`, ``, "no top-level platforms"},
		{"empty platforms", `platforms = ["linux", "macos"]`, `platforms = []`, "platforms = []"},
		{"unknown platform", `"macos"]`, `"darwin"]`, `unknown platform "darwin"`},
		{"empty argv", `command = ["bin/x", "run"]`, `command = []`, "startup[0]: command"},
		{"empty arg", `command = ["bin/x", "run"]`, `command = ["bin/x", ""]`, "startup[0]: command"},
		{"dotted action id", `id = "a-1"`, `id = "a.1"`, "bad or duplicate id"},
		{"unknown context", `"tab", "pane"`, `"tab", "window"`, `unknown context "window"`},
		{"unhookable event", `on = "pane.agent_status_changed"`, `on = "pane.updated"`, "no hookable event"},
		{"unknown key", `name = "X"`, "name = \"X\"\nicon = \"x\"", "unknown key icon"},
		{"size without popup", `placement = "popup"`, `placement = "split"`, "width and height are for"},
		{"link to no action", `action = "a-1"`, `action = "b"`, "link handler l"},
		{"not toml", `name = "X"`, `name = `, "herdr-plugin.toml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := good
			if tt.from != "" {
				if !strings.Contains(text, tt.from) {
					t.Fatalf("fixture lacks %q", tt.from)
				}
				text = strings.Replace(text, tt.from, tt.to, 1)
			}
			m, err := Parse(text)
			if tt.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(m.Commands()) != 4 {
					t.Errorf("Commands() = %v, want startup, action, event and pane", m.Commands())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("error %v, want one with %q", err, tt.err)
			}
		})
	}
}
