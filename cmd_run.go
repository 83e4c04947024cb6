package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/herdrtabrenamer/herdrtabrenamer/claim"
	"github.com/herdrtabrenamer/herdrtabrenamer/pass"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/daemon"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
)

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
	Ignore       []string `help:"Quick commands that never name a tab, as globs on the program name (a glob with a blank, \"git status*\", on the command line); replaces the built-in list (ls, cat, cp, rm, echo, git status and more: see README)." placeholder:"GLOB"`
	ExtendIgnore []string `help:"More quick commands, added to the built-in list or to --ignore." placeholder:"GLOB"`
	// SidebarTokens puts these tokens' values for each agent's pane in
	// herdr's sidebar, as pane metadata tokens htr_NAME.
	SidebarTokens []string `help:"Report these tokens of each agent's pane (e.g. agent,task,branch) to herdr as pane metadata tokens htr_NAME, which herdr's sidebar rows show as \"$htr_NAME\"; empty reports none." placeholder:"TOKEN"`
}

// minPoll is the shortest --poll: below it a typo (1ns, 1us) would turn the
// daemon into a busy loop of full passes against herdr.
const minPoll = 10 * time.Millisecond

// RunCmd is the daemon.
type RunCmd struct {
	NamingFlags `embed:""`
	Apply       bool          `help:"Rename tabs (without it: dry run, print only new decisions)."`
	Poll        time.Duration `help:"Full pass interval besides events; 0 for events only." default:"3s"`
	RestPoll    time.Duration `help:"Full pass interval instead of --poll while --local-watch follows every tab, which leaves the poll only what nothing announces; 0: none then." default:"30s"`
	AgentPoll   time.Duration `help:"Read the session this often for agents' statuses while one may change unannounced (an agent works, read input in the last 5s, or runs where the local watch cannot see its terminal) and no herdr plugin event hook reports them (herdr pushes them to nothing else); 0: never." default:"1s"`
	LocalWatch  bool          `help:"Learn from the kernel when a program starts or exits or a shell changes directory in a pane on this machine, so its tab is renamed at once without hooks (and the full poll rests, --rest-poll)." default:"true" negatable:""`
	Debounce    time.Duration `help:"Events after the first one within this long are coalesced into one more pass." default:"400ms"`
	Settle      time.Duration `help:"Wait this long before naming a new program (0: at once); calm over speed." default:"0s"`
	// Warm is accepted, and ignored with a warning, for the services and
	// config files that still set it: the connections it kept open cost
	// herdr more than the few renames a read poll delays.
	Warm         time.Duration `hidden:"" help:"No longer used."`
	IfNotRunning bool          `help:"Exit 0 quietly when a daemon already serves this herdr (for startup hooks)." env:"-"`
}

// OnceCmd is one pass.
type OnceCmd struct {
	NamingFlags `embed:""`
	Apply       bool `help:"Rename tabs (without it: dry run, print what would change)."`
}

// ExplainCmd shows decisions without renaming.
type ExplainCmd struct {
	NamingFlags `embed:""`
	TabID       string `arg:"" optional:"" name:"TAB_ID" help:"Only this tab, e.g. w1:t2."`
	Pane        string `help:"A pane instead of a tab, e.g. w1:p3 (herdr pane list shows them; explain needs --pane-format)." placeholder:"ID" env:"-"`
	JSON        bool   `help:"Print JSON instead of a table." env:"-"`
	Notify      bool   `help:"Show one tab's decision as a herdr notification (the plugin's \"Why this name?\"; TAB_ID defaults to $HERDR_TAB_ID)." env:"-"`
}

// noHerdrHint says what to do when no herdr answers on the socket.
func noHerdrHint(err error) error {
	if errors.Is(err, herdr.ErrNotRunning) {
		return fmt.Errorf("%w: start herdr and run this inside one of its panes, or pass --socket PATH (herdrtabrenamer demo shows it without herdr)", err)
	}
	return err
}

// Run runs the daemon until SIGINT or SIGTERM; SIGHUP reloads the config.
func (c *RunCmd) Run(g *Globals, env *runEnv) error {
	opt, err := c.build(g, env)
	if err != nil {
		return err
	}
	// One logger for the daemon's life, shared with its herdr client: a
	// reload changes its level (a new logger would reach neither).
	level := new(slog.LevelVar)
	level.Set(g.level())
	opt.Log = g.loggerAt(env.stderr, level)
	d, err := daemon.New(opt)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	reload := c.reloads(ctx, g, env, opt.Log, level)
	err = d.Run(ctx, reload)
	if errors.Is(err, claim.ErrAlreadyRunning) {
		if c.IfNotRunning {
			return nil
		}
		return withExit(1, fmt.Errorf("%w (one daemon serves each herdr; --if-not-running exits 0 instead, herdrtabrenamer status shows it)", err))
	}
	return err
}

