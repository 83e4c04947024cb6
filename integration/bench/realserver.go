//go:build unix

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/realherdr"
)

// realServer is one real herdr server with a client of the bench's own,
// which types into panes and reads labels.
type realServer struct {
	srv    *realherdr.Server
	client *herdr.Client
	ws     string // the workspace that holds every tab
}

func startReal(bin, shell string) (*realServer, error) {
	srv, err := realherdr.Start(bin, realherdr.Options{Shell: shell})
	if err != nil {
		return nil, err
	}
	return &realServer{srv: srv, client: herdr.New(srv.Socket, herdr.WithTimeout(10*time.Second))}, nil
}

// close stops the server; one that leaves processes behind is reported,
// not fatal, since the figures are taken by then.
func (rs *realServer) close() {
	if err := rs.srv.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "bench: real herdr:", err)
	}
}

// writeRealRC writes shell's rc file in the server's home: a plain
// prompt, and the hook snippet in hooked/ only. Neither zsh nor bash sets
// a terminal title by itself.
func (w *world) writeRealRC(rs *realServer, shell string) error {
	hook, err := w.hookRC(shell)
	if err != nil {
		return err
	}
	var path, body string
	switch shell {
	case "zsh":
		path = filepath.Join(rs.srv.Home, ".zshrc")
		body = "PROMPT='$ '\ncase $PWD in */hooked) source '" + hook + "';; esac\n"
	case "bash":
		path = filepath.Join(rs.srv.Home, ".bashrc")
		body = "PS1='$ '\ncase $PWD in */hooked) source '" + hook + "';; esac\n"
	case "fish":
		path = filepath.Join(rs.srv.ConfigHome, "fish", "config.fish")
		body = "if string match -q '*/hooked' $PWD\n  source '" + hook + "'\nend\n"
	default:
		return fmt.Errorf("no rc file known for %s", shell)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(body), 0o600)
}

// realTab is a tab of one pane whose shell starts in the folder dir of the
// server's home; at the prompt the daemon names it dir.
type realTab struct{ dir, tab, pane string }

// target is the tab itself, as what a sample waits to see renamed.
func (t realTab) target() target { return target{id: t.tab} }

// openTabs opens a tab per name, in one workspace, each in its own folder
// with a sub/ to cd into.
func (rs *realServer) openTabs(names []string) ([]realTab, error) {
	var tabs []realTab
	for _, name := range names {
		dir := filepath.Join(rs.srv.Home, name)
		if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o700); err != nil {
			return nil, err
		}
		args := []string{"tab", "create", "--workspace", rs.ws, "--cwd", dir, "--no-focus"}
		if rs.ws == "" {
			args = []string{"workspace", "create", "--cwd", dir, "--no-focus"}
		}
		out, err := rs.srv.CLI(args...)
		if err != nil {
			return nil, err
		}
		var r struct {
			Result struct {
				Workspace herdr.Workspace `json:"workspace"`
				Tab       herdr.Tab       `json:"tab"`
				Pane      herdr.Pane      `json:"root_pane"`
			} `json:"result"`
		}
		if err := json.Unmarshal(out, &r); err != nil || r.Result.Tab.ID == "" || r.Result.Pane.ID == "" {
			return nil, fmt.Errorf("herdr %s answered %s (%v)", strings.Join(args[:2], " "), out, err)
		}
		if rs.ws == "" {
			rs.ws = r.Result.Workspace.ID
		}
		tabs = append(tabs, realTab{dir: name, tab: r.Result.Tab.ID, pane: r.Result.Pane.ID})
	}
	return tabs, nil
}

// split splits pane to its right, the new pane's shell starting in dir,
// as `herdr pane split --direction right` does, and returns the new pane.
func (rs *realServer) split(pane, dir string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var r struct {
		Pane herdr.Pane `json:"pane"`
	}
	if err := rs.client.Call(ctx, "pane.split", map[string]any{"target_pane_id": pane, "direction": "right", "cwd": dir}, &r); err != nil {
		return "", fmt.Errorf("split %s: %w", pane, err)
	}
	if r.Pane.ID == "" {
		return "", fmt.Errorf("split %s: herdr named no new pane", pane)
	}
	return r.Pane.ID, nil
}

// call sends one request on the bench's own client.
func (rs *realServer) call(method string, params map[string]any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return rs.client.Call(ctx, method, params, nil)
}

// typeLine types text and Enter into pane, as `herdr pane run` does.
func (rs *realServer) typeLine(pane, text string) func() error {
	return func() error {
		return rs.call("pane.send_input", map[string]any{"pane_id": pane, "text": text, "keys": []string{"Enter"}})
	}
}

// key presses one key in pane, as `herdr pane send-keys` does.
func (rs *realServer) key(pane, key string) func() error {
	return func() error { return rs.call("pane.send_keys", map[string]any{"pane_id": pane, "keys": []string{key}}) }
}

// report reports an agent's status in pane, as `herdr pane report-agent`
// does for an agent's own hooks.
func (rs *realServer) report(pane string, status herdr.AgentStatus) func() error {
	return func() error {
		return rs.call("pane.report_agent", map[string]any{"pane_id": pane, "source": "herdrtabrenamer-bench", "agent": "claude", "state": string(status)})
	}
}

// label is t's label now ("" when herdr does not answer).
func (rs *realServer) label(t target) string {
	return rs.labels()[t]
}

// labels is the label of every tab and pane now (none when herdr does
// not answer): herdr tells of no pane rename (docs/herdr.md §13), so a
// pane's label is only ever seen by reading it.
func (rs *realServer) labels() map[target]string {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	snap, err := rs.client.Snapshot(ctx)
	if err != nil {
		return nil
	}
	out := map[target]string{}
	for _, t := range snap.Tabs {
		out[target{id: t.ID}] = t.Label
	}
	for _, p := range snap.Panes {
		out[target{id: p.ID, pane: true}] = p.Label
	}
	return out
}

// hookRuns counts the runs of our plugin's event hook that herdr logged as
// succeeded.
func (rs *realServer) hookRuns() (int, error) {
	out, err := rs.srv.CLI("plugin", "log", "list", "--plugin", "herdrtabrenamer")
	if err != nil {
		return 0, err
	}
	var r struct {
		Result struct {
			Logs []struct {
				Event  string `json:"event"`
				Status string `json:"status"`
			} `json:"logs"`
		} `json:"result"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return 0, fmt.Errorf("herdr plugin log list answered %s: %w", out, err)
	}
	n := 0
	for _, l := range r.Result.Logs {
		if l.Event == "pane.agent_status_changed" && l.Status == "succeeded" {
			n++
		}
	}
	return n, nil
}

// herdrServerPID finds rs's `herdr server` process among those that carry
// its socket in their environment.
func herdrServerPID(rs *realServer) (int, error) {
	for _, p := range realherdr.Leftovers(rs.srv.Socket) {
		argv, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.PID))
		if err != nil {
			continue
		}
		if a := strings.Split(string(argv), "\x00"); len(a) >= 2 && a[0] == rs.srv.Bin && a[1] == "server" {
			return p.PID, nil
		}
	}
	return 0, fmt.Errorf("no `%s server` process found for %s (needs /proc)", rs.srv.Bin, rs.srv.Socket)
}
