package herdr

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
)

// servePong answers every connection with one pong line carrying caps as
// the raw capabilities member ("" leaves the member out).
func servePong(t *testing.T, caps string) *rawServer {
	t.Helper()
	member := ""
	if caps != "" {
		member = `,"capabilities":` + caps
	}
	return startRaw(t, func(c *rawConn) {
		c.readRequest()
		c.write(`{"id":"fixture","result":{"type":"pong","version":"0.9.0","protocol":22` + member + "}}\n")
		c.expectCleanClose()
	})
}

func ptr[T any](v T) *T { return &v }

func TestPingCapabilities(t *testing.T) {
	tests := []struct {
		name string
		caps string // raw JSON; "" = member absent
		want *Capabilities
	}{
		{
			// The capabilities of a live herdr 0.9.0 ping (docs/herdr.md §4).
			name: "live 0.9.0",
			caps: `{"live_handoff":true,"detached_server_daemon":true,"endpoint_protocol_generation":1,"surface_interest":true,"health_check":true}`,
			want: &Capabilities{LiveHandoff: ptr(true), DetachedServerDaemon: ptr(true), EndpointProtocolGeneration: ptr(1), SurfaceInterest: ptr(true), HealthCheck: ptr(true)},
		},
		{
			name: "0.8 two booleans",
			caps: `{"live_handoff":false,"detached_server_daemon":true}`,
			want: &Capabilities{LiveHandoff: ptr(false), DetachedServerDaemon: ptr(true)},
		},
		{name: "null", caps: `null`, want: nil},
		{name: "absent", caps: "", want: nil},
		{name: "empty object", caps: `{}`, want: &Capabilities{}},
		{
			name: "generation null",
			caps: `{"endpoint_protocol_generation":null,"health_check":null}`,
			want: &Capabilities{},
		},
		{
			name: "unknown keys of every type",
			caps: `{"future":{"a":[1,{"b":null}]},"level":"x","ratio":1.5,"list":[true],"off":false,"live_handoff":true}`,
			want: &Capabilities{LiveHandoff: ptr(true), Other: map[string]json.RawMessage{
				"future": json.RawMessage(`{"a":[1,{"b":null}]}`), "level": json.RawMessage(`"x"`), "ratio": json.RawMessage(`1.5`),
				"list": json.RawMessage(`[true]`), "off": json.RawMessage(`false`),
			}},
		},
		{
			// A known name with a shape this client does not expect is
			// kept, not decoded and not fatal.
			name: "known keys in odd shapes",
			caps: `{"endpoint_protocol_generation":"1","surface_interest":{"on":true},"health_check":2,"live_handoff":1.5}`,
			want: &Capabilities{Other: map[string]json.RawMessage{
				"endpoint_protocol_generation": json.RawMessage(`"1"`), "surface_interest": json.RawMessage(`{"on":true}`),
				"health_check": json.RawMessage(`2`), "live_handoff": json.RawMessage(`1.5`),
			}},
		},
		{name: "a string", caps: `"all"`, want: &Capabilities{}},
		{name: "an array", caps: `["live_handoff"]`, want: &Capabilities{}},
		{name: "a number", caps: `7`, want: &Capabilities{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := servePong(t, tt.caps)
			p, err := New(srv.path).Ping(context.Background())
			if err != nil {
				t.Fatalf("ping: %v", err)
			}
			if p.Version != "0.9.0" || p.Protocol != 22 {
				t.Errorf("pong = %+v", p)
			}
			got := p.Capabilities
			if got != nil {
				if string(got.Raw) != tt.caps {
					t.Errorf("Raw = %s, want %s", got.Raw, tt.caps)
				}
				c := *got
				c.Raw = nil
				got = &c
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("capabilities = %s\nwant %s", dump(got), dump(tt.want))
			}
		})
	}
}

func dump(c *Capabilities) string {
	if c == nil {
		return "nil"
	}
	b, _ := json.Marshal(struct {
		*Capabilities
		Raw any `json:"-"`
	}{Capabilities: c})
	return string(b)
}

