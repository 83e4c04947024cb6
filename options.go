package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/herdrtabrenamer/herdrtabrenamer/config"
	"github.com/herdrtabrenamer/herdrtabrenamer/daemon"
	"github.com/herdrtabrenamer/herdrtabrenamer/facts/gitinfo"
	"github.com/herdrtabrenamer/herdrtabrenamer/facts/glyphs"
	"github.com/herdrtabrenamer/herdrtabrenamer/facts/sshhosts"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/pass"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
	"github.com/herdrtabrenamer/herdrtabrenamer/sidebar"
)

// newOptions builds the daemon's options that run, once, explain and
// restore share, from the naming flags, the global flags and what env
// holds of the process: its environment, home directory, config file and
// output. It takes the environment and the home directory from env alone,
// so a test gives it a made-up env. Each error is a usage error (exit 2) on one line that names
// the flag, variable or config line at fault.
func newOptions(f *NamingFlags, g *Globals, env *runEnv) (daemon.Options, error) {
	sock, err := herdr.ResolveSocketPath(g.Socket, env.lookup)
	if err != nil {
		return daemon.Options{}, withExit(2, err)
	}
	if err := f.check(); err != nil {
		return daemon.Options{}, withExit(2, err)
	}
	// Without a home directory names show no "~": not worth stopping for.
	home, _ := env.home()
	nm, wsNamer, err := f.namers(env.config, home)
	if err != nil {
		return daemon.Options{}, withExit(2, err)
	}
	paneNamer, err := f.paneNamer(env.config, home)
	if err != nil {
		return daemon.Options{}, withExit(2, err)
	}
	side, err := f.sidebarNamer(home)
	if err != nil {
		return daemon.Options{}, withExit(2, err)
	}
	insp := procinfo.Local()
	procs, err := f.resolver(env.config, insp)
	if err != nil {
		return daemon.Options{}, withExit(2, err)
	}
	state, err := env.statePath(f.State, sock)
	if err != nil {
		return daemon.Options{}, withExit(2, err)
	}
	var glyphMap map[string]string
	if env.config != nil {
		glyphMap = env.config.Glyphs
	}
	glyphTable, err := glyphs.New(glyphMap) // checked with file:line on load
	if err != nil {
		return daemon.Options{}, withExit(2, err)
	}
	return daemon.Options{
		Socket: sock,
		Naming: pass.Config{Namer: nm, Procs: procs, Inspector: insp,
			Git: gitinfo.New(), SSH: sshhosts.New(sshConfig(home)), Glyphs: glyphTable,
			IndexPrefixAll: f.IndexPrefixAll, WorkspaceNamer: wsNamer, PaneNamer: paneNamer,
			Sidebar: side, SidebarTokens: f.SidebarTokens,
			Force: f.Force, Unique: f.Unique, Workspace: f.Workspace},
		StatePath: state, Out: env.stdout, Log: g.logger(env.stderr),
	}, nil
}

// check refuses the naming flags that no namer checks.
func (f *NamingFlags) check() error {
	if f.Workspace != "" {
		if _, err := herdr.ParseWorkspaceID(f.Workspace); err != nil {
			return fmt.Errorf("--workspace: %w", err)
		}
	}
	if f.MaxLen < 0 {
		return fmt.Errorf("--max-len: %d is negative (0 means no limit)", f.MaxLen)
	}
	return nil
}

// namers compiles the tab namer and, with --workspace-format, the
// workspace namer (nil without it).
func (f *NamingFlags) namers(cf *config.File, home string) (tabs, workspaces *namer.Namer, err error) {
	var rules []namer.RuleSpec
	if cf != nil {
		rules = cf.Rules
	}
	tabs, err = namer.New(namer.Config{
		Format: f.Format, MaxLen: f.MaxLen, Icons: f.Icons,
		Rules: rules, Home: home, HideDefaultBranch: f.HideDefaultBranch,
		SameDir: pass.SameDir, Ignore: f.Ignore, ExtendIgnore: f.ExtendIgnore,
	})
	var ignoreErr *namer.IgnoreError
	if errors.As(err, &ignoreErr) {
		// The file's lists were checked with file:line on load: this one
		// came from the flag or its environment variable.
		return nil, nil, fmt.Errorf("--%w", err)
	}
	if err != nil {
		return nil, nil, atRules(cf, err)
	}
	if f.WorkspaceFormat == "" {
		return tabs, nil, nil
	}
	// Override rules are per directory for tabs; a workspace gets the one
	// template, or a rule's format would name it like a tab.
	if _, err := namer.ParseTemplate(f.WorkspaceFormat); err != nil {
		return nil, nil, cf.AtKey("workspace-format", f.WorkspaceFormat, fmt.Errorf("workspace-format: %w", err))
	}
	// --max-len, --icons and the quick commands were checked with the tab
	// namer above.
	workspaces, err = namer.New(namer.Config{
		Format: f.WorkspaceFormat, MaxLen: f.MaxLen, Icons: f.Icons, Home: home,
		HideDefaultBranch: f.HideDefaultBranch, SameDir: pass.SameDir,
		Ignore: f.Ignore, ExtendIgnore: f.ExtendIgnore,
	})
	if err != nil {
		return nil, nil, fmt.Errorf("workspace-format: %w", err)
	}
	return tabs, workspaces, nil
}

