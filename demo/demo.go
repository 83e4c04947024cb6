// Package demo plays a short story on a built-in herdr simulator
// (herdr/herdrsim), so a newcomer sees what the tool does without herdr
// installed: after each step it runs the real pass code and prints the
// tab bar herdr would show.
//
// # Who calls what
//
// Run belongs to the goroutine that calls it; the simulator and the
// daemon it starts are that goroutine's, and are gone when it returns.
package demo

import (
	"context"
	"fmt"
	"github.com/herdrtabrenamer/herdrtabrenamer/pass"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/daemon"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// Options are the demo's: the template it names tabs with, their
// longest name, and the pause between steps.
type Options struct {
	Format string
	MaxLen int
	Pause  time.Duration
}

// BadTemplate is an error in the template the demo was given: a usage
// error.
type BadTemplate struct{ Err error }

func (e *BadTemplate) Error() string { return e.Err.Error() }
func (e *BadTemplate) Unwrap() error { return e.Err }

// demoStep is one moment of the story: what happens, then the tab bar.
type demoStep struct {
	say string
	do  func(s *herdrsim.Server)
}

// Run starts the simulator, runs the real pass code after each step and
// prints the tab bar herdr would show to out.
func Run(c Options, out io.Writer) error {
	srv, err := herdrsim.New(herdrsim.WithProtocol(herdrsim.NewestProtocol)) // herdr 0.9.x, 100 ms read poll on
	if err != nil {
		return fmt.Errorf("demo: start the herdr simulator: %w", err)
	}
	defer srv.Close()
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		home = "/home/you"
	}
	d, err := c.newDaemon(srv, home)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "herdrtabrenamer demo: a simulated herdr session, named with --format %q\n", c.Format)
	fmt.Fprintf(out, "herdr itself would call every tab by its number.\n\n")
	if err := c.play(out, srv, d, demoSteps(home)); err != nil {
		return err
	}
	if v := srv.Violations(); len(v) > 0 {
		return fmt.Errorf("demo: the simulator saw %d protocol violation(s), first: %s", len(v), v[0])
	}
	fmt.Fprintln(out, "Inside herdr: herdrtabrenamer run --apply   (hooks and the plugin: docs/hooks.md)")
	return nil
}

// newDaemon builds the daemon the demo runs against the simulator, with
// the demo's format and width.
func (c Options) newDaemon(srv *herdrsim.Server, home string) (*daemon.Daemon, error) {
	nm, err := namer.New(namer.Config{Format: c.Format, MaxLen: c.MaxLen, Home: home})
	if err != nil {
		return nil, &BadTemplate{err}
	}
	procs, err := procinfo.New(procinfo.Options{}, nil)
	if err != nil {
		return nil, err
	}
	// No local /proc look: the simulator's processes are made up.
	return daemon.New(daemon.Options{Socket: srv.SocketPath(), Naming: pass.Config{Namer: nm, Procs: procs, Apply: true}})
}

// play runs each step, then one pass, then prints the tab bar.
func (c Options) play(out io.Writer, srv *herdrsim.Server, d *daemon.Daemon, steps []demoStep) error {
	ctx := context.Background()
	for i, st := range steps {
		st.do(srv)
		if _, err := d.Once(ctx); err != nil {
			return fmt.Errorf("demo step %d: %w", i+1, err)
		}
		fmt.Fprintf(out, "%d. %s\n   %s\n\n", i+1, st.say, tabBar(srv.Snapshot()))
		if c.Pause > 0 {
			time.Sleep(c.Pause)
		}
	}
	return nil
}

// demoSteps is the story, in folders under home. The steps share
// the workspace, panes and tab that earlier steps create.
func demoSteps(home string) []demoStep {
	var ws, nixPane, btopPane, piPane, nixTab string
	rmk := filepath.Join(home, "projects", "rmk")
	nixos := filepath.Join(home, "opt", "nixos")
	return []demoStep{
		{"You open herdr in ~/projects/rmk: a shell, so the tab shows the directory.", func(s *herdrsim.Server) {
			var rmkPane string
			ws, _, rmkPane = s.NewWorkspace("demo", rmk)
			s.SetShellPID(rmkPane, 101)
		}},
		{"A second tab in ~/opt/nixos, where you start claude. It gets to work.", func(s *herdrsim.Server) {
			nixTab, nixPane = s.NewTab(ws, nixos)
			s.SetShellPID(nixPane, 201)
			s.SetForeground(nixPane, herdrsim.Proc{PID: 202, Argv: []string{"node", "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js"}, Cwd: nixos})
			s.SetAgent(nixPane, "claude", herdr.StatusWorking)
		}},
		{"A third tab, back in ~/projects/rmk: you run btop there.", func(s *herdrsim.Server) {
			_, btopPane = s.NewTab(ws, rmk)
			s.SetShellPID(btopPane, 301)
			s.SetForeground(btopPane, herdrsim.Proc{PID: 302, Argv: []string{"btop"}, Cwd: rmk})
			s.Focus(btopPane)
		}},
		{"claude needs your answer.", func(s *herdrsim.Server) { s.SetAgent(nixPane, "claude", herdr.StatusBlocked) }},
		{"You answer; claude works, then is done.", func(s *herdrsim.Server) { s.SetAgent(nixPane, "claude", herdr.StatusDone) }},
		{"You quit btop: the shell is back, so is the directory.", func(s *herdrsim.Server) { s.SetForeground(btopPane) }},
		{"A fourth tab: the pi agent in ~/pi.", func(s *herdrsim.Server) {
			_, piPane = s.NewTab(ws, filepath.Join(home, "pi"))
			s.SetShellPID(piPane, 401)
			s.SetForeground(piPane, herdrsim.Proc{PID: 402, Argv: []string{"pi"}, Cwd: filepath.Join(home, "pi")})
			s.SetAgent(piPane, "pi", herdr.StatusIdle)
		}},
		{"You rename the claude tab to \"review\" yourself. Names a person chose are never touched:", func(s *herdrsim.Server) {
			s.HumanRename(nixTab, "review")
		}},
		{"...not even when claude starts working again.", func(s *herdrsim.Server) { s.SetAgent(nixPane, "claude", herdr.StatusWorking) }},
	}
}

// tabBar draws the tabs of the first workspace like herdr's tab bar,
// the focused one in brackets.
func tabBar(s herdr.Snapshot) string {
	var b strings.Builder
	for _, t := range s.Tabs {
		if t.Focused {
			fmt.Fprintf(&b, "[ %s ] ", t.Label)
		} else {
			fmt.Fprintf(&b, "  %s   ", t.Label)
		}
	}
	return strings.TrimRight(b.String(), " ")
}