// TestUnknownFieldsEverywhere feeds every typed call replies with fields
// this client has never heard of at each level (envelope, result, object,
// nested object, array member): all of them must be ignored. The extras
// include fields later herdr builds really add (program_status,
// restore_error on panes) and nested shapes.
func TestUnknownFieldsEverywhere(t *testing.T) {
	const x = `"zz_new":{"deep":[1,{"k":null}],"s":"v"},"zz_flag":true,"zz_n":-1.5e3,"zz_null":null`
	replies := map[string]string{
		"ping": `{"type":"pong",` + x + `,"version":"0.9.3","protocol":22,"capabilities":{"live_handoff":true,` + x + `}}`,
		"session.snapshot": `{"type":"session_snapshot",` + x + `,"snapshot":{` + x + `,"version":"0.9.3","protocol":22,"focused_workspace_id":"w1",` +
			`"workspaces":[{` + x + `,"workspace_id":"w1","number":1,"label":"repo","focused":true,"pane_count":1,"tab_count":1,"active_tab_id":"w1:t1","agent_status":"idle","worktree":{"path":"/r","branch":"main"}}],` +
			`"tabs":[{` + x + `,"tab_id":"w1:t1","workspace_id":"w1","number":1,"label":"1","focused":true,"pane_count":1,"agent_status":"idle","display_label":"x"}],` +
			`"panes":[{` + x + `,"pane_id":"w1:p1","terminal_id":"term_1","workspace_id":"w1","tab_id":"w1:t1","focused":true,"cwd":"/r","agent_status":"idle","program_status":"running","restore_error":null,"scroll":{"offset_from_bottom":0,"max_offset_from_bottom":9,"viewport_rows":40},"agent_session":{"id":"s"},"revision":4}],` +
			`"layouts":[{"tab_id":"w1:t1","root":{"type":"pane","pane_id":"w1:p1"}}],"agents":[{"terminal_id":"term_1","zz":1}]}}`,
		"tab.list":          `{"type":"tab_list",` + x + `,"tabs":[{"tab_id":"w1:t1","workspace_id":"w1","number":1,"label":"1","focused":true,"pane_count":1,"agent_status":"idle",` + x + `}]}`,
		"pane.list":         `{"type":"pane_list",` + x + `,"panes":[{"pane_id":"w1:p1","terminal_id":"term_1","workspace_id":"w1","tab_id":"w1:t1","focused":true,"agent_status":"idle","revision":4,` + x + `}]}`,
		"workspace.list":    `{"type":"workspace_list",` + x + `,"workspaces":[{"workspace_id":"w1","number":1,"label":"repo","focused":true,"pane_count":1,"tab_count":1,"active_tab_id":"w1:t1","agent_status":"idle",` + x + `}]}`,
		"tab.rename":        `{"type":"tab_info",` + x + `,"tab":{"tab_id":"w1:t1","workspace_id":"w1","number":1,"label":"build","focused":true,"pane_count":1,"agent_status":"idle",` + x + `}}`,
		"pane.process_info": `{"type":"pane_process_info",` + x + `,"process_info":{` + x + `,"pane_id":"w1:p1","shell_pid":10,"foreground_process_group_id":11,"tty":"/dev/pts/1","foreground_processes":[{` + x + `,"pid":11,"name":"vim","argv":["vim"],"start_time":123}]}}`,
	}
	srv := startRaw(t, func(c *rawConn) {
		req, _ := c.readRequest()
		r, ok := replies[req.Method]
		if !ok {
			c.t.Errorf("server: unexpected method %s", req.Method)
			return
		}
		c.write(`{` + x + `,"id":"` + req.ID + `","result":` + r + `,"zz_after":[{` + x + "}]}\n")
		c.expectCleanClose()
	})
	c := New(srv.path)
	ctx := context.Background()
	p, err := c.Ping(ctx)
	if err != nil || p.Version != "0.9.3" || p.Capabilities == nil || p.Capabilities.LiveHandoff == nil || len(p.Capabilities.Other) != 4 {
		t.Errorf("ping = %+v, %v", p, err)
	}
	s, err := c.Snapshot(ctx)
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	if len(s.Workspaces) != 1 || len(s.Tabs) != 1 || len(s.Panes) != 1 || s.Panes[0].Revision != 4 || s.Panes[0].Cwd != "/r" || s.Tabs[0].Label != "1" || s.Workspaces[0].Label != "repo" {
		t.Errorf("snapshot = %+v", s)
	}
	if tabs, err := c.Tabs(ctx, ""); err != nil || len(tabs) != 1 || tabs[0].ID != "w1:t1" {
		t.Errorf("tabs = %+v, %v", tabs, err)
	}
	if panes, err := c.Panes(ctx, ""); err != nil || len(panes) != 1 || panes[0].Revision != 4 {
		t.Errorf("panes = %+v, %v", panes, err)
	}
	if ws, err := c.Workspaces(ctx); err != nil || len(ws) != 1 || ws[0].ActiveTabID != "w1:t1" {
		t.Errorf("workspaces = %+v, %v", ws, err)
	}
	if tab, err := c.RenameTab(ctx, "w1:t1", "build"); err != nil || tab.Label != "build" {
		t.Errorf("rename = %+v, %v", tab, err)
	}
	pi, err := c.ProcessInfo(ctx, "w1:p1")
	if err != nil || pi.ForegroundPGID != 11 || len(pi.ForegroundProcesses) != 1 || pi.ForegroundProcesses[0].Name != "vim" {
		t.Errorf("process info = %+v, %v", pi, err)
	}
}
