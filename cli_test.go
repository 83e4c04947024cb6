package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"weak"
)

func parseFor(t *testing.T, args ...string) (*CLI, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	cli, ctx, _, err := parse(args, &out, &errb, func(int) {})
	if err != nil {
		return nil, "", err
	}
	return cli, ctx.Command(), nil
}

func TestLegacySingleDashFlags(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	tests := []struct {
		args    []string
		command string
		check   func(*CLI) bool
	}{
		{[]string{"-once"}, "once", nil},
		{[]string{"-apply", "-once", "-format", "{proc|agent}:{dir}"}, "once",
			func(c *CLI) bool { return c.Once.Apply && c.Once.Format == "{proc|agent}:{dir}" }},
		{[]string{"-apply", "-format={dir}"}, "run",
			func(c *CLI) bool { return c.Run.Apply && c.Run.Format == "{dir}" }},
		{[]string{"-poll", "5s", "-max-len", "10"}, "run",
			func(c *CLI) bool { return c.Run.Poll == 5*time.Second && c.Run.MaxLen == 10 }},
		{[]string{"--once"}, "once", nil},
		// The original accepted the daemon's flags with -once.
		{[]string{"-once", "-poll", "3s", "-debounce=1s", "-apply"}, "once", func(c *CLI) bool { return c.Once.Apply }},
		{[]string{"once", "--apply"}, "once", func(c *CLI) bool { return c.Once.Apply }},
		// After --, nothing is rewritten.
		{[]string{"nudge", "--", "w1:p3"}, "nudge <PANE_ID>", func(c *CLI) bool { return c.Nudge.PaneID == "w1:p3" }},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			cli, cmd, err := parseFor(t, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			if cmd != tt.command {
				t.Fatalf("command = %q, want %q", cmd, tt.command)
			}
			if tt.check != nil && !tt.check(cli) {
				t.Fatalf("flags not applied: %+v", cli.Run)
			}
		})
	}
}

