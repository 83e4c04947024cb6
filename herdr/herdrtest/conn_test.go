package herdrtest

import (
	"encoding/json"
	"errors"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestConnectionTable covers every row of docs/herdr.md §2's table that a
// server meets on a plain request.
func TestConnectionTable(t *testing.T) {
	s := start(t)
	const invalid = `{"id":"","error":{"code":"invalid_request","message":"invalid request: `
	tests := []struct {
		name, in string
		want     string // "" = no reply at all; else a prefix of the single line
		contains string
	}{
		{"valid", `{"id":"a","method":"ping","params":{}}` + "\n", `{"id":"a","result":{"type":"pong","version":"0.9.1","protocol":22,`, ""},
		{"key order free", `{"id":"a","params":{},"method":"ping"}` + "\n", `{"id":"a","result":{"type":"pong"`, ""},
		{"extra fields ignored", `{"id":"a","method":"ping","params":{"x":1},"y":2}` + "\n", `{"id":"a","result":{"type":"pong"`, ""},
		{"whitespace trimmed", " \t" + `{"id":"a","method":"ping","params":{}}` + " \r\n", `{"id":"a","result":{"type":"pong"`, ""},
		{"missing params", `{"id":"a","method":"ping"}` + "\n", invalid, "missing field `params`"},
		{"params null", `{"id":"a","method":"ping","params":null}` + "\n", invalid, "invalid type: null, expected struct"},
		{"params not object", `{"id":"a","method":"ping","params":[]}` + "\n", invalid, "invalid type: sequence"},
		{"unknown method", `{"id":"a","method":"nope","params":{}}` + "\n", invalid, "unknown variant `nope`, expected one of `ping`"},
		{"missing id", `{"method":"ping","params":{}}` + "\n", invalid, "missing field `id`"},
		{"integer id", `{"id":1,"method":"ping","params":{}}` + "\n", invalid, "invalid type: integer `1`, expected a string"},
		{"not json", "not json\n", invalid, "at line 1 column"},
		{"not an object", "[1]\n", invalid, "invalid type: sequence"},
		{"missing required param", `{"id":"a","method":"tab.get","params":{}}` + "\n", invalid, "missing field `tab_id`"},
		{"wrong param type", `{"id":"a","method":"tab.rename","params":{"tab_id":"w1:t1","label":null}}` + "\n", invalid, "invalid type: null, expected a string"},
		{"blank line", "\n", "", ""},
		{"whitespace line", "  \r\t\n", "", ""},
		{"invalid utf-8", "{\"id\":\"\xff\",\"method\":\"ping\",\"params\":{}}\n", "", ""},
		{"eof before newline", `{"id":"a","method":"ping","params":{}}`, "", ""},
		{"not implemented", `{"id":"a","method":"pane.zoom","params":{"pane_id":"w1:p1"}}` + "\n", `{"id":"a","error":{"code":"not_implemented","message":"method not implemented yet"}}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := net.Dial("unix", s.SocketPath())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_ = c.SetDeadline(time.Now().Add(10 * time.Second))
			io.WriteString(c, tt.in)
			if !strings.HasSuffix(tt.in, "\n") {
				c.(*net.UnixConn).CloseWrite()
			}
			b, err := io.ReadAll(c)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			out := string(b)
			if tt.want == "" {
				if out != "" {
					t.Fatalf("want no reply, got %q", out)
				}
				return
			}
			if !strings.HasPrefix(out, tt.want) || strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
				t.Fatalf("got %q, want one line starting %q", out, tt.want)
			}
			if !strings.Contains(out, tt.contains) {
				t.Fatalf("got %q, want it to contain %q", out, tt.contains)
			}
		})
	}
}

func TestRequestSizeLimit(t *testing.T) {
	s := start(t)
	prefix, suffix := `{"id":"big","method":"ping","params":{"pad":"`, `"}}`
	exact := prefix + strings.Repeat("x", herdrsim.MaxRequestBytes-len(prefix)-len(suffix)) + suffix
	if len(exact) != 1<<20 {
		t.Fatalf("built %d bytes", len(exact))
	}
	for _, tt := range []struct {
		name  string
		line  string
		reply bool
	}{
		{"exactly 1 MiB accepted", exact, true},
		{"1 MiB + 1 dropped", exact[:1] + " " + exact[1:], false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := exchange(t, s, tt.line+"\n")
			if tt.reply != strings.HasPrefix(out, `{"id":"big","result":{"type":"pong"`) {
				t.Fatalf("reply %q (err %v), want reply=%v", out[:min(len(out), 80)], err, tt.reply)
			}
			if !tt.reply && out != "" {
				t.Fatalf("want silence, got %q", out)
			}
		})
	}
}

// No whole line within the read timeout: closed without a reply, with the
// read poll on (herdr checks its deadline only after an empty look) or off.
func TestSlowRequestTimesOut(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts []herdrsim.Option
	}{{"poll on", nil}, {"poll off", []herdrsim.Option{herdrsim.WithoutReadPoll()}}} {
		t.Run(tt.name, func(t *testing.T) {
			s := Start(t, append([]herdrsim.Option{schemaOpt(t), herdrsim.WithReadTimeout(100 * time.Millisecond)}, tt.opts...)...)
			c, err := net.Dial("unix", s.SocketPath())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			io.WriteString(c, `{"id":"a","method":"ping",`)
			_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
			b, err := io.ReadAll(c)
			if err != nil || len(b) != 0 {
				t.Fatalf("want close without reply, got %q, %v", b, err)
			}
			if s.Calls("") != 0 {
				t.Fatalf("%d calls parsed", s.Calls(""))
			}
		})
	}
}

// Pipelined bytes are never read: the answer arrives, then the unread
// data makes the close a reset (Linux).
func TestPipelinedBytesReset(t *testing.T) {
	s := start(t)
	ping := `{"id":"a","method":"ping","params":{}}` + "\n"
	out, err := exchange(t, s, ping+ping)
	if !strings.HasPrefix(out, `{"id":"a","result":{"type":"pong"`) || strings.Count(out, "\n") != 1 {
		t.Fatalf("got %q, want one pong", out)
	}
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("read error %v, want ECONNRESET", err)
	}
	if n := s.Calls("ping"); n != 1 {
		t.Fatalf("%d pings handled, want 1 (second request must never be read)", n)
	}
}

func TestFaults(t *testing.T) {
	s := start(t)
	ping := `{"id":"a","method":"ping","params":{}}` + "\n"
	tests := []struct {
		fault herdrsim.Fault
		check func(out string, err error) bool
	}{
		{herdrsim.FaultGarbage, func(out string, err error) bool { return err == nil && out != "" && !json.Valid([]byte(out)) }},
		{herdrsim.FaultCloseNoAnswer, func(out string, err error) bool { return err == nil && out == "" }},
		{herdrsim.FaultReset, func(out string, err error) bool { return out == "" && errors.Is(err, syscall.ECONNRESET) }},
		{herdrsim.FaultCutLine, func(out string, err error) bool { return err == nil && out != "" && !strings.Contains(out, "\n") }},
		{herdrsim.FaultOversize, func(out string, err error) bool {
			return err == nil && len(out) > herdrsim.MaxRequestBytes && json.Valid([]byte(out))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.fault.String(), func(t *testing.T) {
			s.InjectFault("ping", tt.fault, 1)
			out, err := exchange(t, s, ping)
			if !tt.check(out, err) {
				t.Fatalf("fault %v: got %q (%d bytes), err %v", tt.fault, out[:min(len(out), 80)], len(out), err)
			}
			if out, _ := exchange(t, s, ping); !strings.Contains(out, `"pong"`) {
				t.Fatalf("fault did not clear after one call: %q", out)
			}
		})
	}
}

func TestLatencyAndCounters(t *testing.T) {
	s := start(t)
	s.SetLatency("ping", 150*time.Millisecond)
	began := time.Now()
	call(t, s, "ping", map[string]any{})
	if d := time.Since(began); d < 150*time.Millisecond {
		t.Fatalf("answered after %v, want >= 150ms", d)
	}
	call(t, s, "workspace.list", map[string]any{})
	if s.Connections() != 2 || s.Calls("ping") != 1 || s.Calls("") != 2 {
		t.Fatalf("connections %d, ping %d, all %d", s.Connections(), s.Calls("ping"), s.Calls(""))
	}
	s.ResetCounters()
	if s.Connections() != 0 || s.Calls("") != 0 {
		t.Fatal("counters not reset")
	}
}

func TestStopRestart(t *testing.T) {
	s := start(t)
	_, tab, _ := s.NewWorkspace("w", "/tmp")
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := net.Dial("unix", s.SocketPath()); err == nil {
		t.Fatal("dial succeeded while stopped")
	}
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	r := result(t, call(t, s, "tab.get", map[string]any{"tab_id": tab}))
	if r["tab"].(map[string]any)["tab_id"] != tab {
		t.Fatalf("session lost across restart: %v", r)
	}
	// the ring starts empty: no replay of the creation events
	st := subscribe(t, s, map[string]any{"type": "tab.created"})
	if l := st.next(t); l != `{"id":"sub","result":{"type":"subscription_started"}}` {
		t.Fatalf("ack %q", l)
	}
	// A tab created now must be the first event the stream sends.
	fence, _ := s.NewTab(r["tab"].(map[string]any)["workspace_id"].(string), "/tmp")
	if replayed := st.before(t, mark(`"tab_created"`, `"tab_id":"`+fence+`"`)); len(replayed) > 0 {
		t.Fatalf("replayed %q after restart", replayed)
	}
}
