package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/alecthomas/kong"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// CLI is the whole kong grammar. Each command lives in its own cmd_*.go.
type CLI struct {
	Globals

	Version kong.VersionFlag `help:"Print the version and exit."`

	Nudge NudgeCmd `cmd:"" help:"Ask the running daemon to look at one pane now (used by shell hooks)."`
	Ver   VerCmd   `cmd:"" name:"version" help:"Print the version."`
}

// Globals are the flags every command shares.
type Globals struct {
	Socket string `help:"herdr API socket (default: $HERDR_SOCKET_PATH, $HERDR_SESSION, then herdr's config dir)." placeholder:"PATH"`
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

// runEnv is what commands get from Main: where to write, so tests can run
// commands in-process.
type runEnv struct {
	stdout io.Writer
	stderr io.Writer
}

// Main parses args, runs the chosen command and returns the exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	var cli CLI
	exited := -1
	parser, err := kong.New(&cli,
		kong.Name("herdrtabrenamer"),
		kong.Description("Names herdr tabs after what runs inside them."),
		kong.Vars{"version": version},
		kong.Writers(stdout, stderr),
		kong.Exit(func(code int) { exited = code; panic(kongExit{}) }),
		kong.UsageOnError(),
	)
	if err != nil {
		fmt.Fprintf(stderr, "herdrtabrenamer: %v\n", err)
		return 2
	}
	code := func() (code int) {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(kongExit); ok {
					code = exited
					return
				}
				panic(r)
			}
		}()
		ctx, err := parser.Parse(args)
		if err != nil {
			fmt.Fprintf(stderr, "herdrtabrenamer: %v\n", err)
			return 2
		}
		env := &runEnv{stdout: stdout, stderr: stderr}
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
	}()
	return code
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
