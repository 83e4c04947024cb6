package herdr

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestNotRunning(t *testing.T) {
	dir := shortTempDir(t)
	missing := filepath.Join(dir, "none.sock")

	// A socket file with no listener behind it, as a crashed herdr leaves.
	refused := filepath.Join(dir, "stale.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: refused, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()

	tests := []struct {
		name, path, want string
	}{
		{"missing", missing, "no herdr server at " + missing + " (socket missing)"},
		{"refused", refused, "no herdr server at " + refused + " (connection refused)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(tt.path)
			_, err := c.Ping(context.Background())
			if !errors.Is(err, ErrNotRunning) {
				t.Fatalf("err = %v, want ErrNotRunning", err)
			}
			if err.Error() != tt.want {
				t.Errorf("err = %q, want %q", err, tt.want)
			}
			if _, err := c.Subscribe(context.Background(), nil); !errors.Is(err, ErrNotRunning) {
				t.Errorf("Subscribe err = %v, want ErrNotRunning", err)
			}
		})
	}
}

// TestTransportFaults walks the cases of docs/herdr.md §2 that a client meets
// on a plain request, plus the broken replies only a broken peer sends.
func TestTransportFaults(t *testing.T) {
	tests := []struct {
		name    string
		serve   func(c *rawConn)
		timeout time.Duration
		check   func(t *testing.T, err error)
	}{
		{
			name:  "EOF without a line",
			serve: func(c *rawConn) { c.readRequest() },
			check: wantTransport("connection closed before a reply line"),
		},
		{
			name: "reset",
			// Closing with unread bytes makes Linux reset the peer: read
			// only part of the request, then close.
			serve: func(c *rawConn) {
				b := make([]byte, 1)
				if _, err := c.Read(b); err != nil {
					c.t.Errorf("server: %v", err)
				}
			},
			check: wantTransport("connection reset"),
		},
		{
			name:  "garbage line",
			serve: func(c *rawConn) { c.readRequest(); c.write("not json at all\n"); c.expectCleanClose() },
			check: wantTransport(`reply is not a JSON reply object`, `"not json at all"`),
		},
		{
			name:  "cut line",
			serve: func(c *rawConn) { c.readRequest(); c.write(`{"id":"htr-1","result":{"type":"po`) },
			check: wantTransport("connection closed mid-line after 34 bytes"),
		},
		{
			name:  "blank line",
			serve: func(c *rawConn) { c.readRequest(); c.write("\n"); c.expectCleanClose() },
			check: wantTransport("empty reply line"),
		},
		{
			name:  "neither result nor error",
			serve: func(c *rawConn) { c.readRequest(); c.write(`{"id":"htr-1"}` + "\n"); c.expectCleanClose() },
			check: wantTransport("reply has neither result nor error"),
		},
		{
			name: "null result",
			serve: func(c *rawConn) {
				c.readRequest()
				c.write(`{"id":"htr-1","result":null}` + "\n")
				c.expectCleanClose()
			},
			check: wantTransport("reply has neither result nor error"),
		},
		{
			name:  "JSON that is not an object",
			serve: func(c *rawConn) { c.readRequest(); c.write("[1,2]\n"); c.expectCleanClose() },
			check: wantTransport("reply is not a JSON reply object"),
		},
		{
			name: "oversize reply",
			serve: func(c *rawConn) {
				c.readRequest()
				// The client gives up at the cap and closes; our write then
				// fails, which is expected.
				_, _ = c.Write(append(bytes.Repeat([]byte("a"), MaxReply+1024), '\n'))
			},
			timeout: waitLong, // 16 MiB under -race on a shared machine
			check:   wantTransport("reply line longer than 16777216 bytes"),
		},
		{
			name: "wrong result type",
			serve: func(c *rawConn) {
				c.readRequest()
				c.write(`{"id":"htr-1","result":{"type":"tab_info","tab":{}}}` + "\n")
				c.expectCleanClose()
			},
			check: wantTransport(`unexpected result type "tab_info", want "pong"`),
		},
		{
			name:    "slow server past the deadline",
			timeout: 150 * time.Millisecond,
			serve:   func(c *rawConn) { c.readRequest(); c.expectCleanClose() },
			check: func(t *testing.T, err error) {
				wantTransport("no reply within 150ms")(t, err)
				if !errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("err = %v, want errors.Is context.DeadlineExceeded", err)
				}
			},
		},
		{
			name: "error envelope with empty id",
			serve: func(c *rawConn) {
				c.readRequest()
				c.write(`{"id":"","error":{"code":"invalid_request","message":"invalid request: missing field ` + "`params`" + `"}}` + "\n")
				c.expectCleanClose()
			},
			check: func(t *testing.T, err error) {
				var ae *APIError
				if !errors.As(err, &ae) {
					t.Fatalf("err = %v (%T), want *APIError", err, err)
				}
				if ae.ID != "" || ae.Code != "invalid_request" || ae.Message != "invalid request: missing field `params`" {
					t.Errorf("APIError = %+v", ae)
				}
				if !IsCode(err, "invalid_request") || IsCode(err, "tab_not_found") {
					t.Errorf("IsCode wrong for %v", err)
				}
				want := "herdr ping at "
				if !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), ": invalid_request: invalid request: missing field") {
					t.Errorf("err = %q", err)
				}
			},
		},
		{
			name: "error message with a newline stays one line",
			serve: func(c *rawConn) {
				c.readRequest()
				c.write(`{"id":"htr-1","error":{"code":"internal_error","message":"line one\nline two"}}` + "\n")
				c.expectCleanClose()
			},
			check: func(t *testing.T, err error) {
				if !IsCode(err, "internal_error") || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "line one line two") {
					t.Errorf("err = %q", err)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startRaw(t, tt.serve)
			opts := []Option{}
			if tt.timeout > 0 {
				opts = append(opts, WithTimeout(tt.timeout))
			}
			c := New(srv.path, opts...)
			_, err := c.Ping(context.Background())
			if err == nil {
				t.Fatal("Ping succeeded, want an error")
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error has a newline: %q", err)
			}
			if !strings.Contains(err.Error(), srv.path) || !strings.Contains(err.Error(), "ping") {
				t.Errorf("error %q does not name the method and socket", err)
			}
			tt.check(t, err)
		})
	}
}

