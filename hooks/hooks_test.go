package hooks

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

// Paths a user may really have; each must survive quoting in every shell.
var oddPaths = []string{
	"/usr/bin/herdrtabrenamer",
	"/home/a b/bin/herdrtabrenamer",
	"/tmp/it's/herdrtabrenamer",
	`/tmp/back\slash/$HOME/"q"/herdrtabrenamer`,
	"/tmp/ünï/`x`/*/herdrtabrenamer",
}

// TestSnippetQuoting: the shell itself reads the path back unchanged.
func TestSnippetQuoting(t *testing.T) {
	for _, shell := range Shells {
		t.Run(shell, func(t *testing.T) {
			needShell(t, shell)
			for _, bin := range oddPaths {
				text, err := Snippet(shell, bin, true)
				if err != nil {
					t.Fatal(err)
				}
				// Take the assignment line and print the variable back.
				line := regexp.MustCompile(`(?m)^.*__herdrtabrenamer_bin '.*$|^.*__herdrtabrenamer_bin=.*$`).FindString(text)
				if line == "" {
					t.Fatalf("no assignment of __herdrtabrenamer_bin in:\n%s", text)
				}
				script := line + "\nprintf '%s' \"$__herdrtabrenamer_bin\""
				out, err := exec.Command(shell, "-c", script).CombinedOutput()
				if err != nil {
					t.Fatalf("%s -c %q: %v\n%s", shell, script, err, out)
				}
				if string(out) != bin {
					t.Errorf("%s reads %q back as %q", shell, bin, out)
				}
			}
		})
	}
}

// TestSnippetSyntax: every variant parses in its own shell, and the bash
// one is shellcheck-clean.
func TestSnippetSyntax(t *testing.T) {
	check := map[string][]string{
		"zsh":  {"zsh", "-n", "-c"},
		"bash": {"bash", "-n", "-c"},
		"fish": {"fish", "--no-execute", "-c"},
	}
	for _, shell := range Shells {
		for _, preexec := range []bool{true, false} {
			text, err := Snippet(shell, "/opt/x/herdrtabrenamer", preexec)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(text, placeholder) {
				t.Errorf("%s snippet still holds %s", shell, placeholder)
			}
			hook := map[string]string{"zsh": "add-zsh-hook preexec", "bash": "PS0=", "fish": "--on-event fish_preexec"}[shell]
			if got := strings.Contains(text, hook); got != preexec {
				t.Errorf("%s preexec=%v: snippet has %q: %v", shell, preexec, hook, got)
			}
			if strings.Contains(text, preexecBegin) || strings.Contains(text, preexecEnd) {
				t.Errorf("%s snippet keeps its preexec markers", shell)
			}
			argv := check[shell]
			if _, err := exec.LookPath(argv[0]); err != nil {
				t.Logf("%s not installed: syntax not checked", shell)
				continue
			}
			if out, err := exec.Command(argv[0], append(argv[1:], text)...).CombinedOutput(); err != nil {
				t.Errorf("%s preexec=%v does not parse: %v\n%s", shell, preexec, err, out)
			}
		}
	}
	text, err := Snippet("bash", "/opt/x/herdrtabrenamer", false)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text, "PS0=") || strings.Contains(text, "preexec_functions+=") {
		t.Errorf("bash --no-preexec snippet still hooks preexec:\n%s", text)
	}
}

func TestShellcheck(t *testing.T) {
	if _, err := exec.LookPath("shellcheck"); err != nil {
		t.Skip("shellcheck is not installed (apt-get install -y shellcheck); skipping")
	}
	for _, preexec := range []bool{true, false} {
		text, err := Snippet("bash", "/opt/x/herdrtabrenamer", preexec)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("shellcheck", "--shell=bash", "-")
		cmd.Stdin = strings.NewReader(text)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("shellcheck, preexec=%v: %v\n%s", preexec, err, out)
		}
	}
	// The file as shipped, placeholder and all.
	if out, err := exec.Command("shellcheck", "herdrtabrenamer.bash").CombinedOutput(); err != nil {
		t.Errorf("shellcheck herdrtabrenamer.bash: %v\n%s", err, out)
	}
}

func TestSnippetErrors(t *testing.T) {
	tests := []struct {
		shell, bin, want string
	}{
		{"tcsh", "/bin/x", `unknown shell "tcsh"`},
		{"", "/bin/x", `unknown shell ""`},
		{"zsh", "", "empty binary path"},
	}
	for _, tt := range tests {
		_, err := Snippet(tt.shell, tt.bin, true)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Snippet(%q, %q) error = %v, want %q", tt.shell, tt.bin, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Errorf("error is not one line: %q", err)
		}
	}
}

