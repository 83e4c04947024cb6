package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/herdrtabrenamer/herdrtabrenamer/config"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
)

// NudgeCmd sends one datagram to the daemon. It runs on every shell prompt,
// so it does no socket call to herdr and never waits for an answer.
type NudgeCmd struct {
	PaneID string `arg:"" optional:"" name:"PANE_ID" help:"Pane to look at, e.g. w1:p3 (default: $HERDR_PANE_ID, which herdr sets in panes and in plugin event hooks)."`
	When   string `help:"Hook point: preexec (a program is about to start), precmd (back at the prompt) or agent (an agent's status changed: herdr's plugin event hook)." enum:",preexec,precmd,agent" default:"" env:"-"`
	Quiet  bool   `help:"Print nothing and exit 0 even when no daemon runs (for shell hooks)." env:"-"`
}

// Run sends the nudge. Exit 2: bad pane id; exit 3: no daemon.
func (c *NudgeCmd) Run(g *Globals, env *runEnv) error {
	err := c.send(g, env)
	if c.Quiet {
		return nil
	}
	if errors.Is(err, nudge.ErrNoDaemon) {
		return withExit(3, fmt.Errorf("%w; start one with herdrtabrenamer run --apply (herdrtabrenamer status shows what runs)", err))
	}
	return err
}

func (c *NudgeCmd) send(g *Globals, env *runEnv) error {
	if c.PaneID == "" {
		if c.PaneID = env.getenv("HERDR_PANE_ID"); c.PaneID == "" {
			return withExit(2, errors.New("nudge: no PANE_ID given and $HERDR_PANE_ID is not set (run it inside herdr, or name the pane: w1:p3)"))
		}
	}
	if _, _, err := herdr.ParsePaneID(c.PaneID); err != nil {
		return withExit(2, err)
	}
	sock, err := herdr.ResolveSocketPath(g.Socket, env.lookup)
	if err != nil {
		return withExit(2, fmt.Errorf("nudge: %w", err))
	}
	return nudge.Send(nudge.SocketPath(sock), c.PaneID, nudge.When(c.When))
}

// hookNudge recognises the argument shapes the shell hooks and scripts
// send (`nudge [--quiet] [--when preexec|precmd] [--socket PATH] [PANE_ID]`;
// herdr's plugin event hook leaves PANE_ID to $HERDR_PANE_ID).
// Anything else, or anything odd, goes through kong as usual.
func hookNudge(args []string) (*NudgeCmd, *Globals, bool) {
	if len(args) < 1 || args[0] != "nudge" {
		return nil, nil, false
	}
	c, g := &NudgeCmd{}, &Globals{}
	socketFlag := false
	for i := 1; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--quiet":
			c.Quiet = true
		case a == "--socket" && i+1 < len(args):
			i++
			g.Socket, socketFlag = args[i], true
		case strings.HasPrefix(a, "--socket="):
			g.Socket, socketFlag = strings.TrimPrefix(a, "--socket="), true
		case a == "--when" && i+1 < len(args):
			i++
			c.When = args[i]
		case strings.HasPrefix(a, "--when="):
			c.When = strings.TrimPrefix(a, "--when=")
		case strings.HasPrefix(a, "-") || c.PaneID != "":
			return nil, nil, false
		default:
			c.PaneID = a
		}
	}
	if c.PaneID == "" {
		c.PaneID = os.Getenv("HERDR_PANE_ID")
	}
	if c.PaneID == "" {
		return nil, nil, false
	}
	// kong reads the socket from the environment too (flag > env); so
	// must the fast path, or it nudges a socket no daemon listens on.
	if !socketFlag {
		g.Socket = os.Getenv("HERDRTABRENAMER_SOCKET")
		if g.Socket == "" {
			sock, err := config.Socket(configPathFromArgs(nil))
			if err != nil {
				return nil, nil, false // let kong report it (or stay quiet)
			}
			g.Socket = sock
		}
	}
	if _, err := nudge.ParseWhen(c.When); err != nil {
		return nil, nil, false
	}
	return c, g, true
}

// runFast is Run without kong: the same checks, messages and exit codes.
func (c *NudgeCmd) runFast(g *Globals, stderr io.Writer) int {
	err := c.Run(g, &runEnv{stderr: stderr})
	if err == nil {
		return 0
	}
	code := 1
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	fmt.Fprintf(stderr, "herdrtabrenamer: %v\n", err)
	return code
}
