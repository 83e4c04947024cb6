package main

import (
	"fmt"

	"github.com/alecthomas/kong"

	"github.com/herdrtabrenamer/herdrtabrenamer/completion"
)

// CompletionCmd prints a completion script, generated from the kong model
// at run time (package completion).
type CompletionCmd struct {
	Shell string `arg:"" name:"SHELL" enum:"zsh,bash,fish" help:"zsh, bash or fish."`
}

// Run prints the script for c.Shell.
func (c *CompletionCmd) Run(kctx *kong.Context, env *runEnv) error {
	script, err := completion.Script(kctx.Model, c.Shell)
	if err != nil {
		return withExit(2, err)
	}
	_, err = fmt.Fprint(env.stdout, script)
	return err
}
