package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/herdrtabrenamer/herdrtabrenamer/config"
	"github.com/herdrtabrenamer/herdrtabrenamer/daemon"
	"github.com/herdrtabrenamer/herdrtabrenamer/setup"
)

// version is set at build time with -ldflags "-X main.version=..."; when
// it is not, the build info Go records says which version this is.
var version = "dev"

// CLI is the whole kong grammar. Each command lives in its own cmd_*.go.
type CLI struct {
	Globals

	Version kong.VersionFlag `help:"Print the version and exit." env:"-"`

	Run        RunCmd        `cmd:"" help:"Run the daemon: rename tabs as sessions change (dry run unless --apply)."`
	Once       OnceCmd       `cmd:"" help:"Run one pass and exit (dry run unless --apply)."`
	Nudge      NudgeCmd      `cmd:"" help:"Ask the running daemon to look at one pane now (used by shell hooks)."`
	Explain    ExplainCmd    `cmd:"" help:"Show why each tab (and pane, with --pane-format) has or would get its name."`
	Lock       LockCmd       `cmd:"" help:"Keep a tab's current name (or a pane's, --pane): the daemon will not change it."`
	Release    ReleaseCmd    `cmd:"" help:"Name a tab (or a pane, --pane) automatically again, even after a person renamed it."`
	Restore    RestoreCmd    `cmd:"" help:"Undo: give every tab we named herdr's number back, clear our pane labels, stop the daemon (dry run unless --apply)."`
	Status     StatusCmd     `cmd:"" aliases:"doctor" help:"Check the setup: daemon, herdr, config file, state, hooks and plugin; say how to fix each problem."`
	Init       InitCmd       `cmd:"" help:"Print a shell hook (zsh, bash, fish) or a service unit (systemd, launchd); write the herdr plugin."`
	Demo       DemoCmd       `cmd:"" help:"Watch it work on a built-in herdr simulator (no herdr needed)."`
	Ver        VerCmd        `cmd:"" name:"version" help:"Print the version."`
	Completion CompletionCmd `cmd:"" help:"Print a shell completion script: zsh, bash or fish."`
	Help       HelpCmd       `cmd:"" help:"Show help for a command."`
	Man        ManCmd        `cmd:"" hidden:"" help:"Print the manual page (troff), as the .deb and Homebrew install it."`
}

// Globals are the flags every command shares.
type Globals struct {
	Socket    string `help:"herdr API socket (found as herdr does: $HERDR_SOCKET_PATH, $HERDR_SESSION, then herdr's config dir)." placeholder:"PATH"`
	Config    string `help:"Config file (found at $XDG_CONFIG_HOME/herdrtabrenamer/config.toml)." placeholder:"PATH" type:"path"`
	LogFormat string `help:"Log format: text or json." enum:"text,json" default:"text"`
	LogLevel  string `help:"Log level: debug, info, warn or error." enum:"debug,info,warn,error" default:"info"`
}

// logger builds the slog logger the flags ask for, on stderr.
func (g *Globals) logger(w io.Writer) *slog.Logger {
	return g.loggerAt(w, g.level())
}

// level is --log-level (info when it does not parse: kong checked it).
func (g *Globals) level() slog.Level {
	var lvl slog.Level
	_ = lvl.UnmarshalText([]byte(g.LogLevel))
	return lvl
}