func TestPreexecBlocks(t *testing.T) {
	tests := []struct {
		in   string
		keep bool
		want string
		err  string
	}{
		{"a\n# >>> preexec\nb\n# <<< preexec\nc\n", false, "a\nc\n", ""},
		{"a\n# >>> preexec\nb\n# <<< preexec\nc\n", true, "a\nb\nc\n", ""},
		{"a\n  # >>> preexec\nb\n  # <<< preexec\n", false, "a\n", ""},
		{"a\n", false, "a\n", ""},
		{"# >>> preexec\nb\n", true, "", "unterminated"},
		{"# <<< preexec\n", false, "", "line 1"},
		{"# >>> preexec\n# >>> preexec\n", false, "", "line 2: nested"},
	}
	for _, tt := range tests {
		got, err := preexecBlocks(tt.in, tt.keep)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("preexecBlocks(%q) error = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("preexecBlocks(%q, %v) = %q, %v; want %q", tt.in, tt.keep, got, err, tt.want)
		}
	}
}

// manifest mirrors herdr-plugin.toml (PROTOCOL.md §10) for the checks.
type manifest struct {
	ID              string    `toml:"id"`
	Name            string    `toml:"name"`
	Version         string    `toml:"version"`
	MinHerdrVersion string    `toml:"min_herdr_version"`
	Description     string    `toml:"description"`
	Platforms       *[]string `toml:"platforms"`
	Startup         []struct {
		Command   []string  `toml:"command"`
		Platforms *[]string `toml:"platforms"`
	} `toml:"startup"`
	Actions []struct {
		ID          string    `toml:"id"`
		Title       string    `toml:"title"`
		Description string    `toml:"description"`
		Contexts    []string  `toml:"contexts"`
		Platforms   *[]string `toml:"platforms"`
		Command     []string  `toml:"command"`
	} `toml:"actions"`
}

