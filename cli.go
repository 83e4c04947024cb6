package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"strings"

	"github.com/alecthomas/kong"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// CLI is the whole kong grammar. Each command lives in its own cmd_*.go.
type CLI struct {
	Globals

	Version kong.VersionFlag `help:"Print the version and exit." env:"-"`

	Run        RunCmd        `cmd:"" help:"Run the daemon: rename tabs as sessions change (dry run unless --apply)."`
	Once       OnceCmd       `cmd:"" help:"Run one pass and exit (dry run unless --apply)."`
	Nudge      NudgeCmd      `cmd:"" help:"Ask the running daemon to look at one pane now (used by shell hooks)."`
	Explain    ExplainCmd    `cmd:"" help:"Show why each tab has or would get its name."`
	Lock       LockCmd       `cmd:"" help:"Keep a tab's current name: the daemon will not change it."`
	Release    ReleaseCmd    `cmd:"" help:"Name a tab automatically again, even after a person renamed it."`
	Restore    RestoreCmd    `cmd:"" help:"Undo: give every tab we named herdr's number back, stop the daemon (dry run unless --apply)."`
	Init       InitCmd       `cmd:"" help:"Print a shell hook (zsh, bash, fish) or a service unit (systemd, launchd); write the herdr plugin."`
	Demo       DemoCmd       `cmd:"" help:"Watch it work on a built-in herdr simulator (no herdr needed)."`
	Ver        VerCmd        `cmd:"" name:"version" help:"Print the version."`
	Completion CompletionCmd `cmd:"" help:"Print a shell completion script: zsh, bash or fish."`
}

// Globals are the flags every command shares.
type Globals struct {
	Socket    string `help:"herdr API socket (default: $HERDR_SOCKET_PATH, $HERDR_SESSION, then herdr's config dir)." placeholder:"PATH"`
	Config    string `help:"Config file (default: $XDG_CONFIG_HOME/herdrtabrenamer/config.toml)." placeholder:"PATH" type:"path"`
	LogFormat string `help:"Log format: text or json." enum:"text,json" default:"text"`
	LogLevel  string `help:"Log level: debug, info, warn or error." enum:"debug,info,warn,error" default:"info"`
}

// logger builds the slog logger the flags ask for, on stderr.
func (g *Globals) logger(w io.Writer) *slog.Logger {
	var lvl slog.Level
	_ = lvl.UnmarshalText([]byte(g.LogLevel))
	opts := &slog.HandlerOptions{Level: lvl}
	if g.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// exitError carries a process exit status with its message.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// withExit wraps err so Main exits with code.
func withExit(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code: code, err: err}
}

// runEnv is what commands get from Main: where to write, the config file,
// and a way to parse the command line again (SIGHUP reload).
type runEnv struct {
	stdout io.Writer
	stderr io.Writer
	config *configFile
	// reparse re-reads the config file and parses the same arguments.
	reparse func() (*CLI, *configFile, error)
}

// parse builds the kong parser with the config file as a resolver and
// parses args (after the legacy single-dash rewrite).
func parse(args []string, stdout, stderr io.Writer, exit func(int)) (*CLI, *kong.Context, *configFile, error) {
	cfgPath, named := configPathFromArgs(args)
	cf, err := loadConfigFile(cfgPath, named)
	if err != nil {
		return nil, nil, nil, err
	}
	var cli CLI
	parser, err := kong.New(&cli,
		kong.Name("herdrtabrenamer"),
		kong.Description("Names herdr tabs after what runs inside them."),
		kong.Vars{"version": version},
		kong.Writers(stdout, stderr),
		kong.Exit(exit),
		kong.DefaultEnvars("HERDRTABRENAMER"),
		kong.Resolvers(cf),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
	)
	if err != nil {
		return nil, nil, nil, err
	}
	ctx, err := parser.Parse(legacyArgs(args, parser.Model))
	if err != nil {
		return nil, nil, nil, err
	}
	return &cli, ctx, cf, nil
}