// loggerAt is the logger of --log-format writing to w at lvl; a
// *slog.LevelVar lets a reload change the level of a logger in use.
func (g *Globals) loggerAt(w io.Writer, lvl slog.Leveler) *slog.Logger {
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
// the process's environment and home directory, and a way to parse the
// command line again (SIGHUP reload).
type runEnv struct {
	stdout io.Writer
	stderr io.Writer
	config *config.File
	// reparse re-reads the config file and parses the same arguments.
	reparse func() (*CLI, *config.File, error)
	// lookupEnv and userHome are the process's environment and home
	// directory. Options are built from them only through lookup, getenv
	// and home, so a test builds them from a made-up process; nil stands
	// for the process's own.
	lookupEnv func(key string) (string, bool)
	userHome  func() (string, error)
}

// lookup is os.LookupEnv of the environment env holds.
func (e *runEnv) lookup(key string) (string, bool) {
	if e.lookupEnv == nil {
		return os.LookupEnv(key)
	}
	return e.lookupEnv(key)
}

// getenv is os.Getenv of the environment env holds.
func (e *runEnv) getenv(key string) string {
	v, _ := e.lookup(key)
	return v
}

// home is os.UserHomeDir of the process env describes.
func (e *runEnv) home() (string, error) {
	if e.userHome == nil {
		return os.UserHomeDir()
	}
	return e.userHome()
}

// setup is env as package setup reads it.
func (e *runEnv) setup() setup.Env {
	return setup.Env{Lookup: e.lookup, Home: e.home, Config: e.config, Out: e.stdout}
}

// newOptions builds the daemon's options that run, once, explain and
// restore share (setup.NamingFlags.Options) with the global flags, from
// what env holds of the process; each error is a usage error (exit 2).
func newOptions(f *setup.NamingFlags, g *Globals, env *runEnv) (daemon.Options, error) {
	e := env.setup()
	e.Log = g.logger(env.stderr)
	opt, err := f.Options(g.Socket, e)
	if err != nil {
		return opt, withExit(2, err)
	}
	return opt, nil
}

// statePath is setup.StatePath with the process's own environment, for
// the commands that read the state file without building options.
func statePath(flag, sock string) (string, error) { return setup.StatePath(flag, sock, setup.Env{}) }

// configFree are the commands that work without the config file, so a
// typo in it cannot take away help, the shell hooks or completions.
// status reads the file itself and reports what is wrong with it.
var configFree = map[string]bool{
	"help": true, "version": true, "init": true, "completion": true, "demo": true, "status": true, "man": true,
}

// newParser builds the kong parser with the config file as a resolver. A
// config file that cannot be used comes back with its broken field set,
// not as an error: Main decides whether the chosen command needs it.
func newParser(args []string, stdout, stderr io.Writer, exit func(int)) (*kong.Kong, *CLI, *config.File, error) {
	cfgPath, named := configPathFromArgs(args)
	cf, err := config.Load(cfgPath, named)
	if err != nil {
		cf = &config.File{Path: cfgPath, Broken: err}
	}
	cli := &CLI{}
	parser, err := kong.New(cli,
		kong.Name("herdrtabrenamer"),
		kong.Description("Names herdr tabs after what runs inside them."),
		kong.Vars{"version": "herdrtabrenamer " + versionString()},
		kong.Writers(stdout, stderr),
		kong.Exit(exit),
		kong.DefaultEnvars("HERDRTABRENAMER"),
		kong.Resolvers(cf),
		kong.TypeMapper(reflect.TypeFor[time.Duration](), durationMapper),
		kong.TypeMapper(reflect.TypeFor[int](), intMapper),
		kong.Help(helpPrinter),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
	)
	if err != nil {
		return nil, nil, nil, err
	}
	if cf.Broken == nil {
		cf.Broken = cf.CheckKeys(parser.Model)
	}
	return parser, cli, cf, nil
}

// parseArgs parses args after the legacy single-dash rewrite.
func parseArgs(parser *kong.Kong, args []string) (*kong.Context, error) {
	args = legacyArgs(args, parser.Model)
	if err := missingValue(args, parser.Model); err != nil {
		return nil, err
	}
	ctx, err := parser.Parse(args)
	if err != nil {
		return nil, usageError(err)
	}
	return ctx, nil
}

// parse is newParser and parseArgs in one.
func parse(args []string, stdout, stderr io.Writer, exit func(int)) (*CLI, *kong.Context, *config.File, error) {
	parser, cli, cf, err := newParser(args, stdout, stderr, exit)
	if err != nil {
		return nil, nil, nil, err
	}
	ctx, err := parseArgs(parser, args)
	return cli, ctx, cf, err
}

// durationMapper and intMapper read flag values and say what is wanted in
// our words; kong prefixes the flag name.
var (
	durationMapper = valueMapper(func(s string) (any, error) {
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, fmt.Errorf("want a duration like 3s or 400ms, got %q", s)
		}
		return d, nil
	})
	intMapper = valueMapper(func(s string) (any, error) {
		i, err := strconv.Atoi(s)
		if err != nil {
			return nil, fmt.Errorf("want a whole number, got %q", s)
		}
		return i, nil
	})
)

// valueMapper makes a kong mapper from a function of the flag's text.
func valueMapper(conv func(string) (any, error)) kong.MapperFunc {
	return func(ctx *kong.DecodeContext, target reflect.Value) error {
		var s string
		if err := ctx.Scan.PopValueInto("value", &s); err != nil {
			return err
		}
		v, err := conv(s)
		if err != nil {
			return err
		}
		target.Set(reflect.ValueOf(v))
		return nil
	}
}

// usageError adds where to read more to kong's parse errors.
func usageError(err error) error {
	var pe *kong.ParseError
	cmd := "herdrtabrenamer"
	if errors.As(err, &pe) && pe.Context != nil && pe.Context.Selected() != nil {
		cmd = pe.Context.Selected().FullPath()
	}
	return fmt.Errorf("%w (see %s --help)", err, cmd)
}

// missingValue catches a flag that needs a value at the end of the line,
// which kong reports in its own words ("expected string value but got
// "EOL" (<EOL>)").
func missingValue(args []string, app *kong.Application) error {
	if len(args) == 0 {
		return nil
	}
	last := args[len(args)-1]
	name, ok := strings.CutPrefix(last, "--")
	if !ok || name == "" || strings.Contains(name, "=") {
		return nil
	}
	takesValue := false
	_ = kong.Visit(app, func(n kong.Visitable, next kong.Next) error {
		if f, ok := n.(*kong.Flag); ok && f.Name == name && !f.IsBool() && !f.IsCounter() {
			takesValue = true
		}
		return next(nil)
	})
	if !takesValue {
		return nil
	}
	return fmt.Errorf("--%s needs a value: --%s=VALUE (see herdrtabrenamer --help)", name, name)
}