func TestFlagEnvFilePrecedence(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	cfg := filepath.Join(dir, "herdrtabrenamer", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(s string) {
		if err := os.WriteFile(cfg, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("format = \"{dir}\"\nmax-len = 12\npoll = \"7s\"\napply = true\n\n[[rules]]\ndir = \"~/src/*\"\nname = \"src\"\n")

	cli, _, err := parseFor(t, "run")
	if err != nil {
		t.Fatal(err)
	}
	if cli.Run.Format != "{dir}" || cli.Run.MaxLen != 12 || cli.Run.Poll != 7*time.Second || !cli.Run.Apply {
		t.Fatalf("file values not applied: %+v", cli.Run)
	}
	// Defaults fill what the file leaves out.
	if cli.Run.Debounce != 400*time.Millisecond {
		t.Fatalf("debounce = %v, want the 400ms default", cli.Run.Debounce)
	}
	// env beats file.
	t.Setenv("HERDRTABRENAMER_FORMAT", "{proc}")
	t.Setenv("HERDRTABRENAMER_MAX_LEN", "30")
	cli, _, err = parseFor(t, "run")
	if err != nil {
		t.Fatal(err)
	}
	if cli.Run.Format != "{proc}" || cli.Run.MaxLen != 30 {
		t.Fatalf("env did not beat the file: %+v", cli.Run)
	}
	// flags beat env.
	cli, _, err = parseFor(t, "run", "--format", "{agent}", "--max-len=5")
	if err != nil {
		t.Fatal(err)
	}
	if cli.Run.Format != "{agent}" || cli.Run.MaxLen != 5 {
		t.Fatalf("flags did not beat env: %+v", cli.Run)
	}
}

func TestConfigFileErrorsNameFileAndLine(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"unknown key", "format = \"{dir}\"\nfromat = \"x\"\n", "config.toml:2: unknown key \"fromat\""},
		{"wrong type", "\nmax-len = \"ten\"\n", "config.toml:2: max-len: want a whole number"},
		{"newline in string", "format = \"{dir}\nmax-len = 3\n", "config.toml:1: "},
		{"duplicate", "format = \"{dir}\"\n\nformat = \"{proc}\"\n", "config.toml:3: \"format\" is set twice (first on line 1)"},
		{"bad enum", "log-level = \"loud\"\n", "config.toml:1: log-level: want one of debug, info, warn, error"},
		{"single brackets", "[rules]\ndir = \"/a\"\n", "config.toml:1: unknown table [rules]"},
		{"bad second rewrite", "[[rewrites]]\nmatch = \"a\"\nreplace = \"b\"\n\n[[rewrites]]\nmatch = \"\"\n", "config.toml:5: rewrite rule 2: empty match"},
		{"bad glob", "format = \"{dir}\"\n\n[[rules]]\ndir = \"/a\"\nname = \"a\"\n\n[[rules]]\ndir = \"~/[a\"\nname = \"b\"\n", "config.toml:7: rule 2 (dir \"~/[a\")"},
		{"bad regex", "[[rewrites]]\nmatch = \"(\"\nreplace = \"x\"\n", "config.toml:1: rewrite rule 1: bad match"},
		{"bad duration", "poll = \"soon\"\n", "config.toml:1: poll: want a duration"},
		{"syntax", "format = \n", "config.toml:1:"},
		{"unknown rule key", "[[rules]]\ndir = \"/x\"\nnmae = \"y\"\n", "config.toml:3: unknown key \"nmae\" in [[rules]]"},
		{"glyph not a string", "vim = 1\n[glyphs]\nnvim = \"N\"\nvim = 3\n", "config.toml:4: glyphs: vim: want a string"},
		{"glyph too wide", "[glyphs]\n\"my-tool\" = \"TOOLONG\"\n", "config.toml:2: glyphs: my-tool: \"TOOLONG\" is 7 columns wide, more than 4"},
		{"glyph bad key", "[glyphs]\n\"bin/x\" = \"x\"\n", "config.toml:2: glyphs: \"bin/x\" is no program name"},
		{"glyph control", "[glyphs]\nvim = \"\\u001b[31m\"\n", "config.toml:2: glyphs: vim: \"\\x1b[31m\" has control characters"},
		{"glyphs not a table", "glyphs = \"x\"\n", "config.toml:1: glyphs: want a table"},
		{"bool key wrong type", "hide-default-branch = \"yes\"\n", "config.toml:1: hide-default-branch: want true or false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "config.toml")
			if err := os.WriteFile(path, []byte(tt.body), 0o644); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			code := Main([]string{"--config", path, "once"}, &out, &errb)
			if code != 2 {
				t.Fatalf("exit %d, want 2; stderr %q", code, errb.String())
			}
			msg := strings.TrimSpace(errb.String())
			if strings.Count(msg, "\n") != 0 {
				t.Fatalf("error is not one line: %q", msg)
			}
			if !strings.Contains(msg, tt.want) {
				t.Fatalf("error %q does not contain %q", msg, tt.want)
			}
		})
	}
}