// configPathFromArgs finds --config before kong runs: the file must be read
// to build the parser. HERDRTABRENAMER_CONFIG works too.
func configPathFromArgs(args []string) (string, bool) {
	for i, a := range args {
		if a == "--" {
			break
		}
		for _, p := range []string{"--config", "-config"} {
			if a == p && i+1 < len(args) {
				return args[i+1], true
			}
			if v, ok := strings.CutPrefix(a, p+"="); ok {
				return v, true
			}
		}
	}
	if v := os.Getenv("HERDRTABRENAMER_CONFIG"); v != "" {
		return v, true
	}
	return defaultConfigPath(), false
}

var legacyFlag = regexp.MustCompile(`^-([a-z][a-z0-9-]+)(=.*)?$`)

// legacyArgs accepts the original tool's Go-flag spelling, which kong cannot
// parse: `-once` becomes the once command, `-apply` becomes `--apply`, and
// flags without a command run the daemon, as the original did.
func legacyArgs(args []string, app *kong.Application) []string {
	long := map[string]bool{}
	commands := map[string]bool{}
	_ = kong.Visit(app, func(n kong.Visitable, next kong.Next) error {
		switch n := n.(type) {
		case *kong.Flag:
			long[n.Name] = true
		case *kong.Node:
			if n.Type == kong.CommandNode {
				commands[n.Name] = true
			}
		}
		return next(nil)
	})
	out := make([]string, 0, len(args)+1)
	once, legacy, hasCommand, help := false, false, false, false
	for i, a := range args {
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		if m := legacyFlag.FindStringSubmatch(a); m != nil && len(m[1]) > 1 {
			switch {
			case m[1] == "once":
				once, legacy = true, true
				continue
			case long[m[1]]:
				a, legacy = "-"+a, true
			}
		}
		if a == "--once" {
			once = true
			continue
		}
		if commands[a] {
			hasCommand = true
		}
		if a == "--help" || a == "-h" || a == "--version" {
			help = true
		}
		out = append(out, a)
	}
	switch {
	case once:
		return append([]string{"once"}, dropDaemonFlags(out)...)
	case legacy && !hasCommand && !help:
		return append([]string{"run"}, out...)
	}
	return out
}

// daemonOnly are the daemon's flags that the original tool also accepted
// with -once, where they mean nothing.
var daemonOnly = map[string]bool{"--poll": true, "--debounce": true}

// dropDaemonFlags removes daemonOnly flags (and their values) so that
// `-once -poll 3s` runs once instead of failing.
func dropDaemonFlags(args []string) []string {
	out := args[:0:0]
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		name, _, hasValue := strings.Cut(a, "=")
		if daemonOnly[name] {
			if !hasValue {
				i++ // the value that follows
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// Main parses args, runs the chosen command and returns the exit status.
func Main(args []string, stdout, stderr io.Writer) (code int) {
	exited := -1
	exit := func(c int) { exited = c; panic(kongExit{}) }
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(kongExit); ok {
				code = exited
				return
			}
			panic(r)
		}
	}()
	cli, ctx, cf, err := parse(args, stdout, stderr, exit)
	if err != nil {
		fmt.Fprintf(stderr, "herdrtabrenamer: %v\n", err)
		return 2
	}
	env := &runEnv{stdout: stdout, stderr: stderr, config: cf,
		reparse: func() (*CLI, *configFile, error) {
			c, _, f, err := parse(args, io.Discard, io.Discard, func(int) {})
			return c, f, err
		}}
	if err := ctx.Run(&cli.Globals, env); err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			if ee.err != nil && ee.err.Error() != "" {
				fmt.Fprintf(stderr, "herdrtabrenamer: %v\n", ee.err)
			}
			return ee.code
		}
		fmt.Fprintf(stderr, "herdrtabrenamer: %v\n", err)
		return 1
	}
	return 0
}

// kongExit unwinds kong's help/version exits back into Main.
type kongExit struct{}

// VerCmd prints the version.
type VerCmd struct{}

// Run prints the version.
func (VerCmd) Run(env *runEnv) error {
	_, err := fmt.Fprintln(env.stdout, "herdrtabrenamer", version)
	return err
}
