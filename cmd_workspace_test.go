package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A bad --workspace-format is a one-line usage error that says where it
// came from: the config file's line, or the flag that replaced it.
func TestWorkspaceFormatErrors(t *testing.T) {
	tests := []struct {
		name, body string
		args       []string
		want, not  string
	}{
		{"config key", "format = \"{dir}\"\nworkspace-format = \"{index} {bogus}\"\n", nil,
			"config.toml:2: workspace-format: template \"{index} {bogus}\" column 10: unknown token \"bogus\"", ""},
		{"flag", "", []string{"--workspace-format", "{index"},
			"workspace-format: template \"{index\" column 1: unclosed brace", "config.toml"},
		{"flag over a good key", "workspace-format = \"{dir}\"\n", []string{"--workspace-format", "{x}"},
			"workspace-format: template \"{x}\" column 2: unknown token \"x\"", "config.toml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.toml")
			if err := os.WriteFile(path, []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			code := Main(append([]string{"--config", path, "once"}, tt.args...), &out, &errb)
			msg := strings.TrimSpace(errb.String())
			if code != 2 || strings.Contains(msg, "\n") {
				t.Fatalf("exit %d, want 2 and one line; stderr %q", code, msg)
			}
			if !strings.Contains(msg, tt.want) || (tt.not != "" && strings.Contains(msg, tt.not)) {
				t.Fatalf("error %q: want %q in it and not %q", msg, tt.want, tt.not)
			}
		})
	}
}