// A broken config file stops only the commands that read it; the others
// work and say once on stderr that the file is broken.
func TestBrokenConfigBreaksOnlyItsCommands(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(broken, []byte("format = \"{dir}\nmax-len = 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HERDR_SOCKET_PATH", filepath.Join(dir, "no-herdr.sock"))
	for _, cfg := range []string{broken, filepath.Join(dir, "missing.toml")} {
		tests := []struct {
			args   []string
			code   int
			stdout string
		}{
			{[]string{"--help"}, 0, "Usage: herdrtabrenamer"},
			{[]string{"once", "--help"}, 0, "Usage: herdrtabrenamer once"},
			{[]string{"version"}, 0, "herdrtabrenamer "},
			{[]string{"--version"}, 0, "herdrtabrenamer "},
			{[]string{"init", "zsh", "--cmd", "/usr/bin/herdrtabrenamer"}, 0, "add-zsh-hook"},
			{[]string{"completion", "bash"}, 0, "complete -F"},
			{[]string{"demo"}, 0, "herdrtabrenamer demo"},
			{[]string{"help", "run"}, 0, "Usage: herdrtabrenamer run"},
			{[]string{"once"}, 2, ""},
			{[]string{"explain"}, 2, ""},
			{[]string{"lock", "w1:t1"}, 2, ""},
			{[]string{"nudge", "w1:p1"}, 2, ""},
			{[]string{"nudge", "--quiet", "w1:p1"}, 0, ""},
		}
		for _, tt := range tests {
			name := filepath.Base(cfg) + " " + strings.Join(tt.args, " ")
			t.Run(name, func(t *testing.T) {
				var out, errb bytes.Buffer
				code := Main(append([]string{"--config", cfg}, tt.args...), &out, &errb)
				if code != tt.code {
					t.Fatalf("exit %d, want %d; stderr %q", code, tt.code, errb.String())
				}
				if !strings.Contains(out.String(), tt.stdout) {
					t.Fatalf("stdout lacks %q:\n%s", tt.stdout, out.String())
				}
				msg := errb.String()
				if tt.args[0] == "nudge" && tt.code == 0 {
					if msg != "" {
						t.Fatalf("the hooks' nudge printed %q", msg)
					}
					return
				}
				if n := strings.Count(msg, filepath.Base(cfg)); n != 1 {
					t.Fatalf("stderr names the config file %d times, want once:\n%s", n, msg)
				}
				if strings.Count(msg, "\n") != 1 {
					t.Fatalf("stderr is not one line:\n%s", msg)
				}
				if tt.code == 0 && !strings.Contains(msg, "warning:") {
					t.Fatalf("no warning about the broken config: %q", msg)
				}
			})
		}
	}
}

func TestHelpFitsOneScreen(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Main([]string{"--help"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if n := strings.Count(out.String(), "\n"); n > 50 {
		t.Fatalf("--help is %d lines, more than one screen:\n%s", n, out.String())
	}
}

func TestBareCommandAndHelpCommandPrintHelp(t *testing.T) {
	var bare, bareErr bytes.Buffer
	if code := Main(nil, &bare, &bareErr); code != 0 || bareErr.Len() != 0 {
		t.Fatalf("bare: exit %d, stderr %q", code, bareErr.String())
	}
	var flag bytes.Buffer
	Main([]string{"--help"}, &flag, &bytes.Buffer{})
	if bare.String() != flag.String() || !strings.Contains(bare.String(), "Commands:") {
		t.Fatalf("bare output is not the help:\n%s", bare.String())
	}
	for _, cmd := range []string{"once", "init", "status", "doctor"} {
		var viaHelp, viaFlag bytes.Buffer
		if code := Main([]string{"help", cmd}, &viaHelp, &bytes.Buffer{}); code != 0 {
			t.Fatalf("help %s: exit %d", cmd, code)
		}
		Main([]string{cmd, "--help"}, &viaFlag, &bytes.Buffer{})
		if viaHelp.String() != viaFlag.String() {
			t.Fatalf("help %s differs from %s --help:\n%s\n---\n%s", cmd, cmd, viaHelp.String(), viaFlag.String())
		}
	}
	var errb bytes.Buffer
	if code := Main([]string{"help", "nosuch"}, &bytes.Buffer{}, &errb); code != 2 || !strings.Contains(errb.String(), "--help") {
		t.Fatalf("help nosuch: exit %d, stderr %q", code, errb.String())
	}
}

// Errors are the program's own words, one line, with where to look next.
func TestUsageErrorsSayWhatToDo(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"once", "--format"}, "--format needs a value"},
		{[]string{"run", "--poll"}, "--poll needs a value"},
		{[]string{"frobnicate"}, "see herdrtabrenamer --help"},
		{[]string{"once", "--nosuch"}, "see herdrtabrenamer once --help"},
		{[]string{"init", "tcsh"}, "want zsh, bash, fish, herdr-plugin, systemd or launchd"},
		{[]string{"init"}, "init: missing TARGET: want zsh, bash, fish"},
		{[]string{"completion"}, "completion: missing SHELL: want zsh, bash, fish"},
		{[]string{"nudge"}, "nudge: no PANE_ID given"},
		{[]string{"once", "--max-len", "abc"}, `--max-len: want a whole number, got "abc"`},
		{[]string{"run", "--poll", "soon"}, `--poll: want a duration like 3s or 400ms, got "soon"`},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var errb bytes.Buffer
			if code := Main(tt.args, &bytes.Buffer{}, &errb); code != 2 {
				t.Fatalf("exit %d, want 2 (%s)", code, errb.String())
			}
			msg := errb.String()
			if !strings.Contains(msg, tt.want) || strings.Count(msg, "\n") != 1 {
				t.Fatalf("stderr %q, want one line with %q", msg, tt.want)
			}
			for _, leak := range []string{"EOL", "expected a valid", "expected duration", `expected "<`, "64 bit", "time: invalid"} {
				if strings.Contains(msg, leak) {
					t.Fatalf("library wording %q leaks: %q", leak, msg)
				}
			}
		})
	}
}

