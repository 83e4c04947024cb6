package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pretendExecutable makes init see bin as the running binary.
func pretendExecutable(t *testing.T, bin string) {
	t.Helper()
	old := executable
	t.Cleanup(func() { executable = old })
	executable = func() (string, error) { return bin, nil }
}

func TestInitCmd(t *testing.T) {
	const exe = "/usr/local/bin/herdrtabrenamer"
	pretendExecutable(t, exe)
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   []string // substrings
		unwanted []string
		stderr   string // substring of the one error line
	}{
		{name: "zsh default binary", args: []string{"init", "zsh"}, stdout: []string{"'" + exe + "'", "add-zsh-hook preexec"}},
		{name: "bash --cmd", args: []string{"init", "bash", "--cmd", "/opt/a b/it's"}, stdout: []string{`'/opt/a b/it'\''s'`, "PS0="}},
		{name: "fish --no-preexec", args: []string{"init", "fish", "--no-preexec", "--cmd", "/x/htr"}, stdout: []string{"'/x/htr'", "fish_postexec"}, unwanted: []string{"--on-event fish_preexec"}},
		{name: "bare --cmd kept", args: []string{"init", "zsh", "--cmd", "herdrtabrenamer"}, stdout: []string{"='herdrtabrenamer'"}},
		{name: "relative --cmd made absolute", args: []string{"init", "zsh", "--cmd", "./bin/htr"}, stdout: []string{"'" + filepath.Join(cwd, "bin/htr") + "'"}},
		{name: "unknown shell", args: []string{"init", "tcsh"}, code: 2, stderr: `unknown target "tcsh": want zsh, bash, fish, herdr-plugin, systemd or launchd`},
		{name: "systemd unit", args: []string{"init", "systemd", "--cmd", "/opt/htr"}, stdout: []string{"ExecStart=/opt/htr run --apply --if-not-running", "ExecReload=", "Restart=on-failure", "WantedBy=default.target"}},
		{name: "launchd agent", args: []string{"init", "launchd", "--cmd", "/opt/h&tr"}, stdout: []string{"<string>/opt/h&amp;tr</string>", "RunAtLoad"}},
		{name: "service needs an absolute path", args: []string{"init", "systemd", "--cmd", "htr"}, code: 2, stderr: "needs an absolute --cmd path"},
		{name: "service takes no dir", args: []string{"init", "launchd", "/tmp/x"}, code: 2, stderr: "takes no DIR"},
		{name: "dir with a shell", args: []string{"init", "zsh", "/tmp/x"}, code: 2, stderr: "DIR is for herdr-plugin only"},
		{name: "plugin without dir", args: []string{"init", "herdr-plugin"}, code: 2, stderr: "missing DIR"},
		{name: "plugin --no-preexec", args: []string{"init", "herdr-plugin", t.TempDir(), "--no-preexec"}, code: 2, stderr: "--no-preexec is for shell hooks only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Main(tt.args, &stdout, &stderr)
			if code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tt.code, stderr.String())
			}
			for _, want := range tt.stdout {
				if !strings.Contains(stdout.String(), want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
				}
			}
			for _, bad := range tt.unwanted {
				if strings.Contains(stdout.String(), bad) {
					t.Errorf("stdout has %q:\n%s", bad, stdout.String())
				}
			}
			if tt.code == 0 {
				if stderr.Len() != 0 {
					t.Errorf("stderr %q", stderr.String())
				}
				return
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout %q on error", stdout.String())
			}
			if lines := strings.Count(stderr.String(), "\n"); lines != 1 || !strings.Contains(stderr.String(), tt.stderr) {
				t.Errorf("stderr = %q, want one line with %q", stderr.String(), tt.stderr)
			}
		})
	}
}

