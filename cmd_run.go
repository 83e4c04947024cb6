package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/herdrtabrenamer/herdrtabrenamer/pass"
	"github.com/herdrtabrenamer/herdrtabrenamer/setup"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"text/tabwriter"

	"github.com/herdrtabrenamer/herdrtabrenamer/daemon"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// RunCmd is the daemon.
type RunCmd struct {
	setup.NamingFlags `embed:""`
	Apply             bool `help:"Rename tabs (without it: dry run, print only new decisions)."`
	setup.DaemonFlags `embed:""`
	IfNotRunning      bool `help:"Exit 0 quietly when a daemon already serves this herdr (for startup hooks)." env:"-"`
}

// OnceCmd is one pass.
type OnceCmd struct {
	setup.NamingFlags `embed:""`
	Apply             bool `help:"Rename tabs (without it: dry run, print what would change)."`
}

// ExplainCmd shows decisions without renaming.
type ExplainCmd struct {
	setup.NamingFlags `embed:""`
	TabID             string `arg:"" optional:"" name:"TAB_ID" help:"Only this tab, e.g. w1:t2."`
	Pane              string `help:"A pane instead of a tab, e.g. w1:p3 (herdr pane list shows them; explain needs --pane-format)." placeholder:"ID" env:"-"`
	JSON              bool   `help:"Print JSON instead of a table." env:"-"`
	Notify            bool   `help:"Show one tab's decision as a herdr notification (the plugin's \"Why this name?\"; TAB_ID defaults to $HERDR_TAB_ID)." env:"-"`
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
	if errors.Is(err, daemon.ErrAlreadyRunning) {
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
// status (daemon.RecordReload).
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
				daemon.RecordReload(log, sock, err)
				continue
			}
			renv := *env
			renv.config = cf
			no, err := cli.Run.build(&cli.Globals, &renv)
			daemon.RecordReload(log, sock, err)
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

// build is the daemon's options as run builds them, from its flags, the
// global flags and env: what status checks too.
func (c *RunCmd) build(g *Globals, env *runEnv) (daemon.Options, error) {
	opt, err := newOptions(&c.NamingFlags, g, env)
	if err != nil {
		return opt, err
	}
	opt.Naming.Apply = c.Apply
	if opt, err = c.DaemonFlags.Daemon(opt, env.setup()); err != nil {
		return opt, withExit(2, err)
	}
	return opt, nil
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
