package quote

import (
	"os/exec"
	"testing"
)

var words = []string{"", "plain", "/opt/a b/it's", `back\slash`, "new\nline", "$HOME `x` \"q\"", "tab\there", "%h %%", "ünïcode ✓"}

// Each quoted word must come back from the real shell unchanged.
func TestShellRoundTrip(t *testing.T) {
	for _, shell := range []string{"sh", "bash", "zsh", "fish"} {
		path, err := exec.LookPath(shell)
		if err != nil {
			t.Logf("%s not installed; its quoting is not run", shell)
			continue
		}
		for _, w := range words {
			out, err := exec.Command(path, "-c", "printf %s "+Shell(shell, w)).Output()
			if err != nil {
				t.Fatalf("%s: %s: %v", shell, Shell(shell, w), err)
			}
			if string(out) != w {
				t.Errorf("%s: %q came back as %q", shell, w, out)
			}
		}
	}
}

func TestSystemdAndTOML(t *testing.T) {
	tests := []struct{ in, systemd, toml string }{
		{"/usr/bin/x", "/usr/bin/x", `"/usr/bin/x"`},
		{"/opt/a b", `"/opt/a b"`, `"/opt/a b"`},
		{`/a"b\c`, `"/a\"b\\c"`, `"/a\"b\\c"`},
		{"/50%", `"/50%%"`, `"/50%"`},
		{"/x\x01", `"/x\x01"`, `"/x\u0001"`},
	}
	for _, tt := range tests {
		if got := Systemd(tt.in); got != tt.systemd {
			t.Errorf("Systemd(%q) = %s, want %s", tt.in, got, tt.systemd)
		}
		if got := TOML(tt.in); got != tt.toml {
			t.Errorf("TOML(%q) = %s, want %s", tt.in, got, tt.toml)
		}
	}
}