// reloads turns each SIGHUP into a new configuration for the daemon,
// built as at start from the re-read config file; log, whose level
// follows --log-level, stays the daemon's logger. A configuration that
// does not build is logged and skipped. Each outcome is recorded for
// status (recordReload).
func (c *RunCmd) reloads(ctx context.Context, g *Globals, env *runEnv, log *slog.Logger, level *slog.LevelVar) <-chan daemon.Options {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	reload := make(chan daemon.Options, 1)
	// The herdr socket the daemon serves, resolved as at start.
	sock, _ := herdr.ResolveSocketPath(g.Socket, env.lookup)
	go func() {
		defer signal.Stop(hup)
		for {
			// hup is never closed: without ctx this goroutine would
			// outlive Run.
			select {
			case <-ctx.Done():
				return
			case <-hup:
			}
			cli, cf, err := env.reparse()
			if err != nil {
				recordReload(log, sock, err)
				continue
			}
			renv := *env
			renv.config = cf
			no, err := cli.Run.build(&cli.Globals, &renv)
			recordReload(log, sock, err)
			if err != nil {
				continue
			}
			no.Log = log
			level.Set(cli.Globals.level())
			if cli.Globals.LogFormat != g.LogFormat {
				log.Warn("reload: the log format cannot change while running; restart the daemon to use the new one",
					"keeping", g.LogFormat, "asked", cli.Globals.LogFormat)
			}
			select {
			case reload <- no:
			case <-ctx.Done():
				return
			}
		}
	}()
	return reload
}

// recordReload logs a refused reload and keeps the outcome of every
// reload where status reads it: a refused one is otherwise only in the
// log, while the daemon runs on with its old configuration.
func recordReload(log *slog.Logger, sock string, err error) {
	r := rundir.Reload{PID: os.Getpid(), At: time.Now()}
	if err != nil {
		r.Error = err.Error()
		// trace: the stable field tools and tests key on, as the
		// daemon's traced lines carry.
		log.Error("reload failed; keeping the old configuration", "trace", "reload_failed", "err", err)
	}
	if werr := rundir.WriteReload(sock, r); werr != nil {
		log.Warn("could not record the reload's outcome for status", "err", werr)
	}
}

func (c *RunCmd) build(g *Globals, env *runEnv) (daemon.Options, error) {
	opt, err := newOptions(&c.NamingFlags, g, env)
	if err != nil {
		return opt, err
	}
	if c.Poll < 0 || c.RestPoll < 0 || c.Debounce < 0 || c.AgentPoll < 0 {
		return opt, withExit(2, errors.New("--poll, --rest-poll, --agent-poll and --debounce must not be negative"))
	}
	if c.Settle < 0 {
		return opt, withExit(2, fmt.Errorf("--settle %v: must not be negative (0 names a new program at once)", c.Settle))
	}
	if c.Warm != 0 {
		opt.Log.Warn("--warm (HERDRTABRENAMER_WARM, config key warm) is no longer used: renames go out on fresh connections; remove it")
	}
	if c.Poll > 0 && c.Poll < minPoll {
		return opt, withExit(2, fmt.Errorf("--poll %v is too short: use %v or more, or 0 for events only", c.Poll, minPoll))
	}
	if c.RestPoll > 0 && c.RestPoll < minPoll {
		return opt, withExit(2, fmt.Errorf("--rest-poll %v is too short: use %v or more, or 0 for none", c.RestPoll, minPoll))
	}
	if c.AgentPoll > 0 && c.AgentPoll < minPoll {
		return opt, withExit(2, fmt.Errorf("--agent-poll %v is too short: use %v or more, or 0 for never", c.AgentPoll, minPoll))
	}
	opt.Naming.Apply, opt.Naming.Settle, opt.Naming.LocalWatch = c.Apply, c.Settle, c.LocalWatch
	opt.Poll, opt.AgentPoll, opt.Debounce = c.Poll, c.AgentPoll, c.Debounce
	opt.RestPoll = c.RestPoll
	opt.Plugin = pluginTie(env.getenv)
	return opt, nil
}

// pluginTie is the herdr plugin a daemon follows: the one whose [[startup]]
// hook runs it. herdr sets HERDR_PLUGIN_EVENT=startup and the plugin's id
// and config folder for that command. Its config folder is
// <herdr config>/plugins/config/<id>, and herdr's plugin registry is
// <herdr config>/plugins.json; for a folder of another shape the registry
// is left unknown and checked by asking herdr now and then.
func pluginTie(getenv func(string) string) daemon.Plugin {
	id := getenv("HERDR_PLUGIN_ID")
	if id == "" || getenv("HERDR_PLUGIN_EVENT") != "startup" {
		return daemon.Plugin{}
	}
	p := daemon.Plugin{ID: id}
	if dir := getenv("HERDR_PLUGIN_CONFIG_DIR"); dir != "" {
		parent := filepath.Dir(filepath.Clean(dir))
		plugins := filepath.Dir(parent)
		if filepath.Base(parent) == "config" && filepath.Base(plugins) == "plugins" {
			p.Registry = filepath.Join(filepath.Dir(plugins), "plugins.json")
		}
	}
	return p
}

