package main

import (
	"fmt"
	"io"

	"github.com/herdrtabrenamer/herdrtabrenamer/daemon"
	"github.com/herdrtabrenamer/herdrtabrenamer/doctor"
)

// StatusCmd checks the setup piece by piece (package doctor).
type StatusCmd struct {
	State string `help:"State file to check; \"auto\" is the one the daemon uses." default:"auto" placeholder:"PATH"`
}

// Run prints one line per check. Exit 1 when something needs fixing.
func (c *StatusCmd) Run(g *Globals, env *runEnv) error {
	checks := doctor.Checks(g.Socket, doctor.Env{Lookup: env.lookup, Home: env.home, Config: env.config, State: c.State,
		Run: func() (daemon.Options, error) { return buildAsRun(g) }})
	problems := 0
	for _, ch := range checks {
		mark := "ok  "
		if !ch.OK {
			mark = "FIX "
			problems++
		}
		fmt.Fprintf(env.stdout, "%s %-8s %s\n", mark, ch.Name, ch.Found)
		if !ch.OK && ch.Fix != "" {
			fmt.Fprintf(env.stdout, "     %-8s -> %s\n", "", ch.Fix)
		}
	}
	if problems > 0 {
		return withExit(1, fmt.Errorf("status: %d problem(s); each is listed above with the command that fixes it", problems))
	}
	return nil
}

// buildAsRun builds the daemon's options with run's own parse and build,
// from the same file, environment and global flags, and returns them or
// the error run would stop with. It reads the config file as run does
// and writes nothing.
func buildAsRun(g *Globals) (daemon.Options, error) {
	args := []string{"run"}
	if g.Config != "" {
		args = append(args, "--config="+g.Config)
	}
	if g.Socket != "" {
		args = append(args, "--socket="+g.Socket)
	}
	cli, _, cf, err := parse(args, io.Discard, io.Discard, func(int) {})
	if err != nil {
		return daemon.Options{}, err
	}
	if cf.Broken != nil {
		return daemon.Options{}, cf.Broken
	}
	return cli.Run.build(&cli.Globals, &runEnv{stdout: io.Discard, stderr: io.Discard, config: cf})
}
