// Package setup turns what a person asked for (the command line's flags,
// the config file, the environment) into the daemon's options: the
// namers compiled, the program resolver, the facts' lookups, the state
// file's path, the polls and the plugin a daemon is tied to. run, once,
// explain, restore and status build them here alike, so status checks
// what run would run with, and run and status read --local-watch the
// same way. The flag structs carry kong's tags; the commands embed them.
//
// # Who calls what
//
// Everything here is safe from any goroutine; building options reads the
// config file's parsed values and the environment Env gives, and writes
// nothing.
package setup

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/herdrtabrenamer/herdrtabrenamer/config"
)

// Env is what options are built from besides the flags: the process's
// environment and home directory, its config file, and where output and
// the log go.
type Env struct {
	// Lookup and Home are os.LookupEnv and os.UserHomeDir of the
	// process; nil stands for the process's own.
	Lookup func(key string) (string, bool)
	Home   func() (string, error)
	Config *config.File // nil: none
	Out    io.Writer
	Log    *slog.Logger
}

func (e Env) lookup(key string) (string, bool) {
	if e.Lookup == nil {
		return os.LookupEnv(key)
	}
	return e.Lookup(key)
}

func (e Env) getenv(key string) string {
	v, _ := e.lookup(key)
	return v
}

func (e Env) home() (string, error) {
	if e.Home == nil {
		return os.UserHomeDir()
	}
	return e.Home()
}

// sshConfig is the ssh client's config file in home; "" lets sshhosts
// find it itself when there is no home to start from.
func sshConfig(home string) string {
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".ssh", "config")
}