// helpPrinter is kong's help without the global flags under every
// command: they are listed once, in the top-level help.
func helpPrinter(opts kong.HelpOptions, ctx *kong.Context) error {
	if ctx.Selected() == nil {
		return kong.DefaultHelpPrinter(opts, ctx)
	}
	var hidden []*kong.Flag
	for _, f := range ctx.Model.Flags {
		if !f.Hidden && f.Name != "help" {
			f.Hidden = true
			hidden = append(hidden, f)
		}
	}
	err := kong.DefaultHelpPrinter(opts, ctx)
	names := make([]string, 0, len(hidden))
	for _, f := range hidden {
		f.Hidden = false
		names = append(names, "--"+f.Name)
	}
	if err == nil && len(names) > 0 {
		_, err = fmt.Fprintf(ctx.Stdout, "\nGlobal flags: %s (see %s --help).\n", strings.Join(names, ", "), ctx.Model.Name)
	}
	return err
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
	return config.DefaultPath(), false
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
	if len(args) == 0 {
		// A bare command shows what it can do instead of an error.
		args = []string{"--help"}
	}
	var cf *config.File
	warned := false
	// warnConfig says once that the config file is broken, for commands
	// that run without it.
	warnConfig := func() {
		if cf != nil && cf.Broken != nil && !warned {
			warned = true
			fmt.Fprintf(stderr, "herdrtabrenamer: warning: %v (run, once, explain, lock, release and nudge stop until it is fixed; herdrtabrenamer status checks it)\n", cf.Broken)
		}
	}
	exited := -1
	exit := func(c int) { exited = c; panic(kongExit{}) }
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(kongExit); ok {
				// --help and --version end inside kong.
				warnConfig()
				code = exited
				return
			}
			panic(r)
		}
	}()
	parser, cli, cf, err := newParser(args, stdout, stderr, exit)
	if err != nil {
		fmt.Fprintf(stderr, "herdrtabrenamer: %v\n", err)
		return 2
	}
	ctx, err := parseArgs(parser, args)
	if err != nil {
		fmt.Fprintf(stderr, "herdrtabrenamer: %v\n", err)
		warnConfig()
		return 2
	}
	if status, stop := configGate(ctx, cli, cf, stderr, warnConfig); stop {
		return status
	}
	env := newRunEnv(args, stdout, stderr, cf)
	if run, ok := daemonRun(ctx, cli); ok {
		return exitCode(run(env), stderr)
	}
	return exitCode(ctx.Run(&cli.Globals, env), stderr)
}

// daemonRun is the daemon's run when ctx selected it, bound to nothing of
// kong's: kong's grammar of every command and its context (some 200 KB
// of heap) are garbage while the daemon runs for days. Other commands run
// through kong (ok false).
func daemonRun(ctx *kong.Context, cli *CLI) (run func(*runEnv) error, ok bool) {
	if ctx.Command() != "run" {
		return nil, false
	}
	return func(env *runEnv) error { return cli.Run.Run(&cli.Globals, env) }, true
}

// configGate stops a command that needs the config file when the file is
// broken, and warns about it before a command that runs without it;
// status reports the file itself.
func configGate(ctx *kong.Context, cli *CLI, cf *config.File, stderr io.Writer, warn func()) (code int, stop bool) {
	if cf.Broken == nil {
		return 0, false
	}
	top := strings.Fields(ctx.Command())[0]
	if configFree[top] {
		if top != "status" {
			warn()
		}
		return 0, false
	}
	if top == "nudge" && cli.Nudge.Quiet {
		return 0, true // a shell hook: never print on a prompt
	}
	fmt.Fprintf(stderr, "herdrtabrenamer: %v (fix the file, or name another with --config; herdrtabrenamer status checks it)\n", cf.Broken)
	return 2, true
}

// newRunEnv is the runEnv of this process: its output, environment and
// home directory, the config file cf, and args to parse again on reload.
func newRunEnv(args []string, stdout, stderr io.Writer, cf *config.File) *runEnv {
	return &runEnv{stdout: stdout, stderr: stderr, config: cf,
		lookupEnv: os.LookupEnv, userHome: os.UserHomeDir,
		reparse: func() (*CLI, *config.File, error) {
			c, _, f, err := parse(args, io.Discard, io.Discard, func(int) {})
			if err == nil && f.Broken != nil {
				err = f.Broken
			}
			return c, f, err
		}}
}

// exitCode prints a command's error and turns it into the exit status:
// the one an exitError carries, else 1.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
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

// kongExit unwinds kong's help/version exits back into Main.
type kongExit struct{}

// HelpCmd is `help [COMMAND...]`, the same as `COMMAND --help`.
type HelpCmd struct {
	Command []string `arg:"" optional:"" name:"COMMAND" help:"Command to explain, e.g. run."`
}

// Run prints the help through kong, so it is the same text as --help.
func (c *HelpCmd) Run(kctx *kong.Context) error {
	sub, err := kong.Trace(kctx.Kong, c.Command)
	if err != nil {
		return withExit(2, err)
	}
	if sub.Error != nil {
		return withExit(2, usageError(sub.Error))
	}
	return sub.PrintUsage(false)
}