// Run makes one pass and prints each rename (or would-be rename).
func (c *OnceCmd) Run(g *Globals, env *runEnv) error {
	opt, err := newOptions(&c.NamingFlags, g, env)
	if err != nil {
		return err
	}
	opt.Naming.Apply = c.Apply
	d, err := daemon.New(opt)
	if err != nil {
		return err
	}
	reps, err := d.Once(context.Background())
	if err != nil {
		return withExit(1, noHerdrHint(err))
	}
	failed := 0
	for _, r := range reps {
		switch r.Action {
		case pass.ActionRenamed, pass.ActionWouldRename:
			fmt.Fprintf(env.stdout, "%s %s %q -> %q\n", r.Action, r.Named(), r.Label, r.Want)
		case pass.ActionFailed:
			failed++
			fmt.Fprintf(env.stderr, "herdrtabrenamer: rename %s to %q: %s\n", r.Named(), r.Want, r.Error)
		}
	}
	if failed > 0 {
		return withExit(1, fmt.Errorf("%d rename(s) failed", failed))
	}
	return nil
}

// Run prints every tab's decision.
func (c *ExplainCmd) Run(g *Globals, env *runEnv) error {
	if c.Notify {
		return c.notify(g, env)
	}
	_, reps, err := c.explain(context.Background(), g, env)
	if err != nil {
		return err
	}
	if c.JSON {
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(reps)
	}
	return writeExplain(env.stdout, reps)
}

// explain checks TAB_ID ("" = every tab) or --pane and asks a one-off
// daemon for the decisions; the daemon is returned for callers that talk
// to herdr on.
func (c *ExplainCmd) explain(ctx context.Context, g *Globals, env *runEnv) (*daemon.Daemon, []pass.Report, error) {
	if err := c.checkIDs(); err != nil {
		return nil, nil, err
	}
	opt, err := newOptions(&c.NamingFlags, g, env)
	if err != nil {
		return nil, nil, err
	}
	if c.Pane != "" && opt.Naming.PaneNamer == nil {
		return nil, nil, withExit(2, errors.New("explain --pane: pane names are off; set --pane-format (config key pane-format)"))
	}
	d, err := daemon.New(opt)
	if err != nil {
		return nil, nil, err
	}
	if c.Pane != "" {
		r, err := d.ExplainPane(ctx, c.Pane)
		if err != nil {
			return nil, nil, withExit(1, noHerdrHint(err))
		}
		return d, []pass.Report{r}, nil
	}
	reps, err := d.Explain(ctx, c.TabID)
	if err != nil {
		return nil, nil, withExit(1, noHerdrHint(err))
	}
	return d, reps, nil
}

// checkIDs checks TAB_ID and --pane, which name one thing at most.
func (c *ExplainCmd) checkIDs() error {
	switch {
	case c.Pane != "" && c.TabID != "":
		return withExit(2, fmt.Errorf("explain: TAB_ID %s and --pane %s name two things: give one", c.TabID, c.Pane))
	case c.Pane != "":
		if _, _, err := herdr.ParsePaneID(c.Pane); err != nil {
			return withExit(2, fmt.Errorf("explain --pane: %w", err))
		}
	case c.TabID != "":
		if _, _, err := herdr.ParseTabID(c.TabID); err != nil {
			return withExit(2, err)
		}
	}
	return nil
}

// writeExplain prints one block per tab: the table a person reads when a
// tab has the wrong name.
func writeExplain(w io.Writer, reps []pass.Report) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for i, r := range reps {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		if r.PaneID != "" {
			// A pane is named from its own facts: no lead to show.
			fmt.Fprintf(tw, "pane %s\t(tab %s, workspace %s)\n", r.PaneID, r.TabID, r.Workspace)
		} else {
			fmt.Fprintf(tw, "tab %s\t(workspace %s)\n", r.TabID, r.Workspace)
		}
		fmt.Fprintf(tw, "  label now\t%q\n", r.Label)
		fmt.Fprintf(tw, "  name wanted\t%q\n", r.Want)
		fmt.Fprintf(tw, "  verdict\tlabel is %s: %s\n", r.Verdict, r.Action)
		if r.PaneID == "" {
			fmt.Fprintf(tw, "  lead pane\t%s (%s)\n", r.Lead, r.LeadWhy)
		}
		if r.Program != "" || r.ProgramWhy != "" {
			fmt.Fprintf(tw, "  program\t%q (%s)\n", r.Program, r.ProgramWhy)
		}
		rule := r.Rule
		if rule == "" {
			rule = "none"
		}
		fmt.Fprintf(tw, "  rule\t%s\n", rule)
		if r.SessionWhy != "" {
			fmt.Fprintf(tw, "  session\tnone (%s)\n", r.SessionWhy)
		}
		if r.SessionFrom != "" {
			fmt.Fprintf(tw, "  session\t%s\n", r.SessionFrom)
		}
		for _, k := range sortedKeys(r.Tokens) {
			fmt.Fprintf(tw, "  {%s}\t%q\n", k, r.Tokens[k])
		}
	}
	return tw.Flush()
}

func sortedKeys(m map[string]string) []string {
	return slices.Sorted(maps.Keys(m))
}