func wantTransport(parts ...string) func(t *testing.T, err error) {
	return func(t *testing.T, err error) {
		t.Helper()
		te := asTransport(t, err)
		if te.Op != "ping" {
			t.Errorf("Op = %q, want ping", te.Op)
		}
		for _, p := range parts {
			if !strings.Contains(err.Error(), p) {
				t.Errorf("err = %q, want it to contain %q", err, p)
			}
		}
		if errors.Is(err, ErrNotRunning) {
			t.Errorf("transport error %v must not match ErrNotRunning", err)
		}
	}
}

func TestContextDeadlineSoonerThanTimeout(t *testing.T) {
	srv := startRaw(t, func(c *rawConn) { c.readRequest(); c.expectCleanClose() })
	c := New(srv.path, WithTimeout(time.Hour))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Ping(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
	asTransport(t, err)
	if d := time.Since(start); d > waitLong {
		t.Errorf("Ping took %s with a 100ms context deadline", d)
	}
}

func TestContextCancelDuringCall(t *testing.T) {
	got := make(chan struct{})
	srv := startRaw(t, func(c *rawConn) { c.readRequest(); close(got); c.expectCleanClose() })
	c := New(srv.path, WithTimeout(time.Hour))
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-got; cancel() }()
	_, err := c.Ping(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestUnknownFieldsIgnored(t *testing.T) {
	srv := startRaw(t, func(c *rawConn) {
		c.readRequest()
		c.write(`{"extra":[1,{"a":2}],"id":"htr-1","result":{"type":"pong","version":"0.9.0","protocol":20,"capabilities":null,"new_field":"x"}}` + "\r\n")
		c.expectCleanClose()
	})
	p, err := New(srv.path).Ping(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if p.Version != "0.9.0" || p.Protocol != 20 || p.Capabilities != nil {
		t.Errorf("pong = %+v", p)
	}
}

// TestRequestShape checks the request line of every method: compact JSON,
// params always an object, one "\n", ids unique, exactly one write, and no
// byte after the line.
func TestRequestShape(t *testing.T) {
	var mu sync.Mutex
	var got []wireRequest
	srv := startRaw(t, func(c *rawConn) {
		req, _ := c.readRequest()
		mu.Lock()
		got = append(got, req)
		mu.Unlock()
		result := map[string]string{
			"ping":              `{"type":"pong","version":"0.8.0","protocol":20,"capabilities":{}}`,
			"tab.rename":        `{"type":"tab_info","tab":{"tab_id":"w1:t2","workspace_id":"w1","number":2,"label":"","focused":false,"pane_count":1,"agent_status":"unknown"}}`,
			"tab.list":          `{"type":"tab_list","tabs":[]}`,
			"pane.list":         `{"type":"pane_list","panes":[]}`,
			"workspace.list":    `{"type":"workspace_list","workspaces":[]}`,
			"pane.process_info": `{"type":"pane_process_info","process_info":{"pane_id":"w1:p1"}}`,
			"pane.rename":       `{"type":"pane_info","pane":{"pane_id":"w1:p1","terminal_id":"t","workspace_id":"w1","tab_id":"w1:t1","focused":false,"agent_status":"unknown","revision":0}}`,
			"custom.method":     `{"type":"ok"}`,
		}[req.Method]
		if result == "" {
			c.t.Errorf("server: unexpected method %q", req.Method)
			return
		}
		c.write(`{"id":"` + req.ID + `","result":` + result + "}\n")
		c.expectCleanClose()
	})
	c := New(srv.path)
	writes := countWrites(c)
	ctx := context.Background()
	type call struct {
		method, params string
		do             func() error
	}
	calls := []call{
		{"ping", `{}`, func() error { _, err := c.Ping(ctx); return err }},
		{"tab.rename", `{"tab_id":"w1:t2","label":""}`, func() error { _, err := c.RenameTab(ctx, "w1:t2", ""); return err }},
		{"tab.rename", `{"tab_id":"w1:t2","label":" a\nb\u001b[0m "}`, func() error { _, err := c.RenameTab(ctx, "w1:t2", " a\nb\x1b[0m "); return err }},
		{"pane.rename", `{"pane_id":"w1:p1","label":"tests"}`, func() error { _, err := c.RenamePane(ctx, "w1:p1", "tests"); return err }},
		{"pane.rename", `{"pane_id":"w1:p1","label":""}`, func() error { _, err := c.RenamePane(ctx, "w1:p1", ""); return err }},
		{"tab.list", `{}`, func() error { _, err := c.Tabs(ctx, ""); return err }},
		{"tab.list", `{"workspace_id":"w1"}`, func() error { _, err := c.Tabs(ctx, "w1"); return err }},
		{"pane.list", `{"workspace_id":"w2"}`, func() error { _, err := c.Panes(ctx, "w2"); return err }},
		{"workspace.list", `{}`, func() error { _, err := c.Workspaces(ctx); return err }},
		{"pane.process_info", `{"pane_id":"w1:p1"}`, func() error { _, err := c.ProcessInfo(ctx, "w1:p1"); return err }},
		{"pane.process_info", `{}`, func() error { _, err := c.ProcessInfo(ctx, ""); return err }},
		{"custom.method", `{}`, func() error { return c.Call(ctx, "custom.method", nil, nil) }},
		{"custom.method", `{}`, func() error { return c.Call(ctx, "custom.method", map[string]int(nil), nil) }},
		{"custom.method", `{"x":1}`, func() error { return c.Call(ctx, "custom.method", map[string]int{"x": 1}, nil) }},
	}
	for i, cl := range calls {
		if err := cl.do(); err != nil {
			t.Fatalf("call %d (%s): %v", i, cl.method, err)
		}
	}
	if n := writes.Load(); n != int64(len(calls)) {
		t.Errorf("%d writes for %d calls, want one each", n, len(calls))
	}
	if n := srv.conns.Load(); n != int64(len(calls)) {
		t.Errorf("%d connections for %d calls, want one each", n, len(calls))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != len(calls) {
		t.Fatalf("server saw %d requests, want %d", len(got), len(calls))
	}
	ids := map[string]bool{}
	for i, req := range got {
		if req.Method != calls[i].method || string(req.Params) != calls[i].params {
			t.Errorf("request %d = %s %s, want %s %s", i, req.Method, req.Params, calls[i].method, calls[i].params)
		}
		if ids[req.ID] {
			t.Errorf("request id %q reused", req.ID)
		}
		ids[req.ID] = true
	}
}

func TestCallBadParams(t *testing.T) {
	c := New("/nonexistent/herdr.sock")
	for _, p := range []any{[]int{1}, "x", 3, func() {}} {
		err := c.Call(context.Background(), "tab.get", p, nil)
		if err == nil || errors.Is(err, ErrNotRunning) {
			t.Errorf("params %T: err = %v, want an encoding error before dialling", p, err)
		}
	}
}

func TestCallDecodesResult(t *testing.T) {
	srv := startRaw(t, func(c *rawConn) {
		req, _ := c.readRequest()
		c.write(`{"id":"` + req.ID + `","result":{"type":"tab_info","tab":{"tab_id":"w1:t3","label":"x"}}}` + "\n")
		c.expectCleanClose()
	})
	var res struct {
		Type string `json:"type"`
		Tab  Tab    `json:"tab"`
	}
	err := New(srv.path).Call(context.Background(), "tab.get", map[string]string{"tab_id": "w1:t3"}, &res)
	if err != nil {
		t.Fatal(err)
	}
	if res.Type != "tab_info" || res.Tab.ID != "w1:t3" || res.Tab.Label != "x" {
		t.Errorf("result = %+v", res)
	}
	var bad struct {
		Tab int `json:"tab"`
	}
	err = New(srv.path).Call(context.Background(), "tab.get", nil, &bad)
	te := asTransport(t, err)
	if !strings.Contains(te.Error(), "decode result") {
		t.Errorf("err = %v", err)
	}
}

func TestDecodeShapes(t *testing.T) {
	// Reply shapes of docs/herdr.md §3 and §5.
	srv := startRaw(t, func(c *rawConn) {
		req, _ := c.readRequest()
		var line string
		switch req.Method {
		case "tab.rename":
			line = `{"id":"req_1","result":{"type":"tab_info","tab":{"tab_id":"w1:t2","workspace_id":"w1","number":2,"label":"build","focused":false,"pane_count":1,"agent_status":"unknown"}}}`
		case "pane.process_info":
			line = `{"id":"pi","result":{"type":"pane_process_info","process_info":{"pane_id":"w1:p1","shell_pid":4242,"foreground_process_group_id":4300,"foreground_processes":[{"pid":4300,"name":"node","argv":["node","/usr/local/bin/claude"],"cmdline":"node /usr/local/bin/claude","cwd":"/home/u/repo"}]}}}`
		case "session.snapshot":
			line = `{"id":"s","result":{"type":"session_snapshot","snapshot":{"version":"0.8.0","protocol":20,"focused_workspace_id":"w1","focused_tab_id":"w1:t1","focused_pane_id":"w1:p2",` +
				`"workspaces":[{"workspace_id":"w1","number":1,"label":"repo","focused":true,"pane_count":2,"tab_count":1,"active_tab_id":"w1:t1","agent_status":"working","tokens":{"k":"v"}}],` +
				`"tabs":[{"tab_id":"w1:t1","workspace_id":"w1","number":1,"label":"1","focused":true,"pane_count":2,"agent_status":"working"}],` +
				`"panes":[{"pane_id":"w1:p1","terminal_id":"term_1","workspace_id":"w1","tab_id":"w1:t1","focused":false,"cwd":"/r","agent_status":"unknown","revision":0},` +
				`{"pane_id":"w1:p2","terminal_id":"term_2","workspace_id":"w1","tab_id":"w1:t1","focused":true,"cwd":"/r","foreground_cwd":"/r/sub","agent":"claude","terminal_title_stripped":"fix","agent_status":"working","tokens":{"a":"b"},"scroll":{"offset_from_bottom":0},"revision":7}],` +
				`"layouts":[],"agents":[]}}}`
		}
		c.write(line + "\n")
		c.expectCleanClose()
	})
	c := New(srv.path)
	ctx := context.Background()
	tab, err := c.RenameTab(ctx, "w1:t2", "build")
	if err != nil {
		t.Fatal(err)
	}
	if tab != (Tab{ID: "w1:t2", WorkspaceID: "w1", Number: 2, Label: "build", PaneCount: 1, AgentStatus: StatusUnknown}) {
		t.Errorf("tab = %+v", tab)
	}
	pi, err := c.ProcessInfo(ctx, "w1:p1")
	if err != nil {
		t.Fatal(err)
	}
	if pi.ShellPID != 4242 || pi.ForegroundPGID != 4300 || len(pi.ForegroundProcesses) != 1 ||
		pi.ForegroundProcesses[0].Name != "node" || pi.ForegroundProcesses[0].Cmdline != "node /usr/local/bin/claude" ||
		len(pi.ForegroundProcesses[0].Argv) != 2 || pi.ForegroundProcesses[0].Cwd != "/home/u/repo" {
		t.Errorf("process info = %+v", pi)
	}
	s, err := c.Snapshot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Protocol != 20 || s.FocusedPaneID != "w1:p2" || len(s.Workspaces) != 1 || len(s.Tabs) != 1 || len(s.Panes) != 2 {
		t.Fatalf("snapshot = %+v", s)
	}
	p := s.Panes[1]
	if p.Agent != "claude" || p.ForegroundCwd != "/r/sub" || p.Revision != 7 || p.Tokens["a"] != "b" || p.AgentStatus != StatusWorking {
		t.Errorf("pane = %+v", p)
	}
}

func TestProtocolWarnings(t *testing.T) {
	tests := []struct {
		name      string
		protocols []int  // one per ping, in order
		warn      string // "" = no warning
	}{
		{"16", []int{16, 16}, ""},
		{"17", []int{17, 17}, ""},
		{"18", []int{18, 18}, ""},
		{"19", []int{19, 19}, ""},
		{"20", []int{20, 20}, ""},
		{"21", []int{21, 21}, ""},
		{"22", []int{22, 22}, ""},
		{"newer", []int{23, 23, 23}, "newer than this client knows; carrying on with the protocol 22 shapes"},
		{"older", []int{15, 15}, "older than this client knows"},
		// A restarted server of yet another version still gets no second
		// line: one warning per client.
		{"newer then newer still", []int{23, 24, 22, 25}, "protocol=23"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var next atomic.Int64
			srv := startRaw(t, func(c *rawConn) {
				req, _ := c.readRequest()
				p := tt.protocols[next.Add(1)-1]
				c.write(fmt.Sprintf(`{"id":%q,"result":{"type":"pong","version":"0.9.0","protocol":%d,"capabilities":{}}}`+"\n", req.ID, p))
				c.expectCleanClose()
			})
			log, buf := newLogger()
			c := New(srv.path, WithLogger(log))
			for _, want := range tt.protocols {
				p, err := c.Ping(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if p.Protocol != want || c.Protocol() != want {
					t.Fatalf("protocol %d / %d, want %d", p.Protocol, c.Protocol(), want)
				}
			}
			out := buf.String()
			n := strings.Count(out, "level=WARN")
			switch {
			case tt.warn == "" && n != 0:
				t.Errorf("unexpected warning: %s", out)
			case tt.warn != "" && (n != 1 || !strings.Contains(out, tt.warn)):
				t.Errorf("want exactly one warning containing %q, got %d: %s", tt.warn, n, out)
			}
		})
	}
}

func TestProtocolReleases(t *testing.T) {
	tests := []struct {
		protocol int
		want     string
		known    bool
	}{
		{15, "", false},
		{16, "0.7.2-0.7.4", true},
		{17, "0.7.5", true},
		{18, "preview builds between 0.7.5 and 0.8.0", true},
		{19, "0.8.0", true},
		{20, "0.8.1-0.8.2", true},
		{21, "an unreleased development branch", true},
		{22, "0.9.x", true},
		{23, "", false},
	}
	for _, tt := range tests {
		got, ok := ProtocolReleases(tt.protocol)
		if got != tt.want || ok != tt.known {
			t.Errorf("ProtocolReleases(%d) = %q, %v; want %q, %v", tt.protocol, got, ok, tt.want, tt.known)
		}
	}
}

// fallbackServer answers like a herdr without session.snapshot; it counts
// calls per method.
func fallbackServer(t *testing.T, snapshotErr string) (*rawServer, func(string) int) {
	var mu sync.Mutex
	calls := map[string]int{}
	srv := startRaw(t, func(c *rawConn) {
		req, _ := c.readRequest()
		mu.Lock()
		calls[req.Method]++
		mu.Unlock()
		var result string
		switch req.Method {
		case "session.snapshot":
			c.write(`{"id":"` + req.ID + `","error":` + snapshotErr + "}\n")
			c.expectCleanClose()
			return
		case "ping":
			result = `{"type":"pong","version":"0.7.5","protocol":17,"capabilities":{}}`
		case "workspace.list":
			result = `{"type":"workspace_list","workspaces":[{"workspace_id":"w1","number":1,"label":"a","focused":false,"pane_count":1,"tab_count":1,"active_tab_id":"w1:t1","agent_status":"unknown"},{"workspace_id":"w2","number":2,"label":"b","focused":true,"pane_count":2,"tab_count":1,"active_tab_id":"w2:t1","agent_status":"idle"}]}`
		case "tab.list":
			result = `{"type":"tab_list","tabs":[{"tab_id":"w1:t1","workspace_id":"w1","number":1,"label":"1","focused":false,"pane_count":1,"agent_status":"unknown"},{"tab_id":"w2:t1","workspace_id":"w2","number":1,"label":"1","focused":true,"pane_count":2,"agent_status":"idle"}]}`
		case "pane.list":
			result = `{"type":"pane_list","panes":[{"pane_id":"w1:p1","terminal_id":"t","workspace_id":"w1","tab_id":"w1:t1","focused":true,"agent_status":"unknown","revision":0},{"pane_id":"w2:p1","terminal_id":"t","workspace_id":"w2","tab_id":"w2:t1","focused":false,"agent_status":"unknown","revision":0},{"pane_id":"w2:p2","terminal_id":"t","workspace_id":"w2","tab_id":"w2:t1","focused":true,"agent_status":"idle","revision":3}]}`
		}
		if string(req.Params) != "{}" {
			c.t.Errorf("server: %s params = %s, want {} (all workspaces)", req.Method, req.Params)
		}
		c.write(`{"id":"` + req.ID + `","result":` + result + "}\n")
		c.expectCleanClose()
	})
	return srv, func(m string) int { mu.Lock(); defer mu.Unlock(); return calls[m] }
}

func TestSnapshotFallback(t *testing.T) {
	for _, e := range []string{
		`{"code":"invalid_request","message":"invalid request: unknown variant ` + "`session.snapshot`" + `, expected one of ` + "`ping`" + `"}`,
		`{"code":"not_implemented","message":"method not implemented yet"}`,
	} {
		t.Run(e[9:24], func(t *testing.T) {
			srv, calls := fallbackServer(t, e)
			log, buf := newLogger()
			c := New(srv.path, WithLogger(log))
			if _, err := c.Ping(context.Background()); err != nil {
				t.Fatal(err)
			}
			for i := range 2 {
				s, err := c.Snapshot(context.Background())
				if err != nil {
					t.Fatalf("snapshot %d: %v", i, err)
				}
				if s.Version != "0.7.5" || s.Protocol != 17 || len(s.Workspaces) != 2 || len(s.Tabs) != 2 || len(s.Panes) != 3 {
					t.Fatalf("snapshot = %+v", s)
				}
				if s.FocusedWorkspaceID != "w2" || s.FocusedTabID != "w2:t1" || s.FocusedPaneID != "w2:p2" {
					t.Errorf("focus = %s %s %s, want w2 w2:t1 w2:p2", s.FocusedWorkspaceID, s.FocusedTabID, s.FocusedPaneID)
				}
			}
			if n := calls("session.snapshot"); n != 1 {
				t.Errorf("session.snapshot asked %d times, want once (then remembered)", n)
			}
			if calls("tab.list") != 2 || calls("pane.list") != 2 || calls("workspace.list") != 2 {
				t.Errorf("list calls: ws %d tab %d pane %d, want 2 each", calls("workspace.list"), calls("tab.list"), calls("pane.list"))
			}
			if !strings.Contains(buf.String(), "no session.snapshot") {
				t.Errorf("no log line about the fallback: %s", buf.String())
			}
		})
	}
}

func TestSnapshotOtherErrorsDoNotFallBack(t *testing.T) {
	for _, e := range []string{
		`{"code":"invalid_request","message":"invalid request: missing field ` + "`params`" + `"}`,
		`{"code":"server_unavailable","message":"server is shutting down"}`,
	} {
		srv, calls := fallbackServer(t, e)
		c := New(srv.path)
		_, err := c.Snapshot(context.Background())
		var ae *APIError
		if !errors.As(err, &ae) {
			t.Fatalf("err = %v, want the APIError", err)
		}
		if calls("tab.list") != 0 {
			t.Errorf("%s: fell back to the lists", ae.Code)
		}
	}
}

func TestSocketPathAccessor(t *testing.T) {
	if got := New("/x/herdr.sock").SocketPath(); got != "/x/herdr.sock" {
		t.Errorf("SocketPath = %q", got)
	}
}

func TestNotRunningUnwraps(t *testing.T) {
	_, err := New(filepath.Join(shortTempDir(t), "no.sock")).Ping(context.Background())
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("err = %v, want it to wrap ENOENT", err)
	}
	var nr *NotRunningError
	if !errors.As(err, &nr) || nr.Reason != "socket missing" {
		t.Errorf("err = %#v", err)
	}
}

// TestUpgradeRedetectsSnapshot: a 0.7.x herdr without session.snapshot is
// replaced by a 0.9 one; the ping after the reconnect makes the client ask
// for the snapshot again instead of keeping the three-call fallback.
func TestUpgradeRedetectsSnapshot(t *testing.T) {
	var upgraded atomic.Bool
	var mu sync.Mutex
	calls := map[string]int{}
	old, _ := fallbackServer(t, `{"code":"invalid_request","message":"invalid request: unknown variant `+"`session.snapshot`"+`"}`)
	srv := startRaw(t, func(c *rawConn) {
		if !upgraded.Load() {
			// Relay to the old server, byte for byte.
			up, err := net.Dial("unix", old.path)
			if err != nil {
				c.t.Error(err)
				return
			}
			defer up.Close()
			_, line := c.readRequest()
			_, _ = up.Write(line)
			reply, _ := bufio.NewReader(up).ReadBytes('\n')
			_, _ = c.Write(reply)
			c.expectCleanClose()
			return
		}
		req, _ := c.readRequest()
		mu.Lock()
		calls[req.Method]++
		mu.Unlock()
		switch req.Method {
		case "ping":
			c.write(`{"id":"` + req.ID + `","result":{"type":"pong","version":"0.9.0","protocol":22,"capabilities":null}}` + "\n")
		case "session.snapshot":
			c.write(`{"id":"` + req.ID + `","result":{"type":"session_snapshot","snapshot":{"version":"0.9.0","protocol":22,"workspaces":[],"tabs":[],"panes":[],"layouts":[],"agents":[]}}}` + "\n")
		default:
			c.t.Errorf("server: %s after the upgrade", req.Method)
		}
		c.expectCleanClose()
	})
	c := New(srv.path)
	ctx := context.Background()
	if _, err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	if s, err := c.Snapshot(ctx); err != nil || s.Protocol != 17 {
		t.Fatalf("old snapshot = %+v, %v", s, err)
	}
	upgraded.Store(true)
	if _, err := c.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	s, err := c.Snapshot(ctx)
	if err != nil || s.Protocol != 22 || s.Version != "0.9.0" {
		t.Fatalf("snapshot after the upgrade = %+v, %v", s, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if calls["session.snapshot"] != 1 {
		t.Errorf("session.snapshot asked %d times after the upgrade, want 1", calls["session.snapshot"])
	}
}

// A request is one line of compact JSON: labels keep every character,
// escaped as herdr's parser reads them, and params that are no object
// are refused before anything is written.
func TestEncodeRequestLine(t *testing.T) {
	c := &Client{}
	type rename struct {
		TabID string `json:"tab_id"`
		Label string `json:"label"`
		Pane  string `json:"pane_id,omitempty"`
	}
	line, id, err := c.encodeRequest("tab.rename", rename{TabID: "w1:t1", Label: "<b>&\"é\u2028\x7f"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"htr-1","method":"tab.rename","params":{"tab_id":"w1:t1","label":"\u003cb\u003e\u0026\"é\u2028` + "\x7f" + `"}}` + "\n"
	if string(line) != want || id != "htr-1" {
		t.Fatalf("encodeRequest = %q, %q\nwant %q, htr-1", line, id, want)
	}
	if line, _, _ = c.encodeRequest("ping", nil); string(line) != `{"id":"htr-2","method":"ping","params":{}}`+"\n" {
		t.Fatalf("no params: %q", line)
	}
	var none map[string]string
	if line, _, _ = c.encodeRequest("ping", none); string(line) != `{"id":"htr-3","method":"ping","params":{}}`+"\n" {
		t.Fatalf("nil map: %q", line)
	}
	if _, _, err := c.encodeRequest("ping", []int{1}); err == nil {
		t.Fatal("an array as params was encoded")
	}
}