// `go run . init zsh` would write a binary that is gone a moment later:
// say so, and how to get one that stays.
func TestInitWarnsAboutATemporaryGoRunBinary(t *testing.T) {
	const tmp = "/tmp/go-build1234/b001/exe/herdrtabrenamer"
	pretendExecutable(t, tmp)
	for _, args := range [][]string{{"init", "zsh"}, {"init", "fish"}, {"init", "systemd"}, {"init", "launchd"}} {
		var stdout, stderr bytes.Buffer
		if code := Main(args, &stdout, &stderr); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
		msg := stderr.String()
		if !strings.Contains(stdout.String(), tmp) || strings.Count(msg, "\n") != 1 ||
			!strings.Contains(msg, tmp) || !strings.Contains(msg, "go install") || !strings.Contains(msg, "--cmd") {
			t.Errorf("%v: stderr %q, want one warning line naming the binary, go install and --cmd", args, msg)
		}
	}
	var stderr bytes.Buffer
	if Main([]string{"init", "zsh", "--cmd", tmp}, &bytes.Buffer{}, &stderr); stderr.Len() != 0 {
		t.Errorf("a --cmd the user chose is not second-guessed: %q", stderr.String())
	}
}

func TestInitHerdrPlugin(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "plugin")
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"init", "herdr-plugin", dir, "--cmd", "/opt/htr/bin/herdrtabrenamer"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	path := filepath.Join(dir, "herdr-plugin.toml")
	if got, want := stdout.String(), "wrote "+path+"\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"/opt/htr/bin/herdrtabrenamer", "lock"`) {
		t.Errorf("manifest does not call the binary:\n%s", b)
	}
	// A second run overwrites: the path moves when the binary is upgraded.
	if code := Main([]string{"init", "herdr-plugin", dir, "--cmd", "/new/herdrtabrenamer"}, &stdout, &stderr); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, stderr.String())
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), `"/new/herdrtabrenamer"`) || strings.Contains(string(b), "/opt/htr") {
		t.Errorf("second run did not replace the manifest:\n%s", b)
	}
	// A file where the folder should be is a clear error.
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	if code := Main([]string{"init", "herdr-plugin", file}, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), "create "+file) {
		t.Errorf("dir is a file: exit %d, stderr %q", code, stderr.String())
	}
}

// The hooks tell `status` they are loaded: each snippet exports
// HERDRTABRENAMER_HOOKS=<shell>:<pid> in an interactive shell inside
// herdr, for the programs that shell starts; the pid tells a shell started
// from it, which inherits the variable but not the hooks.
func TestInitHooksExportTheirMarker(t *testing.T) {
	for _, shell := range []string{"zsh", "bash", "fish"} {
		t.Run(shell, func(t *testing.T) {
			path, err := exec.LookPath(shell)
			if err != nil {
				t.Skipf("%s not installed", shell)
			}
			var snippet bytes.Buffer
			if code := Main([]string{"init", shell, "--cmd", "/bin/true"}, &snippet, &bytes.Buffer{}); code != 0 {
				t.Fatalf("init %s: exit %d", shell, code)
			}
			file := filepath.Join(t.TempDir(), "hook")
			if err := os.WriteFile(file, snippet.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			script := "source " + file + "; printenv HERDRTABRENAMER_HOOKS"
			// An empty rc file: zsh would otherwise start its new-user menu.
			home := t.TempDir()
			if err := os.WriteFile(filepath.Join(home, ".zshrc"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(path, "-i", "-c", script)
			cmd.Env = append(os.Environ(), "HERDR_PANE_ID=w1:p1", "HERDRTABRENAMER_HOOKS=", "HOME="+home, "ZDOTDIR="+home)
			var out bytes.Buffer
			cmd.Stdout = &out
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s: %v", shell, err)
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			want := fmt.Sprintf("%s:%d", shell, cmd.Process.Pid)
			if got := strings.TrimSpace(lines[len(lines)-1]); got != want {
				t.Fatalf("a child of %s sees HERDRTABRENAMER_HOOKS=%q, want %q", shell, got, want)
			}
		})
	}
}
