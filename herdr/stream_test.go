package herdr

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

const ackLine = `{"id":"htr-1","result":{"type":"subscription_started"}}` + "\n"

func TestNormalizeEventKind(t *testing.T) {
	tests := []struct{ in, want string }{
		{"tab_renamed", "tab.renamed"},
		{"pane_agent_status_changed", "pane.agent_status_changed"},
		{"workspace_metadata_updated", "workspace.metadata_updated"},
		{"pane_agent_detected", "pane.agent_detected"},
		{"pane_output_changed", "pane.output_changed"},
		{"workspace_reordered", "workspace.reordered"},
		{"layout_updated", "layout.updated"},
		{"worktree_opened", "worktree.opened"},
		{"pane.agent_status_changed", "pane.agent_status_changed"},
		{"pane.scroll_changed", "pane.scroll_changed"},
		{"tab.renamed", "tab.renamed"},
		// Unknown kinds from a newer herdr: split after the noun.
		{"tab_pinned_somehow", "tab.pinned_somehow"},
		{"session_saved", "session_saved"},
		{"pane_", "pane_"},
	}
	for _, tt := range tests {
		if got := NormalizeEventKind(tt.in); got != tt.want {
			t.Errorf("NormalizeEventKind(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	// Every known dotted kind survives the snake_case round trip.
	for _, k := range eventKinds {
		if got := NormalizeEventKind(strings.Replace(string(k), ".", "_", 1)); got != string(k) {
			t.Errorf("round trip of %q gave %q", k, got)
		}
	}
}

func TestSubscribeStream(t *testing.T) {
	var req wireRequest
	srv := startRaw(t, func(c *rawConn) {
		req, _ = c.readRequest()
		c.write(ackLine)
		// Both dialects, alphabetical keys as herdr writes them, with a
		// blank line and a CRLF in between; then the server goes away.
		c.write(`{"data":{"label":"build","tab_id":"w1:t2","type":"tab_renamed","workspace_id":"w1"},"event":"tab_renamed"}` + "\n")
		c.write("\n")
		c.write(`{"data":{"agent":"claude","agent_status":"done","pane_id":"w1:p1","workspace_id":"w1"},"event":"pane.agent_status_changed"}` + "\r\n")
		c.write(`{"data":{"tab":{"agent_status":"unknown","focused":false,"label":"3","number":3,"pane_count":1,"tab_id":"w1:t3","workspace_id":"w1"},"type":"tab_created"},"event":"tab_created"}` + "\n")
		c.write(`{"data":{"pane":{"agent_status":"unknown","focused":true,"label":"mine","pane_id":"w2:p4","revision":1,"tab_id":"w2:t1","terminal_id":"t","workspace_id":"w2"},"type":"pane_updated"},"event":"pane_updated"}` + "\n")
		c.write(`{"data":{"type":"workspace_metadata_updated","workspace":{"label":"repo","workspace_id":"w3"}},"event":"workspace_metadata_updated"}` + "\n")
		c.write(`{"data":{"pane_id":"w1:p9","type":"pane_exited","workspace_id":"w1"},"event":"pane_exited","future":1}` + "\n")
		// End the stream from our side, then check the client added nothing.
		_ = c.CloseWrite()
		c.expectCleanClose()
	})
	c := New(srv.path)
	writes := countWrites(c)
	s, err := c.Subscribe(context.Background(), []Subscription{
		{Type: "tab.renamed"},
		{Type: "pane.agent_status_changed", PaneID: "w1:p1", AgentStatus: "done"},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := []Event{
		{Kind: "tab.renamed", TabID: "w1:t2", WorkspaceID: "w1", Label: "build"},
		{Kind: "pane.agent_status_changed", PaneID: "w1:p1", WorkspaceID: "w1", Agent: "claude", Status: StatusDone},
		{Kind: "tab.created", TabID: "w1:t3", WorkspaceID: "w1", Label: "3"},
		{Kind: "pane.updated", PaneID: "w2:p4", TabID: "w2:t1", WorkspaceID: "w2",
			Pane: &Pane{ID: "w2:p4", TerminalID: "t", WorkspaceID: "w2", TabID: "w2:t1", Focused: true, Label: "mine", AgentStatus: StatusUnknown, Revision: 1}},
		{Kind: "workspace.metadata_updated", WorkspaceID: "w3", Label: "repo"},
		{Kind: "pane.exited", PaneID: "w1:p9", WorkspaceID: "w1"},
	}
	for i, w := range want {
		ev, err := s.Next()
		if err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if !reflect.DeepEqual(ev, w) {
			t.Errorf("event %d = %+v, want %+v", i, ev, w)
		}
	}
	_, err = s.Next()
	if !errors.Is(err, ErrStreamEnded) || !errors.Is(err, io.EOF) {
		t.Fatalf("end: err = %v, want ErrStreamEnded", err)
	}
	if _, err2 := s.Next(); !errors.Is(err2, ErrStreamEnded) {
		t.Errorf("Next after the end = %v, want the same end", err2)
	}
	if n := writes.Load(); n != 1 {
		t.Errorf("%d writes on the subscription connection, want 1", n)
	}
	if req.Method != "events.subscribe" || string(req.Params) != `{"subscriptions":[{"type":"tab.renamed"},{"type":"pane.agent_status_changed","pane_id":"w1:p1","agent_status":"done"}]}` {
		t.Errorf("request = %s %s", req.Method, req.Params)
	}
}

func TestSubscribeEmptyListSendsArray(t *testing.T) {
	var req wireRequest
	srv := startRaw(t, func(c *rawConn) {
		req, _ = c.readRequest()
		c.write(ackLine)
		c.expectCleanClose()
	})
	s, err := New(srv.path).Subscribe(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	if string(req.Params) != `{"subscriptions":[]}` {
		t.Errorf("params = %s", req.Params)
	}
}

func TestSubscribeSetupErrors(t *testing.T) {
	tests := []struct {
		name  string
		reply string
		check func(t *testing.T, err error)
	}{
		{
			name:  "probe error",
			reply: `{"id":"htr-1:sub:0:probe","error":{"code":"pane_not_found","message":"pane w1:p9 not found"}}` + "\n",
			check: func(t *testing.T, err error) {
				var ae *APIError
				if !errors.As(err, &ae) || ae.ID != "htr-1:sub:0:probe" || ae.Code != "pane_not_found" {
					t.Errorf("err = %v, want the probe APIError", err)
				}
			},
		},
		{
			name:  "parse error",
			reply: `{"id":"","error":{"code":"invalid_request","message":"invalid request: unknown variant ` + "`tab.nope`" + `"}}` + "\n",
			check: func(t *testing.T, err error) {
				if !IsCode(err, "invalid_request") {
					t.Errorf("err = %v", err)
				}
			},
		},
		{
			name:  "wrong ack type",
			reply: `{"id":"htr-1","result":{"type":"ok"}}` + "\n",
			check: func(t *testing.T, err error) {
				if te := asTransport(t, err); !strings.Contains(te.Error(), `unexpected result type "ok"`) {
					t.Errorf("err = %v", err)
				}
			},
		},
		{
			name:  "closed before the ack",
			reply: "",
			check: func(t *testing.T, err error) {
				if te := asTransport(t, err); !strings.Contains(te.Error(), "before a reply line") {
					t.Errorf("err = %v", err)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startRaw(t, func(c *rawConn) {
				c.readRequest()
				if tt.reply != "" {
					c.write(tt.reply)
					c.expectCleanClose()
				}
			})
			s, err := New(srv.path).Subscribe(context.Background(), []Subscription{{Type: "pane.agent_status_changed", PaneID: "w1:p9"}})
			if err == nil {
				s.Close()
				t.Fatal("Subscribe succeeded")
			}
			if strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "events.subscribe") || !strings.Contains(err.Error(), srv.path) {
				t.Errorf("error %q: want one line naming the method and socket", err)
			}
			tt.check(t, err)
		})
	}
}

func TestSubscribeClientSideChecks(t *testing.T) {
	c := New("/nonexistent/herdr.sock")
	for _, subs := range [][]Subscription{
		{{Type: ""}},
		{{Type: "pane.agent_status_changed"}},
		{{Type: "pane.scroll_changed"}},
		{{Type: "pane.output_matched", PaneID: "w1:p1"}},
	} {
		if _, err := c.Subscribe(context.Background(), subs); err == nil || errors.Is(err, ErrNotRunning) {
			t.Errorf("%+v: err = %v, want a check before dialling", subs, err)
		}
	}
}

func TestStreamBrokenLines(t *testing.T) {
	tests := []struct {
		name, tail, want string
	}{
		{"garbage line", "this is not json\n", "event line is not JSON"},
		{"cut mid-line", `{"data":{"label":"bu`, "connection closed mid-line"},
		{"no event name", `{"data":{}}` + "\n", "event line has no event name"},
		{"data of the wrong shape", `{"data":{"tab_id":5},"event":"tab_renamed"}` + "\n", "tab_renamed event data"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startRaw(t, func(c *rawConn) {
				c.readRequest()
				c.write(ackLine)
				c.write(`{"data":{"tab_id":"w1:t1","type":"tab_focused","workspace_id":"w1"},"event":"tab_focused"}` + "\n")
				c.write(tt.tail)
				if !strings.HasSuffix(tt.tail, "\n") {
					return // cut: close now
				}
				c.expectCleanClose()
			})
			s, err := New(srv.path).Subscribe(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if ev, err := s.Next(); err != nil || ev.Kind != "tab.focused" || ev.TabID != "w1:t1" {
				t.Fatalf("first event = %+v, %v", ev, err)
			}
			_, err = s.Next()
			te := asTransport(t, err)
			if !strings.Contains(te.Error(), tt.want) || te.Op != "events.subscribe stream" {
				t.Errorf("err = %v, want %q", err, tt.want)
			}
			if _, err2 := s.Next(); err2 != err {
				t.Errorf("second Next = %v, want the same error", err2)
			}
		})
	}
}

func TestStreamErrorEnvelopeMidStream(t *testing.T) {
	srv := startRaw(t, func(c *rawConn) {
		c.readRequest()
		c.write(ackLine)
		c.write(`{"id":"x","error":{"code":"server_unavailable","message":"server is shutting down"}}` + "\n")
		c.expectCleanClose()
	})
	s, err := New(srv.path).Subscribe(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Next(); !IsCode(err, "server_unavailable") {
		t.Errorf("err = %v", err)
	}
}

// TestStreamEndsWithoutWriting proves the two ways we end a stream — ctx
// cancel and Close — only close the socket: the server reads EOF and not
// one byte after the request line (any byte would end a herdr
// subscription, docs/herdr.md §2).
func TestStreamEndsWithoutWriting(t *testing.T) {
	for _, how := range []string{"cancel", "close"} {
		t.Run(how, func(t *testing.T) {
			done := make(chan struct{})
			srv := startRaw(t, func(c *rawConn) {
				defer close(done)
				c.readRequest()
				c.write(ackLine)
				c.write(`{"data":{"tab_id":"w1:t1","type":"tab_focused","workspace_id":"w1"},"event":"tab_focused"}` + "\n")
				c.expectCleanClose()
			})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			c := New(srv.path)
			writes := countWrites(c)
			s, err := c.Subscribe(ctx, []Subscription{{Type: "tab.focused"}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Next(); err != nil {
				t.Fatal(err)
			}
			errc := make(chan error, 1)
			go func() { _, err := s.Next(); errc <- err }() // blocks: no more events
			if how == "cancel" {
				cancel()
			} else if err := s.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			err = <-errc
			if how == "cancel" && !errors.Is(err, context.Canceled) {
				t.Errorf("Next after cancel = %v, want context.Canceled", err)
			}
			if how == "close" && !errors.Is(err, ErrStreamClosed) {
				t.Errorf("Next after Close = %v, want ErrStreamClosed", err)
			}
			<-done // the server saw EOF and zero extra bytes
			if n := writes.Load(); n != 1 {
				t.Errorf("%d writes, want 1", n)
			}
			if err := s.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
		})
	}
}

func TestSubscribeCancelBeforeAck(t *testing.T) {
	got := make(chan struct{})
	srv := startRaw(t, func(c *rawConn) {
		c.readRequest()
		close(got)
		c.expectCleanClose()
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-got; cancel() }()
	_, err := New(srv.path).Subscribe(ctx, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// paneUpdatedLine is a pane_updated line as herdr 0.9 writes it on a
// stream: keys sorted alphabetically at every level, data.type beside the
// payload (shape of the live 0.9.0 burst in docs/herdr.md §7).
func paneUpdatedLine(rev int) string {
	return fmt.Sprintf(`{"data":{"pane":{"agent":"claude","agent_status":"working","cwd":"/home/u/repo","focused":true,"foreground_cwd":"/home/u/repo","pane_id":"w1X:p1","revision":%d,"tab_id":"w1X:t1","terminal_id":"term_65bad9eb5302814","terminal_title":"✳ Fix tests","terminal_title_stripped":"Fix tests","tokens":{"title_working":"%d"},"workspace_id":"w1X"},"type":"pane_updated"},"event":"pane_updated"}`, rev, rev)
}

// TestStreamBurstThenEventsLost plays the 0.9 way: a burst of events in
// one write (the whole retained backlog drained in one round), the closed
// events a pane exit now brings, then the events_lost line that ends a
// stream that fell behind. Every event arrives in order, then the stream
// ends with an error IsEventsLost recognises, and stays ended.
func TestStreamBurstThenEventsLost(t *testing.T) {
	const burst = 300
	var all strings.Builder
	for i := range burst {
		all.WriteString(paneUpdatedLine(10415 + i))
		all.WriteString("\n")
	}
	all.WriteString(`{"data":{"pane_id":"w1X:p1","type":"pane_exited","workspace_id":"w1X"},"event":"pane_exited"}` + "\n")
	all.WriteString(`{"data":{"tab_id":"w1X:t1","type":"tab_closed","workspace_id":"w1X"},"event":"tab_closed"}` + "\n")
	all.WriteString(`{"data":{"type":"workspace_closed","workspace_id":"w1X"},"event":"workspace_closed"}` + "\n")
	tests := []struct{ name, lost string }{
		{"declaration order", `{"id":"%s","error":{"code":"events_lost","message":"subscription fell behind retained event history; resubscribe and resync with session.snapshot"}}`},
		{"sorted keys", `{"error":{"code":"events_lost","message":"events lost"},"id":"%s"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startRaw(t, func(c *rawConn) {
				req, _ := c.readRequest()
				// ack, burst and the loss line all in one write: one read
				// on our side may hold all of them.
				c.write(ackLine + all.String() + fmt.Sprintf(tt.lost, req.ID) + "\n")
				c.expectCleanClose()
			})
			s, err := New(srv.path).Subscribe(context.Background(), []Subscription{{Type: "pane.updated"}})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for i := range burst {
				ev, err := s.Next()
				if err != nil {
					t.Fatalf("event %d: %v", i, err)
				}
				if ev.Kind != "pane.updated" || ev.PaneID != "w1X:p1" || ev.TabID != "w1X:t1" || ev.WorkspaceID != "w1X" {
					t.Fatalf("event %d = %+v", i, ev)
				}
				if want := uint64(10415 + i); ev.Revision() != want {
					t.Fatalf("event %d out of order: revision %d, want %d", i, ev.Revision(), want)
				}
			}
			for _, want := range []Event{
				{Kind: "pane.exited", PaneID: "w1X:p1", WorkspaceID: "w1X"},
				{Kind: "tab.closed", TabID: "w1X:t1", WorkspaceID: "w1X"},
				{Kind: "workspace.closed", WorkspaceID: "w1X"},
			} {
				ev, err := s.Next()
				if err != nil || !reflect.DeepEqual(ev, want) {
					t.Fatalf("event = %+v, %v; want %+v", ev, err, want)
				}
			}
			_, err = s.Next()
			if !IsEventsLost(err) || IsServerGone(err) {
				t.Fatalf("err = %v; want IsEventsLost and not IsServerGone", err)
			}
			if !strings.Contains(err.Error(), "events_lost") {
				t.Errorf("err = %q does not name the code", err)
			}
			if _, err2 := s.Next(); err2 != err {
				t.Errorf("Next after the loss = %v, want the same error", err2)
			}
		})
	}
}

// TestSubscribeEventsLostBeforeAck: a server that finds the history gone
// while setting up answers the subscribe itself with events_lost.
func TestSubscribeEventsLostBeforeAck(t *testing.T) {
	srv := startRaw(t, func(c *rawConn) {
		req, _ := c.readRequest()
		c.write(`{"id":"` + req.ID + `","error":{"code":"events_lost","message":"events lost"}}` + "\n")
		c.expectCleanClose()
	})
	_, err := New(srv.path).Subscribe(context.Background(), nil)
	if !IsEventsLost(err) {
		t.Errorf("err = %v, want IsEventsLost", err)
	}
}

// TestStreamServerShutdown: on 0.8.2+ a stopping server closes streams
// without a word; whatever the form, the caller sees a server going away.
func TestStreamServerShutdown(t *testing.T) {
	for _, tail := range []string{"", `{"id":"x","error":{"code":"server_unavailable","message":"server is shutting down"}}` + "\n"} {
		srv := startRaw(t, func(c *rawConn) {
			c.readRequest()
			c.write(ackLine + tail)
		})
		s, err := New(srv.path).Subscribe(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Next(); !IsServerGone(err) || IsEventsLost(err) {
			t.Errorf("tail %q: err = %v, want IsServerGone", tail, err)
		}
		s.Close()
	}
}

// herdr's pane.agent_detected for an agent leaving names the agent that
// left and says released (src/app/api.rs@v0.8.2 emit_pane_state_update).
func TestParseAgentReleased(t *testing.T) {
	ev, err := ParseEvent([]byte(`{"data":{"agent":"claude","final_status":"idle","pane_id":"w1:p1","released":true,"type":"pane_agent_detected","workspace_id":"w1"},"event":"pane_agent_detected"}`))
	if err != nil || ev.Kind != PaneAgentDetected || ev.Agent != "claude" || !ev.Released || ev.PaneID != "w1:p1" {
		t.Fatalf("ParseEvent = %+v, %v", ev, err)
	}
	ev, err = ParseEvent([]byte(`{"data":{"agent":"codex","pane_id":"w1:p1","type":"pane_agent_detected","workspace_id":"w1"},"event":"pane_agent_detected"}`))
	if err != nil || ev.Released || ev.Agent != "codex" {
		t.Fatalf("ParseEvent of an arrival = %+v, %v", ev, err)
	}
}