// A command's help lists its own flags; the global ones are named once at
// the end. A default is shown once, by kong, not again in the help text.
func TestCommandHelpShowsGlobalsAndDefaultsOnce(t *testing.T) {
	parser, _, _, err := newParser(nil, &bytes.Buffer{}, &bytes.Buffer{}, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range parser.Model.Children {
		var out bytes.Buffer
		if code := Main([]string{n.Name, "--help"}, &out, &bytes.Buffer{}); code != 0 {
			t.Fatalf("%s --help: exit %d", n.Name, code)
		}
		help := out.String()
		for _, g := range []string{"--socket=", "--config=", "--log-format=", "--log-level="} {
			if strings.Contains(help, g) {
				t.Errorf("%s --help repeats the global flag %s", n.Name, g)
			}
		}
		if !strings.Contains(help, "Global flags: --socket") {
			t.Errorf("%s --help does not name the global flags", n.Name)
		}
		for _, f := range n.Flags {
			if f.HasDefault && strings.Contains(f.Help, "default") {
				t.Errorf("%s --%s: default %q shown by kong and again in its help %q", n.Name, f.Name, f.Default, f.Help)
			}
		}
	}
}

func TestNudgeWithoutDaemonSaysWhatToDo(t *testing.T) {
	t.Setenv("HERDR_SOCKET_PATH", filepath.Join(t.TempDir(), "herdr.sock"))
	var errb bytes.Buffer
	if code := Main([]string{"nudge", "w1:p1"}, &bytes.Buffer{}, &errb); code != 3 || !strings.Contains(errb.String(), "herdrtabrenamer run --apply") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}

func TestOnceWithoutHerdrSaysWhatToDo(t *testing.T) {
	t.Setenv("HERDR_SOCKET_PATH", filepath.Join(t.TempDir(), "herdr.sock"))
	for _, cmd := range []string{"once", "explain"} {
		var errb bytes.Buffer
		if code := Main([]string{cmd}, &bytes.Buffer{}, &errb); code != 1 {
			t.Fatalf("%s: exit %d, stderr %q", cmd, code, errb.String())
		}
		if msg := errb.String(); !strings.Contains(msg, "start herdr") || !strings.Contains(msg, "--socket") || strings.Count(msg, "\n") != 1 {
			t.Fatalf("%s: stderr %q does not say what to do in one line", cmd, msg)
		}
	}
}

// The daemon runs for days: what it runs keeps nothing of kong's (the
// grammar of every command, some 200 KB of heap), while other commands
// run through kong.
func TestDaemonRunKeepsNoGrammar(t *testing.T) {
	parser, cli, _, err := newParser([]string{"run"}, io.Discard, io.Discard, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := parseArgs(parser, []string{"run"})
	if err != nil {
		t.Fatal(err)
	}
	grammar := weak.Make(parser)
	run, ok := daemonRun(ctx, cli)
	if !ok {
		t.Fatal("run is not the daemon's run")
	}
	parser, ctx = nil, nil
	runtime.GC()
	if grammar.Value() != nil {
		t.Fatal("kong's grammar is kept while the daemon runs")
	}
	runtime.KeepAlive(run)

	parser, cli, _, _ = newParser([]string{"version"}, io.Discard, io.Discard, func(int) {})
	if ctx, err = parseArgs(parser, []string{"version"}); err != nil {
		t.Fatal(err)
	}
	if _, ok := daemonRun(ctx, cli); ok {
		t.Fatal("version runs as the daemon")
	}
}