// paneNamer compiles the pane namer with --pane-format (nil without it):
// the tab's rules, each with its pane-format or its skip.
func (f *NamingFlags) paneNamer(cf *config.File, home string) (*namer.Namer, error) {
	if f.PaneFormat == "" {
		return nil, nil
	}
	if _, err := namer.ParseTemplate(f.PaneFormat); err != nil {
		return nil, cf.AtKey("pane-format", f.PaneFormat, fmt.Errorf("pane-format: %w", err))
	}
	var rules []namer.RuleSpec
	if cf != nil {
		rules = cf.Rules
	}
	// The rules, --max-len, --icons and the quick commands were checked
	// with the tab namer.
	n, err := namer.New(namer.Config{
		Format: f.PaneFormat, MaxLen: f.MaxLen, Icons: f.Icons, Rules: rules, Home: home,
		HideDefaultBranch: f.HideDefaultBranch, SameDir: pass.SameDir,
		Ignore: f.Ignore, ExtendIgnore: f.ExtendIgnore, Panes: true,
	})
	if err != nil {
		return nil, fmt.Errorf("pane-format: %w", err)
	}
	return n, nil
}

// sidebarNamer compiles the namer of the sidebar's tokens with
// --sidebar-tokens (nil without): a pane namer whose template needs every
// token listed, values up to herdr's 80 characters.
func (f *NamingFlags) sidebarNamer(home string) (*namer.Namer, error) {
	if len(f.SidebarTokens) == 0 {
		return nil, nil
	}
	if err := sidebar.Check(f.SidebarTokens); err != nil {
		// The file's list was checked with file:line on load: this one
		// came from the flag or its environment variable.
		return nil, fmt.Errorf("--sidebar-tokens: %w", err)
	}
	n, err := namer.New(namer.Config{
		Format: sidebar.Format(f.SidebarTokens), MaxLen: 80, Icons: f.Icons, Home: home,
		HideDefaultBranch: f.HideDefaultBranch, SameDir: pass.SameDir, Panes: true,
	})
	if err != nil {
		return nil, fmt.Errorf("sidebar-tokens: %w", err)
	}
	return n, nil
}

// resolver builds the program resolver from --alias and the config file's
// [[rewrites]].
func (f *NamingFlags) resolver(cf *config.File, insp procinfo.Inspector) (*procinfo.Resolver, error) {
	aliases, err := procinfo.ParseAliases(f.Alias)
	if err != nil {
		return nil, fmt.Errorf("--alias: %w", err)
	}
	var rewrites []procinfo.RewriteSpec
	if cf != nil {
		rewrites = cf.Rewrites
	}
	procs, err := procinfo.New(procinfo.Options{Aliases: aliases, Rewrites: rewrites}, insp)
	if err != nil {
		return nil, atRules(cf, err)
	}
	return procs, nil
}

// atRules names the config file, and the line of the rule at fault where
// there is one, in an error from compiling the file's rules; without rules
// in the file the error is about a flag and stays as it is.
func atRules(cf *config.File, err error) error {
	if cf != nil && (len(cf.Rules) > 0 || len(cf.Rewrites) > 0) {
		return cf.AtTable(err)
	}
	return err
}

// statePath turns --state into a file: "auto" is one file per herdr server
// (two named sessions both have a w1:t1), under $XDG_STATE_HOME or else
// ~/.local/state as env has them.
func (e *runEnv) statePath(flag, sock string) (string, error) {
	if flag != "auto" {
		return flag, nil
	}
	dir := e.getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := e.home()
		if err != nil {
			return "", fmt.Errorf("--state auto needs $XDG_STATE_HOME or $HOME: %w", err)
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "herdrtabrenamer", rundir.Key(sock)+".json"), nil
}

// statePath is runEnv.statePath with the process's own environment, for
// the commands that read the state file without building options.
func statePath(flag, sock string) (string, error) {
	return (&runEnv{}).statePath(flag, sock)
}

// sshConfig is the ssh client's config file in home; "" lets sshhosts
// find it itself when there is no home to start from.
func sshConfig(home string) string {
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".ssh", "config")
}
