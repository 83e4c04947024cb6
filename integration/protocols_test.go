package integration

import (
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
)

// The scenarios whose wire traffic differs between herdr releases (replay
// or live subscriptions, one event per tick or bursts, closed events on
// pane exit, the foreground_cwd rule), run on every played protocol.

// TestProtocolProgramStart: a shell tab is named after its directory, a
// program started in it (shell hook nudge) renames it, and its exit
// brings the directory back.
func TestProtocolProgramStart(t *testing.T) {
	t.Parallel()
	onProtocols(t, func(t *testing.T, srv *herdrsim.Server) {
		sb := newSandbox(t)
		_, tab, pane := srv.NewWorkspace("work", sb.HomePath("projects", "rmk"))
		d := startDaemonIn(t, sb, srv)
		waitRenames(t, srv, tab+"=rmk")
		srv.SetForeground(pane, herdrsim.Proc{Argv: []string{"btop"}})
		d.Nudge(t, "preexec", pane)
		waitRenames(t, srv, tab+"=rmk", tab+"=btop")
		srv.SetForeground(pane)
		d.Nudge(t, "precmd", pane)
		waitRenames(t, srv, tab+"=rmk", tab+"=btop", tab+"=rmk")
	})
}

// TestProtocolHumanLabel: a name a person typed in herdr survives the
// events it causes, later changes and passes.
func TestProtocolHumanLabel(t *testing.T) {
	t.Parallel()
	onProtocols(t, func(t *testing.T, srv *herdrsim.Server) {
		sb := newSandbox(t)
		ws, t1, p1 := srv.NewWorkspace("work", sb.HomePath("projects", "rmk"))
		t2, p2 := srv.NewTab(ws, sb.HomePath("opt", "nixos"))
		startDaemonIn(t, sb, srv)
		waitLabels(t, srv, "rmk", "nixos")
		srv.HumanRename(t1, "mine")
		srv.SetCwd(p1, sb.HomePath("src"))
		srv.SetAgent(p1, "claude", herdr.StatusWorking)
		srv.SetCwd(p2, sb.HomePath("opt", "dots"))
		waitLabel(t, srv, t2, "dots")
		waitPasses(t, srv, 2)
		if got := label(srv, t1); got != "mine" {
			t.Fatalf("person's name replaced by %q", got)
		}
	})
}

// TestProtocolEventsDelivered: with polling off, only herdr's event stream
// can tell the daemon about a new tab, a tab whose last pane exited, and
// an agent appearing.
func TestProtocolEventsDelivered(t *testing.T) {
	t.Parallel()
	onProtocols(t, func(t *testing.T, srv *herdrsim.Server) {
		sb := newSandbox(t)
		ws, _, _ := srv.NewWorkspace("work", sb.HomePath("projects", "rmk"))
		startDaemonIn(t, sb, srv, "--poll", "0", "--format", "{icon} {dir}")
		waitLabels(t, srv, "rmk")
		t2, p2 := srv.NewTab(ws, sb.HomePath("opt", "nixos"))
		waitLabels(t, srv, "rmk", "nixos")
		t3, _ := srv.NewTab(ws, sb.HomePath("pi"))
		waitLabels(t, srv, "rmk", "nixos", "pi")
		srv.SetAgent(p2, "claude", herdr.StatusWorking) // pane.agent_detected
		waitLabel(t, srv, t2, "🟡 nixos")
		srv.ExitPane(p2) // the tab goes; 22 says tab.closed, older only pane.exited
		waitLabels(t, srv, "rmk", "pi")
		if got := label(srv, t3); got != "pi" {
			t.Fatalf("tab %s label %q", t3, got)
		}
	})
}

// TestProtocolReconnect: herdr restarts under a running daemon (events
// only, no polling); the daemon reconnects, resubscribes and names the
// tabs opened after the restart.
func TestProtocolReconnect(t *testing.T) {
	t.Parallel()
	onProtocols(t, func(t *testing.T, srv *herdrsim.Server) {
		sb := newSandbox(t)
		ws, _, _ := srv.NewWorkspace("work", sb.HomePath("projects", "rmk"))
		d := startDaemonIn(t, sb, srv, "--poll", "0")
		waitLabels(t, srv, "rmk")
		subscribes := srv.Calls("events.subscribe")
		if err := srv.Restart(); err != nil {
			t.Fatal(err)
		}
		if !poll(waitTimeout, func() bool { return srv.Calls("events.subscribe") > subscribes }) {
			t.Fatalf("no resubscribe after the restart\n%s", d.Log())
		}
		// The pass after the resubscribe may already see this tab; the
		// next one, opened after it was named, only an event can announce.
		srv.NewTab(ws, sb.HomePath("opt", "nixos"))
		waitLabels(t, srv, "rmk", "nixos")
		srv.NewTab(ws, sb.HomePath("pi"))
		waitLabels(t, srv, "rmk", "nixos", "pi")
	})
}
