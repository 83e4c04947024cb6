package main

import (
	"fmt"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/herdrtabrenamer/herdrtabrenamer/completion"
)

// CompletionCmd prints a completion script, generated from the kong model
// at run time (package completion).
type CompletionCmd struct {
	// Optional so that a missing SHELL gets our message, not kong's.
	Shell string `arg:"" optional:"" name:"SHELL" complete:"zsh,bash,fish" help:"zsh, bash or fish."`
}

// Run prints the script for c.Shell.
func (c *CompletionCmd) Run(kctx *kong.Context, env *runEnv) error {
	if c.Shell == "" {
		return withExit(2, fmt.Errorf("completion: missing SHELL: want %s", strings.Join(completion.Shells, ", ")))
	}
	script, err := completion.Script(kctx.Model, c.Shell)
	if err != nil {
		return withExit(2, err)
	}
	_, err = fmt.Fprint(env.stdout, script)
	return err
}
