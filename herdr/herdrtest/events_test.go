package herdrtest

import (
	"fmt"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"io"
	"net"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

const ack = `{"id":"sub","result":{"type":"subscription_started"}}`

func kinds(t *testing.T, lines []string) []string {
	t.Helper()
	var out []string
	for _, l := range lines {
		var ev struct {
			Event string
			Data  map[string]any
		}
		mustJSON(t, l, &ev)
		out = append(out, ev.Event)
	}
	return out
}

// Up to 20 the ring replays its backlog to every new bus subscription,
// oldest first, one event per subscription per tick.
func TestSubscribeReplaysBacklog(t *testing.T) {
	s := start(t, herdrsim.WithProtocol(20))
	ws, t1, p1 := s.NewWorkspace("w", "/tmp")
	t2, _ := s.NewTab(ws, "/tmp")
	s.Split(p1, "/tmp")
	s.ExitPane(p1)
	s.CloseTab(t2)
	st := subscribe(t, s,
		map[string]any{"type": "tab.created"}, map[string]any{"type": "pane.created"},
		map[string]any{"type": "pane.exited"}, map[string]any{"type": "tab.closed"},
		map[string]any{"type": "layout.updated"}, map[string]any{"type": "pane.closed"})
	if l := st.next(t); l != ack {
		t.Fatalf("ack %q", l)
	}
	var got []string
	for range 11 {
		got = append(got, st.next(t))
	}
	// tick 1: one event per subscription in array order; then what is
	// left. Each new tab's layout, the split and the exit each updated a
	// layout.
	want := []string{"tab_created", "pane_created", "pane_exited", "tab_closed", "layout_updated",
		"tab_created", "pane_created", "layout_updated", "pane_created", "layout_updated", "layout_updated"}
	if k := kinds(t, got); !reflect.DeepEqual(k, want) {
		t.Fatalf("events %v\nwant   %v", k, want)
	}
	if !strings.Contains(got[0], `"tab_id":"`+t1+`"`) {
		t.Fatalf("first replayed event is not the oldest: %s", got[0])
	}
	// Then one event of our own on every subscription: nothing but the
	// events our own changes cause may come before them.
	x, q := s.NewTab(ws, "/tmp")
	r := s.Split(q, "/tmp")
	s.ClosePane(r)
	s.ExitPane(q) // X's last pane: on 20 no tab_closed
	y, q2 := s.NewTab(ws, "/tmp")
	s.CloseTab(y)
	id := func(v string) string { return `"` + v + `"` }
	caused := func(l string) bool {
		return slices.ContainsFunc([]string{x, q, r, y, q2}, func(v string) bool { return strings.Contains(l, id(v)) })
	}
	for _, l := range st.before(t, mark("tab_created", id(x)), mark("pane_created", id(q)), mark("pane_exited", id(q)),
		mark("tab_closed", id(y)), mark("layout_updated", id(x)), mark("pane_closed", id(r))) {
		if !caused(l) {
			t.Errorf("unexpected %s (pane exit must not emit pane_closed)", l)
		}
	}
}

func TestAtMostOneEventPerTick(t *testing.T) {
	s := start(t, herdrsim.WithProtocol(20), herdrsim.WithTick(200*time.Millisecond))
	ws, _, _ := s.NewWorkspace("w", "/tmp")
	for range 3 {
		s.NewTab(ws, "/tmp")
	}
	st := subscribe(t, s, map[string]any{"type": "tab.created"})
	st.next(t)
	began := time.Now()
	for range 4 {
		st.next(t)
	}
	// 4 events need at least 3 ticks after the immediate first poll
	if d := time.Since(began); d < 3*200*time.Millisecond-50*time.Millisecond {
		t.Fatalf("4 events in %v: more than one per tick", d)
	}
}

func TestEventKeysAlphabeticalAndDialects(t *testing.T) {
	s := start(t, herdrsim.WithProtocol(20)) // the tab_created below is replayed
	_, tab, p := s.NewWorkspace("w", "/tmp")
	st := subscribe(t, s, map[string]any{"type": "tab.created"},
		map[string]any{"type": "pane.agent_status_changed", "pane_id": p})
	st.next(t)
	bus := st.next(t)
	want := `{"data":{"tab":{"agent_status":"unknown","focused":true,"label":"1","number":1,"pane_count":1,"tab_id":"` + tab +
		`","workspace_id":"w1"},"type":"tab_created"},"event":"tab_created"}`
	if bus != want {
		t.Fatalf("bus line\n got %s\nwant %s", bus, want)
	}
	s.SetAgent(p, "claude", herdr.StatusWorking)
	if l := st.next(t); l != `{"data":{"agent":"claude","agent_status":"working","pane_id":"w1:p1","workspace_id":"w1"},"event":"pane.agent_status_changed"}` {
		t.Fatalf("per-pane line %s", l)
	}
}

func TestPerPaneFilterInitialEvent(t *testing.T) {
	s := start(t)
	_, _, p := s.NewWorkspace("w", "/tmp")
	s.SetAgent(p, "codex", herdr.StatusDone)
	st := subscribe(t, s, map[string]any{"type": "pane.agent_status_changed", "pane_id": p, "agent_status": "done"})
	st.next(t)
	if l := st.next(t); !strings.Contains(l, `"agent_status":"done"`) {
		t.Fatalf("synthetic initial %s", l)
	}
	s.SetAgent(p, "codex", herdr.StatusWorking) // filtered out
	s.SetAgent(p, "codex", herdr.StatusDone)
	if l := st.next(t); !strings.Contains(l, `"agent_status":"done"`) {
		t.Fatalf("filtered event %s", l)
	}
}

func TestStreamEnds(t *testing.T) {
	s := start(t)
	_, _, p := s.NewWorkspace("w", "/tmp")
	t.Run("client writes a byte", func(t *testing.T) {
		st := subscribe(t, s)
		if l := st.next(t); l != ack {
			t.Fatalf("ack %q", l)
		}
		st.c.Write([]byte("x"))
		st.closed(t)
	})
	t.Run("client half-closes", func(t *testing.T) {
		st := subscribe(t, s)
		st.next(t)
		st.c.CloseWrite()
		st.closed(t)
	})
	t.Run("server stops", func(t *testing.T) {
		st := subscribe(t, s)
		st.next(t)
		if err := s.Stop(); err != nil {
			t.Fatal(err)
		}
		if rest := st.closed(t); len(rest) > 0 {
			t.Fatalf("final lines %q", rest)
		}
		if err := s.Restart(); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("dropped mid-line", func(t *testing.T) {
		st := subscribe(t, s)
		st.next(t)
		s.DropSubscriptions()
		if err := <-st.done; err != io.ErrUnexpectedEOF && err != io.EOF {
			t.Fatalf("end %v", err)
		}
		if r := st.r.Buffered(); r != 0 {
			t.Fatalf("%d bytes left", r)
		}
	})
	t.Run("pipelined byte ends it after the ack", func(t *testing.T) {
		c, err := net.Dial("unix", s.SocketPath())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, `{"id":"sub","method":"events.subscribe","params":{"subscriptions":[{"type":"pane.created"}]}}`+"\nx")
		b, _ := io.ReadAll(c)
		if !strings.HasPrefix(string(b), ack+"\n") || strings.Count(string(b), "\n") > 2 {
			t.Fatalf("got %q", b)
		}
	})
	t.Run("probe error", func(t *testing.T) {
		out, err := exchange(t, s, `{"id":"sub","method":"events.subscribe","params":{"subscriptions":[{"type":"pane.agent_status_changed","pane_id":"`+p+`"},{"type":"pane.agent_status_changed","pane_id":"w1:p9"}]}}`+"\n")
		if err != nil || out != `{"id":"sub:sub:1:probe","error":{"code":"pane_not_found","message":"pane w1:p9 not found"}}`+"\n" {
			t.Fatalf("got %q %v", out, err)
		}
	})
	t.Run("missing pane_id", func(t *testing.T) {
		out, _ := exchange(t, s, `{"id":"sub","method":"events.subscribe","params":{"subscriptions":[{"type":"pane.scroll_changed"}]}}`+"\n")
		if !strings.HasPrefix(out, `{"id":"","error":{"code":"invalid_request","message":"invalid request: missing field `+"`pane_id`") {
			t.Fatalf("got %q", out)
		}
	})
}

func TestProtocolDifferences(t *testing.T) {
	for _, tt := range []struct {
		protocol     int
		version      string
		reordered    bool
		inputSetCode string
		moveBlock    string
	}{
		{17, "0.7.5", false, "invalid_request", "invalid_request"},
		{19, "0.8.0", true, "invalid_request", "not_implemented"},
		{20, "0.8.2", true, "not_implemented", "not_implemented"},
		{21, "0.8.2", true, "not_implemented", "not_implemented"},
		{22, "0.9.1", true, "not_implemented", "not_implemented"},
	} {
		t.Run(fmt.Sprint(tt.protocol), func(t *testing.T) {
			s := start(t, herdrsim.WithProtocol(tt.protocol))
			r := result(t, call(t, s, "ping", map[string]any{}))
			if r["version"] != tt.version || r["protocol"] != float64(tt.protocol) {
				t.Fatalf("pong %v", r)
			}
			out, _ := exchange(t, s, `{"id":"s","method":"events.subscribe","params":{"subscriptions":[{"type":"workspace.reordered"}]}}`+"\nx") // the extra byte ends the stream after the ack
			if got := strings.HasPrefix(out, `{"id":"s","result":{"type":"subscription_started"}}`); got != tt.reordered {
				t.Fatalf("workspace.reordered accepted=%v: %q", got, out)
			}
			for method, want := range map[string]string{"pane.input.set": tt.inputSetCode, "workspace.move_block": tt.moveBlock} {
				m := call(t, s, method, map[string]any{"pane_id": "w1:p1", "workspace_ids": []string{"w1"}, "right_click": "pane"})
				code, _ := errCode(t, m)
				if code != want {
					t.Fatalf("%s: %s, want %s", method, code, want)
				}
			}
			s.NewWorkspace("w", "/tmp")
			snap := result(t, call(t, s, "session.snapshot", map[string]any{}))["snapshot"].(map[string]any)
			if snap["protocol"] != float64(tt.protocol) || len(snap["layouts"].([]any)) != 1 {
				t.Fatalf("snapshot %v", snap)
			}
		})
	}
}

// The schema check can fail: broken lines are caught and reported.
func TestSchemaViolationsAreCaught(t *testing.T) {
	dir := filepath.Dir(SchemaFile(t, 17))
	t.Run("rewritten response fails the test", func(t *testing.T) {
		rec := &recordingTB{TB: t}
		s := Start(rec, herdrsim.WithSchemaDir(dir))
		if !s.SchemasLoaded() {
			t.Skip("no schemas")
		}
		s.RewriteResponses(func(method string, line []byte) []byte {
			return []byte(strings.Replace(string(line), `"agent_status":"unknown"`, `"agent_status":"sleepy"`, 1))
		})
		_, tab, _ := s.NewWorkspace("w", "/tmp")
		call(t, s, "tab.get", map[string]any{"tab_id": tab})
		if errs := rec.errors(); len(errs) != 1 || !strings.Contains(errs[0], "success_response line violates the schema") {
			t.Fatalf("reported %q", errs)
		}
	})
	t.Run("FaultSchemaInvalid lands in Violations", func(t *testing.T) {
		s, err := New(herdrsim.WithSchemaDir(dir))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		s.InjectFault("tab.get", herdrsim.FaultSchemaInvalid, 1)
		call(t, s, "tab.get", map[string]any{"tab_id": "w1:t1"})
		if v := s.Violations(); len(v) != 1 || !strings.Contains(v[0], "violates the schema") {
			t.Fatalf("violations %q", v)
		}
	})
	t.Run("CheckLine per kind", func(t *testing.T) {
		s, err := New(herdrsim.WithSchemaDir(dir), herdrsim.WithProtocol(17))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		for _, tt := range []struct {
			kind herdrsim.LineKind
			line string
			ok   bool
		}{
			{herdrsim.LineEvent, `{"data":{"label":"x","tab_id":"w1:t1","type":"tab_renamed","workspace_id":"w1"},"event":"tab_renamed"}`, true},
			{herdrsim.LineEvent, `{"data":{"tab_id":"w1:t1","type":"tab_renamed","workspace_id":"w1"},"event":"tab_renamed"}`, false},
			{herdrsim.LineSubscriptionEvent, `{"data":{"agent_status":"done","pane_id":"w1:p1","workspace_id":"w1"},"event":"pane.agent_status_changed"}`, true},
			{herdrsim.LineError, `{"id":"","error":{"code":"invalid_request"}}`, false},
			{herdrsim.LineRequest, `{"id":"a","method":"ping","params":{}}`, true},
			{herdrsim.LineRequest, `{"id":"a","method":"tab.rename","params":{"tab_id":"w1:t1"}}`, false},
		} {
			if err := s.CheckLine(tt.kind, []byte(tt.line)); (err == nil) != tt.ok {
				t.Errorf("%v %s: err %v, want ok=%v", tt.kind, tt.line, err, tt.ok)
			}
		}
	})
}

// Undelivered counts what open streams will still send out of the ring,
// EventsDelivered what they sent: tests wait on them for a replay or an
// echo to arrive instead of sleeping. Up to 20 a new subscription owes
// the ring's old events too; on 22 only what happened after it.
func TestUndeliveredAndEventsDelivered(t *testing.T) {
	for _, tt := range []struct {
		protocol int
		owed     int // tab_closed events the stream will send
	}{{20, 3}, {22, 1}} {
		t.Run(fmt.Sprint(tt.protocol), func(t *testing.T) {
			s := start(t, herdrsim.WithProtocol(tt.protocol))
			ws, _, _ := s.NewWorkspace("w", "/tmp")
			for range 2 { // history: two tab_closed in the ring
				tab, _ := s.NewTab(ws, "/tmp")
				s.CloseTab(tab)
			}
			if n := s.Undelivered(); n != 0 {
				t.Fatalf("no stream open: Undelivered %d, want 0", n)
			}
			release := s.HoldEvents()
			defer release()
			st := subscribe(t, s, map[string]any{"type": "tab.closed"}, map[string]any{"type": "pane.agent_status_changed", "pane_id": "w1:p1"})
			if l := st.next(t); l != ack {
				t.Fatalf("ack %q", l)
			}
			tab, _ := s.NewTab(ws, "/tmp")
			s.CloseTab(tab)
			s.NewTab(ws, "/tmp") // a tab_created nobody asked for is owed to nobody
			if n, d := s.Undelivered(), s.EventsDelivered(); n != tt.owed || d != 0 {
				t.Fatalf("held: Undelivered %d, EventsDelivered %d; want %d and 0", n, d, tt.owed)
			}
			release()
			for range tt.owed {
				st.next(t)
			}
			testutil.WaitFor(t, "the backlog settled", func() bool { return s.Undelivered() == 0 && s.EventsDelivered() == tt.owed },
				func() string {
					return fmt.Sprintf("Undelivered %d, EventsDelivered %d", s.Undelivered(), s.EventsDelivered())
				})
		})
	}
}
