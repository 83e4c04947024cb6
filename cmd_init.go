package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/herdrtabrenamer/herdrtabrenamer/contrib"
	"github.com/herdrtabrenamer/herdrtabrenamer/hooks"
	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
)

// InitCmd prints a shell hook to eval from an rc file, the way zoxide,
// direnv and starship do, or writes the herdr plugin manifest.
type InitCmd struct {
	// complete: the words shell completion offers (kong's enum would
	// answer a typo in its own words; Run does in ours, and optional lets
	// Run say what is missing too).
	Target    string `arg:"" optional:"" name:"TARGET" complete:"zsh,bash,fish,herdr-plugin,systemd,launchd" help:"zsh, bash, fish, herdr-plugin, systemd or launchd."`
	Dir       string `arg:"" optional:"" name:"DIR" help:"herdr-plugin only: folder to write herdr-plugin.toml into (created if missing)."`
	Cmd       string `help:"Binary the hooks call (default: the absolute path of this executable). A bare name is looked up in PATH at each call." placeholder:"PATH" env:"-"`
	NoPreexec bool   `help:"Nudge only at the prompt, not also when a command starts." env:"-"`
}

const (
	pluginTarget  = "herdr-plugin"
	systemdTarget = "systemd"
	launchdTarget = "launchd"
)

// Run prints the snippet or writes the manifest. Exit 2: bad arguments.
func (c *InitCmd) Run(env *runEnv) error {
	isShell := false
	for _, s := range hooks.Shells {
		isShell = isShell || c.Target == s
	}
	service := c.Target == systemdTarget || c.Target == launchdTarget
	if !isShell && !service && c.Target != pluginTarget {
		what := fmt.Sprintf("unknown target %q", c.Target)
		if c.Target == "" {
			what = "missing TARGET"
		}
		return withExit(2, fmt.Errorf("init: %s: want %s, %s, %s or %s", what, strings.Join(hooks.Shells, ", "), pluginTarget, systemdTarget, launchdTarget))
	}
	bin, err := c.binary()
	if err != nil {
		return withExit(2, err)
	}
	if c.Cmd == "" && isTempBuild(bin) {
		c.warnTempBuild(env, bin)
	}
	switch {
	case service:
		return c.printService(env, bin)
	case isShell:
		return c.printHook(env, bin)
	}
	return c.writePluginManifest(env, bin)
}

// warnTempBuild says that bin, a `go run` build, is gone once the command
// exits, so what init writes would call nothing.
func (c *InitCmd) warnTempBuild(env *runEnv, bin string) {
	what := map[string]string{systemdTarget: "unit", launchdTarget: "agent", pluginTarget: "plugin manifest"}[c.Target]
	if what == "" {
		what = c.Target + " hook"
	}
	fmt.Fprintf(env.stderr, "herdrtabrenamer: warning: %s is a temporary build that `go run` deletes when it exits, so this %s would call nothing; "+
		"install the binary (go install . or go build -o ~/.local/bin/herdrtabrenamer .) and run init with it, or pass --cmd PATH\n", bin, what)
}

// printHook prints the shell snippet that calls bin.
func (c *InitCmd) printHook(env *runEnv, bin string) error {
	if err := nudge.Available(); err != nil {
		return withExit(2, fmt.Errorf("init %s: no shell hooks on this system: %w", c.Target, err))
	}
	if c.Dir != "" {
		return withExit(2, fmt.Errorf("init %s: unexpected argument %q (DIR is for %s only)", c.Target, c.Dir, pluginTarget))
	}
	text, err := hooks.Snippet(c.Target, bin, !c.NoPreexec)
	if err != nil {
		return fmt.Errorf("init %s: %w", c.Target, err)
	}
	_, err = fmt.Fprint(env.stdout, text)
	return err
}

// writePluginManifest writes herdr-plugin.toml, calling bin, into c.Dir.
func (c *InitCmd) writePluginManifest(env *runEnv, bin string) error {
	if c.Dir == "" {
		return withExit(2, fmt.Errorf("init %s: missing DIR (the folder to write herdr-plugin.toml into)", pluginTarget))
	}
	if c.NoPreexec {
		return withExit(2, fmt.Errorf("init %s: --no-preexec is for shell hooks only", pluginTarget))
	}
	text, err := hooks.PluginManifest(bin)
	if err != nil {
		return withExit(2, fmt.Errorf("init %s: %w", pluginTarget, err))
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return fmt.Errorf("init %s: create %s: %w", pluginTarget, c.Dir, err)
	}
	path := filepath.Join(c.Dir, "herdr-plugin.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return fmt.Errorf("init %s: write %s: %w", pluginTarget, path, err)
	}
	_, err = fmt.Fprintf(env.stdout, "wrote %s\n", path)
	return err
}

// binary is what the hooks run: --cmd, else this executable. Hooks fire in
// shells with any PATH, and herdr runs plugin commands relative to the
// plugin root, so a path with a slash is made absolute here; a bare name is
// kept for users who want a PATH lookup (e.g. a nix profile that moves).
func (c *InitCmd) binary() (string, error) {
	if c.Cmd != "" {
		if !strings.Contains(c.Cmd, "/") {
			return c.Cmd, nil
		}
		abs, err := filepath.Abs(c.Cmd)
		if err != nil {
			return "", fmt.Errorf("init: --cmd %s: %w", c.Cmd, err)
		}
		return abs, nil
	}
	exe, err := executable()
	if err != nil {
		return "", fmt.Errorf("init: find this executable (pass --cmd PATH): %w", err)
	}
	return exe, nil
}

// executable is os.Executable; tests pretend to be other binaries.
var executable = os.Executable

// isTempBuild says whether bin lives in a go-build work folder, where
// `go run` and `go test` put binaries they delete afterwards.
func isTempBuild(bin string) bool {
	for _, part := range strings.Split(filepath.ToSlash(bin), "/") {
		if strings.HasPrefix(part, "go-build") {
			return true
		}
	}
	return false
}

// printService prints a systemd user unit or a launchd agent that runs the
// daemon with --apply, for the user to install (docs/service.md says where).
func (c *InitCmd) printService(env *runEnv, bin string) error {
	if c.Dir != "" || c.NoPreexec {
		return withExit(2, fmt.Errorf("init %s: takes no DIR and no --no-preexec", c.Target))
	}
	if !filepath.IsAbs(bin) {
		return withExit(2, fmt.Errorf("init %s: the service needs an absolute --cmd path, got %q", c.Target, bin))
	}
	var text string
	if c.Target == systemdTarget {
		text = contrib.SystemdUnit(bin)
	} else {
		home, err := os.UserHomeDir()
		if err != nil {
			return fmt.Errorf("init %s: find the home folder for the log path: %w", c.Target, err)
		}
		text = contrib.LaunchdPlist(bin, home)
	}
	_, err := fmt.Fprint(env.stdout, text)
	return err
}
