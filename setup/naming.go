package setup

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

// Options builds the daemon's options that run, once, explain and
// restore share, from the naming flags, --socket (socketFlag) and what
// env holds of the process. It takes the environment and the home
// directory from env alone, so a test gives it a made-up one. Each error
// is on one line and names the flag, variable or config line at fault:
// a usage error.
func (f *NamingFlags) Options(socketFlag string, env Env) (daemon.Options, error) {
	sock, err := herdr.ResolveSocketPath(socketFlag, env.lookup)
	if err != nil {
		return daemon.Options{}, err
	}
	if err := f.check(); err != nil {
		return daemon.Options{}, err
	}
	// Without a home directory names show no "~": not worth stopping for.
	home, _ := env.home()
	naming, err := f.naming(env, home)
	if err != nil {
		return daemon.Options{}, err
	}
	state, err := StatePath(f.State, sock, env)
	if err != nil {
		return daemon.Options{}, err
	}
	return daemon.Options{Socket: sock, Naming: naming, StatePath: state, Out: env.Out, Log: env.Log}, nil
}

// naming compiles the naming configuration: the namers, the program
// resolver, the facts' lookups.
func (f *NamingFlags) naming(env Env, home string) (pass.Config, error) {
	nm, wsNamer, err := f.namers(env.Config, home)
	if err != nil {
		return pass.Config{}, err
	}
	paneNamer, err := f.paneNamer(env.Config, home)
	if err != nil {
		return pass.Config{}, err
	}
	side, err := f.sidebarNamer(home)
	if err != nil {
		return pass.Config{}, err
	}
	insp := procinfo.Local()
	procs, err := f.resolver(env.Config, insp)
	if err != nil {
		return pass.Config{}, err
	}
	var glyphMap map[string]string
	if env.Config != nil {
		glyphMap = env.Config.Glyphs
	}
	glyphTable, err := glyphs.New(glyphMap) // checked with file:line on load
	if err != nil {
		return pass.Config{}, err
	}
	return pass.Config{Namer: nm, Procs: procs, Inspector: insp,
		Git: gitinfo.New(), SSH: sshhosts.New(sshConfig(home)), Glyphs: glyphTable,
		IndexPrefixAll: f.IndexPrefixAll, WorkspaceNamer: wsNamer, PaneNamer: paneNamer,
		Sidebar: side, SidebarTokens: f.SidebarTokens,
		Force: f.Force, Unique: f.Unique, Workspace: f.Workspace}, nil
}

// NamingFlags decide names; run, once and explain share them.
type NamingFlags struct {
	Format    string `help:"Name template." default:"{proc|dir}"`
	MaxLen    int    `help:"Longest name in display columns, 0 for no limit." default:"24"`
	Icons     string `help:"Status icons, e.g. \"blocked=🟥,idle=\" (default: 🔴 blocked, 🟡 working, 🟢 done, ⚪ idle)." placeholder:"SPEC"`
	Alias     string `help:"Program name rewrites, e.g. \"nvim=vim,python3=py\"." placeholder:"SPEC"`
	Unique    bool   `help:"Tell apart same-named tabs of a workspace by their parent directory."`
	Force     bool   `help:"Rename tabs even when a person named them."`
	Workspace string `help:"Only name tabs of this workspace, e.g. w1." placeholder:"ID"`
	State     string `help:"State file; \"auto\" keeps one per herdr server under $XDG_STATE_HOME, \"\" remembers nothing." default:"auto"`

	HideDefaultBranch bool   `help:"Show no {branch} on the repository's default branch."`
	IndexPrefixAll    bool   `help:"Put the tab position in front of names people chose too."`
	WorkspaceFormat   string `help:"Name workspaces too, with this template ({index} is the sidebar position); empty leaves them alone." placeholder:"TEMPLATE"`
	PaneFormat        string `help:"Name every pane too (its label on herdr's pane border and in the sidebar's agent rows), with this template of the pane's own tokens; same-named panes of a tab are told apart; empty leaves panes alone." placeholder:"TEMPLATE"`

	// nil, not empty, when unset: the built-in list applies; --ignore ""
	// (or ignore = [] in the file) ignores nothing.
	Ignore       []string `help:"Quick commands that never name a tab, as globs on the program name (a glob with a blank, \"git status*\", on the command line); replaces the built-in list (ls, cat, cp, rm, echo, git status and more: docs/templates.md)." placeholder:"GLOB"`
	ExtendIgnore []string `help:"More quick commands, added to the built-in list or to --ignore." placeholder:"GLOB"`
	// SidebarTokens puts these tokens' values for each agent's pane in
	// herdr's sidebar, as pane metadata tokens htr_NAME.
	SidebarTokens []string `help:"Report these tokens of each agent's pane (e.g. agent,task,branch) to herdr as pane metadata tokens htr_NAME, which herdr's sidebar rows show as \"$htr_NAME\"; empty reports none." placeholder:"TOKEN"`
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
	var rules []namer.RuleSpec
	if cf != nil {
		rules = cf.Rules
	}
	if f.PaneFormat == "" {
		// A rule's pane-format would name no pane: say so rather than
		// leave it silently without effect.
		for i, r := range rules {
			if r.PaneFormat != "" {
				return nil, cf.AtTable(&namer.RuleError{Index: i + 1, What: fmt.Sprintf("pane-format %q", r.PaneFormat),
					Err: errors.New("names no pane: pane names are off (set pane-format at the top of the file, or --pane-format)")})
			}
		}
		return nil, nil
	}
	if _, err := namer.ParseTemplate(f.PaneFormat); err != nil {
		return nil, cf.AtKey("pane-format", f.PaneFormat, fmt.Errorf("pane-format: %w", err))
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

// StatePath turns --state into a file: "auto" is one file per herdr
// server (two named sessions both have a w1:t1), under $XDG_STATE_HOME or
// else ~/.local/state as env has them.
func StatePath(flag, sock string, env Env) (string, error) {
	if flag != "auto" {
		return flag, nil
	}
	dir := env.getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := env.home()
		if err != nil {
			return "", fmt.Errorf("--state auto needs $XDG_STATE_HOME or $HOME: %w", err)
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "herdrtabrenamer", rundir.Key(sock)+".json"), nil
}
