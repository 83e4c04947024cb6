package hooks

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/pluginmanifest"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
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

// TestPluginManifest checks the init manifest against herdr's rules
// (docs/herdr.md §10) for paths a user may really have.
func TestPluginManifest(t *testing.T) {
	for _, bin := range append(oddPaths, "/tmp/ctl\x01\x7f/herdrtabrenamer") {
		text, err := PluginManifest(bin)
		if err != nil {
			t.Fatal(err)
		}
		m, err := pluginmanifest.Parse(text)
		if err != nil {
			t.Fatalf("bin %q: %v\n%s", bin, err, text)
		}
		if len(m.Build) != 0 {
			t.Errorf("init manifest has [[build]] %+v: the binary is already built", m.Build)
		}
		checkCommands(t, m, bin)
	}
	if _, err := PluginManifest("/tmp/\xff/herdrtabrenamer"); err == nil || !strings.Contains(err.Error(), "UTF-8") {
		t.Errorf("non-UTF-8 path: error = %v, want one about UTF-8", err)
	}
	if _, err := PluginManifest(""); err == nil {
		t.Error("empty path: no error")
	}
}

// checkCommands: every command runs bin, and each job the plugin promises
// has its command.
func checkCommands(t *testing.T, m *pluginmanifest.Manifest, bin string) {
	t.Helper()
	for where, argv := range m.Commands() {
		if !slices.Contains(argv, bin) {
			t.Errorf("%s: command %q does not run %q", where, argv, bin)
		}
	}
	if len(m.Startup) != 1 {
		t.Fatalf("%d [[startup]] hooks, want 1", len(m.Startup))
	}
	joined := strings.Join(m.Startup[0].Command, " ")
	for _, want := range []string{"run", "--apply", "--if-not-running", "setsid", "</dev/null", ">/dev/null 2>&1 &"} {
		if !strings.Contains(joined, want) {
			t.Errorf("startup command %q lacks %q", m.Startup[0].Command, want)
		}
	}
	var cmds [][]string
	for _, a := range m.Actions {
		cmds = append(cmds, a.Command[1:])
	}
	for _, want := range [][]string{{"once", "--apply"}, {"lock"}, {"release"}, {"restore", "--apply"}, {"explain", "--notify"}} {
		if !slices.ContainsFunc(cmds, func(c []string) bool { return slices.Equal(c, want) }) {
			t.Errorf("no action runs %q (have %q)", want, cmds)
		}
	}
	// The hook must take nudge's fast path: PANE_ID comes from
	// $HERDR_PANE_ID, which herdr sets to the event's pane; --when agent
	// tells the daemon a hook brings statuses.
	if len(m.Events) != 1 || m.Events[0].On != "pane.agent_status_changed" ||
		!slices.Equal(m.Events[0].Command[1:], []string{"nudge", "--quiet", "--when", "agent"}) {
		t.Errorf("events = %+v, want one pane.agent_status_changed hook running nudge --quiet --when agent", m.Events)
	}
}

var update = flag.Bool("update", false, "rewrite ../herdr-plugin.toml from the template")

// TestRepoManifest: the manifest `herdr plugin install` reads is the
// template's render, builds into bin/ and runs that binary everywhere.
func TestRepoManifest(t *testing.T) {
	text, err := repoPluginManifest()
	if err != nil {
		t.Fatal(err)
	}
	const path = "../herdr-plugin.toml"
	if *update {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != text {
		t.Fatalf("%s differs from hooks/herdr-plugin.toml.tmpl's render: run go test ./hooks -run TestRepoManifest -update", path)
	}
	m, err := pluginmanifest.Parse(text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	// herdr runs the build without a shell: sh runs the script, which the
	// repository must hold (integration/install_test.go runs it).
	want := []string{"sh", "release/plugin-build.sh"}
	if len(m.Build) != 1 || !slices.Equal(m.Build[0].Command, want) {
		t.Errorf("build = %+v, want one command %q", m.Build, want)
	}
	if _, err := os.Stat("../" + want[1]); err != nil {
		t.Errorf("the build script: %v", err)
	}
	checkCommands(t, m, RepoBinary)
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
	m, err := pluginmanifest.Parse(text)
	if err != nil {
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
	var b []byte
	var err error
	testutil.WaitFor(t, path+" to hold a line", func() bool {
		b, err = os.ReadFile(path)
		return err == nil && strings.HasSuffix(string(b), "\n")
	}, func() string { return fmt.Sprintf("last read: %q, %v", b, err) })
	return strings.TrimSpace(string(b))
}
