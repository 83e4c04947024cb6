package herdr_test

// The client against herdrtest, the faithful fake, for every protocol it
// plays. An external test package: herdrtest imports herdr.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrtest"
)

const fastTick = 5 * time.Millisecond

var protocols = []struct {
	protocol int
	version  string
}{{17, "0.7.5"}, {19, "0.8.0"}, {20, "0.8.2"}, {22, "0.9.1"}}

func TestAgainstFake(t *testing.T) {
	for _, p := range protocols {
		t.Run(fmt.Sprint(p.protocol), func(t *testing.T) {
			srv := herdrtest.Start(t, herdrsim.WithProtocol(p.protocol), herdrsim.WithTick(fastTick))
			ws, tab1, pane1 := srv.NewWorkspace("repo", "/tmp")
			tab2, pane2 := srv.NewTab(ws, "/tmp")
			c := herdr.New(srv.SocketPath())
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()

			pong, err := c.Ping(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if pong.Protocol != p.protocol || pong.Version != p.version {
				t.Errorf("pong = %+v, want protocol %d version %s", pong, p.protocol, p.version)
			}

			snap, err := c.Snapshot(ctx)
			if err != nil {
				t.Fatal(err)
			}
			truth := srv.Snapshot()
			if snap.Protocol != p.protocol || len(snap.Workspaces) != len(truth.Workspaces) || len(snap.Tabs) != 2 || len(snap.Panes) != 2 {
				t.Fatalf("snapshot = %+v, truth %+v", snap, truth)
			}
			if snap.Tabs[0].ID != tab1 || snap.Tabs[1].ID != tab2 || snap.Tabs[1].Label != "2" || snap.Panes[1].ID != pane2 {
				t.Errorf("snapshot tabs/panes = %+v / %+v", snap.Tabs, snap.Panes)
			}
			if srv.Calls("session.snapshot") != 1 || srv.Calls("tab.list") != 0 {
				t.Errorf("snapshot took %d session.snapshot and %d tab.list calls", srv.Calls("session.snapshot"), srv.Calls("tab.list"))
			}

			panes, err := c.Panes(ctx, ws)
			if err != nil || len(panes) != 2 {
				t.Errorf("Panes = %v, %v", panes, err)
			}

			// Labels are stored raw; "" is a label, not a reset.
			for _, label := range []string{"build", "", "  spaced\tlabel "} {
				got, err := c.RenameTab(ctx, tab2, label)
				if err != nil {
					t.Fatal(err)
				}
				if got.Label != label || got.ID != tab2 {
					t.Errorf("RenameTab(%q) = %+v", label, got)
				}
				if tr, _ := srv.Tab(tab2); tr.Label != label {
					t.Errorf("server label %q, want %q", tr.Label, label)
				}
			}
			if r := srv.Renames(); len(r) != 3 || r[1].Label != "" || r[1].TabID != tab2 {
				t.Errorf("renames = %+v", r)
			}

			srv.SetShellPID(pane1, 4242)
			srv.SetForeground(pane1, herdrsim.Proc{PID: 4300, Argv: []string{"node", "", "/usr/local/bin/claude"}, Cwd: "/home/u/repo"})
			pi, err := c.ProcessInfo(ctx, pane1)
			if err != nil {
				t.Fatal(err)
			}
			if pi.PaneID != pane1 || pi.ShellPID != 4242 || pi.ForegroundPGID != 4300 || len(pi.ForegroundProcesses) != 1 {
				t.Fatalf("process info = %+v", pi)
			}
			if fp := pi.ForegroundProcesses[0]; fp.Name != "node" || fp.Cmdline != "node /usr/local/bin/claude" || len(fp.Argv) != 2 || fp.Cwd != "/home/u/repo" {
				t.Errorf("foreground process = %+v", fp)
			}

			_, err = c.RenameTab(ctx, ws+":t9", "x")
			if !herdr.IsCode(err, "tab_not_found") || !strings.Contains(err.Error(), "tab "+ws+":t9 not found") {
				t.Errorf("rename of a missing tab: %v", err)
			}
			if _, err := c.ProcessInfo(ctx, ws+":p9"); !herdr.IsCode(err, "pane_not_found") {
				t.Errorf("process_info of a missing pane: %v", err)
			}
			var ae *herdr.APIError
			if err := c.Call(ctx, "no.such.method", nil, nil); !errors.As(err, &ae) || ae.Code != "invalid_request" || ae.ID != "" {
				t.Errorf("unknown method: %v", err)
			}
		})
	}
}

// nextEvents reads n events; the stream's context bounds the wait.
func nextEvents(t *testing.T, s *herdr.Stream, n int) []herdr.Event {
	t.Helper()
	var evs []herdr.Event
	for range n {
		ev, err := s.Next()
		if err != nil {
			t.Fatalf("after %d events: %v", len(evs), err)
		}
		evs = append(evs, ev)
	}
	return evs
}

func TestSubscribeAgainstFake(t *testing.T) {
	for _, p := range protocols {
		t.Run(fmt.Sprint(p.protocol), func(t *testing.T) {
			srv := herdrtest.Start(t, herdrsim.WithProtocol(p.protocol), herdrsim.WithTick(fastTick))
			ws, tab1, pane1 := srv.NewWorkspace("repo", "/tmp")
			tab2, _ := srv.NewTab(ws, "/tmp")
			c := herdr.New(srv.SocketPath())
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			for _, l := range []string{"one", "two"} {
				if _, err := c.RenameTab(ctx, tab1, l); err != nil {
					t.Fatal(err)
				}
			}

			s, err := c.Subscribe(ctx, []herdr.Subscription{
				{Type: "tab.renamed"},
				{Type: "pane.agent_status_changed", PaneID: pane1},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			// Up to 20 the backlog replays, oldest first; 22 starts live
			// (docs/herdr.md §7), so the next event is the live one below.
			if p.protocol <= 20 {
				evs := nextEvents(t, s, 2)
				for i, want := range []string{"one", "two"} {
					if evs[i].Kind != "tab.renamed" || evs[i].TabID != tab1 || evs[i].Label != want || evs[i].WorkspaceID != ws {
						t.Errorf("replayed event %d = %+v, want tab.renamed %s", i, evs[i], want)
					}
				}
			}
			// Live: a human rename, then the per-pane dialect.
			srv.HumanRename(tab2, "  by hand ")
			if ev := nextEvents(t, s, 1)[0]; ev.Kind != "tab.renamed" || ev.TabID != tab2 || ev.Label != "by hand" {
				t.Errorf("live rename = %+v", ev)
			}
			srv.SetAgent(pane1, "claude", herdr.StatusWorking)
			if ev := nextEvents(t, s, 1)[0]; ev.Kind != "pane.agent_status_changed" || ev.PaneID != pane1 {
				t.Errorf("status event = %+v", ev)
			}

			// A restart mid-stream ends the stream at a line boundary;
			// a new subscription works and replays nothing old.
			if err := srv.Stop(); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Next(); !errors.Is(err, herdr.ErrStreamEnded) {
				t.Fatalf("after Stop: %v, want ErrStreamEnded", err)
			}
			if _, err := c.Ping(ctx); !errors.Is(err, herdr.ErrNotRunning) {
				t.Errorf("Ping while stopped: %v, want ErrNotRunning", err)
			}
			if err := srv.Restart(); err != nil {
				t.Fatal(err)
			}
			s2, err := c.Subscribe(ctx, []herdr.Subscription{{Type: "tab.renamed"}})
			if err != nil {
				t.Fatal(err)
			}
			defer s2.Close()
			if _, err := c.RenameTab(ctx, tab1, "after"); err != nil {
				t.Fatal(err)
			}
			if ev := nextEvents(t, s2, 1)[0]; ev.Label != "after" {
				t.Errorf("first event after restart = %+v, want only the new rename", ev)
			}

			// Cancelling the context ends the stream without a byte sent.
			sctx, scancel := context.WithCancel(ctx)
			s3, err := c.Subscribe(sctx, []herdr.Subscription{{Type: "pane.exited"}})
			if err != nil {
				t.Fatal(err)
			}
			scancel()
			if _, err := s3.Next(); !errors.Is(err, context.Canceled) {
				t.Errorf("after cancel: %v", err)
			}

			_, err = c.Subscribe(ctx, []herdr.Subscription{{Type: "tab.renamed"}, {Type: "pane.agent_status_changed", PaneID: ws + ":p9"}})
			var ae *herdr.APIError
			if !errors.As(err, &ae) || ae.Code != "pane_not_found" || !strings.HasSuffix(ae.ID, ":sub:1:probe") {
				t.Errorf("probe error = %v (%+v)", err, ae)
			}
		})
	}
}

func TestFaultsFromFake(t *testing.T) {
	tests := []struct {
		fault herdrsim.Fault
		want  string
	}{
		{herdrsim.FaultGarbage, "reply is not a JSON reply object"},
		{herdrsim.FaultCloseNoAnswer, "connection closed before a reply line"},
		{herdrsim.FaultReset, "connection reset"},
		{herdrsim.FaultCutLine, "connection closed mid-line"},
		// Over herdr's 1 MiB request limit is fine for a reply: it is read
		// whole, then refused for its type.
		{herdrsim.FaultOversize, `unexpected result type "ok"`},
	}
	for _, tt := range tests {
		t.Run(tt.fault.String(), func(t *testing.T) {
			srv := herdrtest.Start(t, herdrsim.WithTick(fastTick))
			srv.InjectFault("ping", tt.fault, 1)
			c := herdr.New(srv.SocketPath())
			_, err := c.Ping(context.Background())
			var te *herdr.TransportError
			if !errors.As(err, &te) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want a TransportError with %q", err, tt.want)
			}
			if _, err := c.Ping(context.Background()); err != nil {
				t.Errorf("the next call should work: %v", err)
			}
		})
	}
	t.Run("latency past the deadline", func(t *testing.T) {
		srv := herdrtest.Start(t)
		srv.SetLatency("ping", time.Second)
		_, err := herdr.New(srv.SocketPath(), herdr.WithTimeout(50*time.Millisecond)).Ping(context.Background())
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want DeadlineExceeded", err)
		}
	})
}

// TestSchemaInvalidReplyIsCaught proves the fake's schema check can fail:
// a reply the schema rejects is recorded as a violation.
func TestSchemaInvalidReplyIsCaught(t *testing.T) {
	herdrtest.SchemaFile(t, herdrsim.NewestProtocol)
	srv, err := herdrtest.New(herdrsim.WithTick(fastTick))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ws, _, _ := srv.NewWorkspace("w", "/tmp")
	tab, _ := srv.NewTab(ws, "/tmp")
	srv.InjectFault("tab.rename", herdrsim.FaultSchemaInvalid, 1)
	_, err = herdr.New(srv.SocketPath()).RenameTab(context.Background(), tab, "x")
	if err == nil {
		t.Error("a tab_info with a numeric tab_id decoded without error")
	}
	if v := srv.Violations(); len(v) == 0 {
		t.Error("the fake did not record the schema-invalid reply")
	}
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) { s.mu.Lock(); defer s.mu.Unlock(); return s.b.Write(p) }
func (s *syncBuf) String() string              { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

func TestNewerProtocolAgainstFake(t *testing.T) {
	srv := herdrtest.Start(t, herdrsim.WithProtocol(23), herdrsim.WithTick(fastTick))
	ws, _, _ := srv.NewWorkspace("repo", "/tmp")
	var buf syncBuf
	c := herdr.New(srv.SocketPath(), herdr.WithLogger(slog.New(slog.NewTextHandler(&buf, nil))))
	ctx := context.Background()
	for range 2 {
		p, err := c.Ping(ctx)
		if err != nil || p.Protocol != 23 {
			t.Fatalf("ping = %+v, %v", p, err)
		}
	}
	s, err := c.Snapshot(ctx)
	if err != nil || len(s.Workspaces) != 1 || s.Workspaces[0].ID != ws {
		t.Fatalf("snapshot on 23 = %+v, %v", s, err)
	}
	if out := buf.String(); strings.Count(out, "level=WARN") != 1 || !strings.Contains(out, "protocol=23") {
		t.Errorf("want one warning naming protocol 23, got: %s", out)
	}
}
