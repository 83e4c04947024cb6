package integration

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/realherdr"
)

// TestRealHerdrPlugin links the plugin that `init herdr-plugin` writes for
// the built binary into a real herdr, as a person does with `herdr plugin
// link`: herdr loads it without warnings, its [[startup]] hook starts
// exactly one daemon when the server starts, the [[events]] hook runs
// `nudge` when an agent's status changes, every action runs through herdr,
// and once the plugin is unlinked nothing of it keeps running. herdrsim has
// no plugin runtime; TestPluginInstall plays herdr's part for the
// committed manifest.
func TestRealHerdrPlugin(t *testing.T) {
	t.Parallel()
	// herdr's toasts are off unless configured; "Why this name?" shows one.
	w := newRealWorld(t, worldOptions{HerdrConfig: "[ui.toast]\ndelivery = \"herdr\"\n"})
	sb := w.Sandbox()
	dir := filepath.Join(t.TempDir(), "plugin")
	if _, stderr, code := runCLI(t, sb, "init", "herdr-plugin", dir); code != 0 {
		t.Fatalf("init herdr-plugin: exit %d: %s", code, stderr)
	}
	// The plugin's daemon reads its settings from the config file, as a
	// person's would: no polling, so a rename after an agent's status
	// change comes from the event hook's nudge.
	writeFile(t, filepath.Join(sb.ConfigHome, "herdrtabrenamer", "config.toml"), "format = \"{icon}{proc|dir}\"\npoll = \"0\"\n")
	w.cliJSON(t, nil, "plugin", "link", dir)
	var list struct {
		Plugins []struct {
			ID       string   `json:"plugin_id"`
			Enabled  bool     `json:"enabled"`
			Warnings []string `json:"warnings"`
		} `json:"plugins"`
	}
	w.cliJSON(t, &list, "plugin", "list", "--json")
	if len(list.Plugins) != 1 || list.Plugins[0].ID != "herdrtabrenamer" || !list.Plugins[0].Enabled || len(list.Plugins[0].Warnings) > 0 {
		t.Fatalf("herdr plugin list = %+v, want herdrtabrenamer enabled without warnings", list.Plugins)
	}

	dirs := mkdirs(t, sb, "projects/rmk", "opt/nixos")
	ws, t1, p1 := w.NewWorkspace(t, dirs[0])
	t2, _ := w.NewTab(t, ws, dirs[1])
	// [[startup]] runs when the server starts.
	w.Restart(t)
	waitWorldLabels(t, w, ws, "rmk", "nixos")
	if got := daemons(w); len(got) != 1 {
		t.Fatalf("daemons after the server started = %v, want exactly one", got)
	}

	w.cliJSON(t, nil, "pane", "report-agent", p1, "--source", "herdrtabrenamer-test", "--agent", "claude", "--state", "working")
	waitWorldLabel(t, w, t1, "🟡rmk")
	waitPluginLog(t, w, func(e pluginLogEntry) bool { return e.Event == "pane.agent_status_changed" })

	invokeAction(t, w, "rename-now", t2)
	invokeAction(t, w, "lock-tab", t2)
	w.PersonRename(t, t1, "notes")
	invokeAction(t, w, "release-tab", t1)
	waitWorldLabel(t, w, t1, "🟡rmk")
	invokeAction(t, w, "why-name", t1)
	if got := daemons(w); len(got) != 1 {
		t.Fatalf("daemons after the actions = %v, want exactly one", got)
	}
	invokeAction(t, w, "restore", "")
	waitWorldLabels(t, w, ws, "1", "nixos")

	// The restore stopped the daemon; a new server start brings one back,
	// and unlinking the plugin must end it.
	w.Restart(t)
	if !poll(waitTimeout, func() bool { return len(daemons(w)) == 1 }) {
		t.Fatalf("daemons after a second server start = %v, want one", daemons(w))
	}
	w.cliJSON(t, nil, "plugin", "unlink", "herdrtabrenamer")
	if !poll(waitTimeout, func() bool { return len(daemons(w)) == 0 }) {
		t.Fatalf("after herdr plugin unlink these still run: %v", daemons(w))
	}
}

// daemons are the herdrtabrenamer processes started inside w's server.
func daemons(w *realWorld) []realherdr.Process {
	var out []realherdr.Process
	for _, p := range realherdr.Leftovers(w.Socket()) {
		if strings.HasPrefix(p.Comm, "herdrtabrename") { // comm is cut at 15 bytes
			out = append(out, p)
		}
	}
	return out
}

// pluginLogEntry is one command herdr ran for a plugin.
type pluginLogEntry struct {
	LogID    string `json:"log_id"`
	ActionID string `json:"action_id"`
	Event    string `json:"event"`
	Status   string `json:"status"`
	ExitCode *int   `json:"exit_code"`
	Stderr   string `json:"stderr"`
	Error    string `json:"error"`
}

// pluginLog is what herdr recorded of our plugin's commands.
func pluginLog(t *testing.T, w *realWorld) []pluginLogEntry {
	t.Helper()
	var r struct {
		Logs []pluginLogEntry `json:"logs"`
	}
	w.cliJSON(t, &r, "plugin", "log", "list", "--plugin", "herdrtabrenamer")
	return r.Logs
}

// waitPluginLog waits for a finished command that match selects, and
// fails unless it exited 0.
func waitPluginLog(t *testing.T, w *realWorld, match func(pluginLogEntry) bool) {
	t.Helper()
	var found *pluginLogEntry
	ok := poll(waitTimeout, func() bool {
		for _, e := range pluginLog(t, w) {
			if match(e) && e.Status != "running" {
				found = &e
				return true
			}
		}
		return false
	})
	if !ok {
		t.Fatalf("herdr ran no such plugin command; log: %+v", pluginLog(t, w))
	}
	if found.ExitCode == nil || *found.ExitCode != 0 {
		t.Fatalf("plugin command %+v did not exit 0", *found)
	}
}

// invokeAction runs one of the plugin's actions through herdr, with tab as
// the context's tab (none if empty), and waits for it to exit 0.
func invokeAction(t *testing.T, w *realWorld, action, tab string) {
	t.Helper()
	before := map[string]bool{}
	for _, e := range pluginLog(t, w) {
		before[e.LogID] = true
	}
	ctxInfo := map[string]any{"invocation_source": "cli"}
	if tab != "" {
		ctxInfo["tab_id"] = tab
		ctxInfo["workspace_id"] = tab[:strings.IndexByte(tab, ':')]
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var res json.RawMessage
	params := map[string]any{"action_id": action, "plugin_id": "herdrtabrenamer", "context": ctxInfo}
	if err := w.client.Call(ctx, "plugin.action.invoke", params, &res); err != nil {
		t.Fatalf("plugin.action.invoke %s: %v", action, err)
	}
	waitPluginLog(t, w, func(e pluginLogEntry) bool { return e.ActionID == action && !before[e.LogID] })
}
