package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrtest"
)

// TestExplainNotify runs the plugin's "Why this name?" action as herdr
// does: the tab comes from $HERDR_TAB_ID and the answer goes to herdr as
// notification.show; herdr's refusal is an error the plugin log shows.
func TestExplainNotify(t *testing.T) {
	srv := herdrtest.Start(t)
	_, tab, pane := srv.NewWorkspace("work", t.TempDir())
	srv.SetForeground(pane, herdrsim.Proc{Argv: []string{"btop"}})
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	t.Setenv("HERDR_SOCKET_PATH", srv.SocketPath())
	answer := func(shown bool, reason string) {
		srv.RewriteResponses(func(method string, line []byte) []byte {
			if method != "notification.show" {
				return line
			}
			var req struct {
				ID string `json:"id"`
			}
			_ = json.Unmarshal(line, &req)
			b, _ := json.Marshal(map[string]any{"id": req.ID, "result": map[string]any{
				"type": "notification_show", "shown": shown, "reason": reason}})
			return b
		})
	}
	tests := []struct {
		name   string
		tabEnv string
		args   []string
		shown  bool
		reason string
		code   int
		out    string // in stdout
		err    string // in stderr
	}{
		{"shown", tab, nil, true, "shown", 0, `"1" is herdr's` + "\n" + `wants "btop" (would rename); lead pane ` + pane, ""},
		{"toasts off", tab, nil, false, "disabled", 1, `wants "btop"`, `did not show the notification (disabled): herdr's toasts are off, set delivery = "herdr" under [ui.toast]`},
		{"tab argument", "", []string{tab}, true, "shown", 0, `"1" is herdr's`, ""},
		{"no tab", "", nil, true, "shown", 2, "", "$HERDR_TAB_ID is not set"},
		{"bad tab", "w1:x", nil, true, "shown", 2, "", "w1:x"},
		{"json", tab, []string{"--json"}, true, "shown", 2, "", "--notify and --json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("HERDR_TAB_ID", tt.tabEnv)
			answer(tt.shown, tt.reason)
			before := srv.Calls("notification.show")
			var stdout, stderr bytes.Buffer
			code := Main(append([]string{"explain", "--notify"}, tt.args...), &stdout, &stderr)
			if code != tt.code || !strings.Contains(stdout.String(), tt.out) || !strings.Contains(stderr.String(), tt.err) {
				t.Fatalf("exit %d, want %d\nstdout %q, want %q in it\nstderr %q, want %q in it", code, tt.code, stdout.String(), tt.out, stderr.String(), tt.err)
			}
			if sent := srv.Calls("notification.show") - before; (tt.code != 2) != (sent == 1) {
				t.Errorf("%d notification.show calls", sent)
			}
		})
	}
}