var (
	pluginIDRE = regexp.MustCompile(`^[A-Za-z0-9:._-]{1,120}$`)
	actionIDRE = regexp.MustCompile(`^[A-Za-z0-9:_-]{1,120}$`)
	semverRE   = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`)
)

// TestPluginManifest checks the field rules of PROTOCOL.md §10.
func TestPluginManifest(t *testing.T) {
	for _, bin := range append(oddPaths, "/tmp/ctl\x01\x7f/herdrtabrenamer") {
		text, err := PluginManifest(bin)
		if err != nil {
			t.Fatal(err)
		}
		var m manifest
		md, err := toml.Decode(text, &m)
		if err != nil {
			t.Fatalf("bin %q: manifest does not parse: %v\n%s", bin, err, text)
		}
		if un := md.Undecoded(); len(un) > 0 {
			t.Errorf("keys not in the manifest format: %v", un)
		}
		checkPlatforms := func(where string, p *[]string) {
			if p == nil {
				return
			}
			if len(*p) == 0 {
				t.Errorf("%s: platforms = [] is an error in herdr", where)
			}
			for _, x := range *p {
				if !slices.Contains([]string{"linux", "macos", "windows"}, x) {
					t.Errorf("%s: unknown platform %q", where, x)
				}
			}
		}
		checkCommand := func(where string, argv []string, wantBin bool) {
			if len(argv) == 0 {
				t.Errorf("%s: empty command", where)
			}
			for i, a := range argv {
				if a == "" {
					t.Errorf("%s: command[%d] is empty", where, i)
				}
			}
			if wantBin && !slices.Contains(argv, bin) {
				t.Errorf("%s: command %q does not run %q", where, argv, bin)
			}
		}
		if !pluginIDRE.MatchString(m.ID) {
			t.Errorf("plugin id %q", m.ID)
		}
		if m.Name == "" || m.Version == "" {
			t.Errorf("name %q / version %q must be set", m.Name, m.Version)
		}
		if !semverRE.MatchString(m.MinHerdrVersion) {
			t.Errorf("min_herdr_version %q is not semver", m.MinHerdrVersion)
		}
		if m.Platforms == nil {
			t.Errorf("no top-level platforms: herdr warns")
		}
		checkPlatforms("top level", m.Platforms)
		if len(m.Startup) != 1 {
			t.Fatalf("%d [[startup]] hooks, want 1", len(m.Startup))
		}
		st := m.Startup[0]
		checkCommand("startup", st.Command, true)
		checkPlatforms("startup", st.Platforms)
		joined := strings.Join(st.Command, " ")
		for _, want := range []string{"run", "--apply", "--if-not-running", "setsid", "</dev/null", ">/dev/null 2>&1 &"} {
			if !strings.Contains(joined, want) {
				t.Errorf("startup command %q lacks %q", st.Command, want)
			}
		}
		seen := map[string]bool{}
		for _, a := range m.Actions {
			where := "action " + a.ID
			if !actionIDRE.MatchString(a.ID) {
				t.Errorf("%s: bad id", where)
			}
			if seen[a.ID] {
				t.Errorf("%s: duplicate id", where)
			}
			seen[a.ID] = true
			if a.Title == "" {
				t.Errorf("%s: no title", where)
			}
			for _, c := range a.Contexts {
				if !slices.Contains([]string{"global", "workspace", "tab", "pane", "selection"}, c) {
					t.Errorf("%s: unknown context %q", where, c)
				}
			}
			checkPlatforms(where, a.Platforms)
			checkCommand(where, a.Command, true)
		}
		var cmds [][]string
		for _, a := range m.Actions {
			cmds = append(cmds, a.Command[1:])
		}
		for _, want := range [][]string{{"once", "--apply"}, {"lock"}, {"release"}} {
			if !slices.ContainsFunc(cmds, func(c []string) bool { return slices.Equal(c, want) }) {
				t.Errorf("no action runs %q (have %q)", want, cmds)
			}
		}
	}
	if _, err := PluginManifest("/tmp/\xff/herdrtabrenamer"); err == nil || !strings.Contains(err.Error(), "UTF-8") {
		t.Errorf("non-UTF-8 path: error = %v, want one about UTF-8", err)
	}
	if _, err := PluginManifest(""); err == nil {
		t.Error("empty path: no error")
	}
}

// TestPluginStartupDetaches runs the startup command the way herdr does
// (argv, no shell, stdout and stderr on pipes) with a stand-in daemon that
// outlives it: the command must return at once and its pipes must close,
// or it would hold one of herdr's 32 plugin command slots forever.
func TestPluginStartupDetaches(t *testing.T) {
	dir := t.TempDir()
	daemon := dir + "/fake daemon"
	// The stand-in records its arguments and session, then lingers.
	script := "#!/bin/sh\necho \"$* sid=$(ps -o sid= -p $$ | tr -d ' ') pid=$$\" >\"$(dirname \"$0\")/started\"\nexec sleep 30\n"
	writeExec(t, daemon, script)
	text, err := PluginManifest(daemon)
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if _, err := toml.Decode(text, &m); err != nil {
		t.Fatal(err)
	}
	argv := m.Startup[0].Command
	cmd := exec.Command(argv[0], argv[1:]...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// Run returns only when the process exited AND both pipes hit EOF,
	// exactly herdr's condition for freeing the slot.
	done := make(chan error, 1)
	go func() { done <- cmd.Run() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("startup command: %v (stderr %q)", err, stderr.String())
		}
	case <-time.After(waitTimeout):
		t.Fatalf("startup command still holds its pipes after %v", waitTimeout)
	}
	if stdout.Len()+stderr.Len() != 0 {
		t.Errorf("startup command wrote %q / %q", stdout.String(), stderr.String())
	}
	line := waitFile(t, dir+"/started")
	if !strings.HasPrefix(line, "run --apply --if-not-running ") {
		t.Errorf("daemon started as %q", line)
	}
	var sid, pid int
	if _, err := fmt.Sscanf(line[strings.Index(line, "sid="):], "sid=%d pid=%d", &sid, &pid); err != nil {
		t.Fatalf("parse %q: %v", line, err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if _, err := exec.LookPath("setsid"); err == nil && sid != pid {
		t.Errorf("daemon pid %d is in session %d, want its own session", pid, sid)
	}
}

func writeExec(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
}

// waitFile polls until path holds a complete line and returns it.
func waitFile(t *testing.T, path string) string {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for {
		b, err := os.ReadFile(path)
		if err == nil && strings.HasSuffix(string(b), "\n") {
			return strings.TrimSpace(string(b))
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not written within %v (last error %v)", path, waitTimeout, err)
		}
		time.Sleep(pollEvery)
	}
}
