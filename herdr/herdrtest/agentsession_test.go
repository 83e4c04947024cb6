package herdrtest

import (
	"encoding/json"
	"fmt"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"reflect"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// paneSession is the agent_session pane.get answers for pane, nil for none.
func paneSession(t *testing.T, s *herdrsim.Server, pane string) *herdr.AgentSession {
	t.Helper()
	raw, err := json.Marshal(result(t, call(t, s, "pane.get", map[string]any{"pane_id": pane}))["pane"])
	if err != nil {
		t.Fatal(err)
	}
	var p herdr.Pane
	mustJSON(t, string(raw), &p)
	return p.AgentSession
}

func claudeID(id string) *herdr.AgentSession {
	return &herdr.AgentSession{Source: "herdr:claude", Agent: "claude", Kind: herdr.SessionKindID, Value: id}
}

// TestAgentSessionReports: the session herdr keeps from pane.report_agent
// and pane.report_agent_session, step by step on one pane, on the
// protocols of 0.8.2 and 0.9 (every line is checked against the played
// protocol's schema).
func TestAgentSessionReports(t *testing.T) {
	piPath := "/home/u/.pi/agent/sessions/--x--/2026-01-01T00-00-00-000Z_s1.jsonl"
	pi := &herdr.AgentSession{Source: "herdr:pi", Agent: "pi", Kind: herdr.SessionKindPath, Value: piPath}
	steps := []struct {
		name   string
		method string
		params map[string]any
		do     func(s *herdrsim.Server, pane string)
		want   *herdr.AgentSession
	}{
		{"none at first", "", nil, nil, nil},
		{"an unofficial source gets none", "pane.report_agent_session",
			map[string]any{"source": "mine", "agent": "claude", "agent_session_id": "s0"}, nil, nil},
		{"claude's hook: the id, the transcript path dropped", "pane.report_agent_session",
			map[string]any{"source": "herdr:claude", "agent": "claude", "seq": 10, "agent_session_id": "s1",
				"agent_session_path": "/home/u/.claude/projects/-x/s1.jsonl", "session_start_source": "startup"}, nil, claudeID("s1")},
		{"another id without a new start is ignored", "pane.report_agent_session",
			map[string]any{"source": "herdr:claude", "agent": "claude", "seq": 11, "agent_session_id": "s2"}, nil, claudeID("s1")},
		{"an older report is ignored", "pane.report_agent_session",
			map[string]any{"source": "herdr:claude", "agent": "claude", "seq": 5, "agent_session_id": "s3", "session_start_source": "clear"}, nil, claudeID("s1")},
		{"/clear starts another session", "pane.report_agent_session",
			map[string]any{"source": "herdr:claude", "agent": "claude", "seq": 12, "agent_session_id": "s4", "session_start_source": "clear"}, nil, claudeID("s4")},
		{"pane.report_agent of claude tells the session only", "pane.report_agent",
			map[string]any{"source": "herdr:claude", "agent": "claude", "state": "working", "seq": 13, "agent_session_id": "s4"}, nil, claudeID("s4")},
		{"another integration cannot take it", "pane.report_agent",
			map[string]any{"source": "herdr:pi", "agent": "pi", "state": "working", "agent_session_path": piPath}, nil, claudeID("s4")},
		{"claude leaves: the session goes", "", nil, func(s *herdrsim.Server, pane string) {
			s.SetAgent(pane, "claude", herdr.StatusIdle)
			s.SetAgent(pane, "", "")
		}, nil},
		{"pi's hook reports its session file", "pane.report_agent",
			map[string]any{"source": "herdr:pi", "agent": "pi", "state": "working", "agent_session_path": piPath}, nil, pi},
		{"a relative path is no session", "pane.report_agent",
			map[string]any{"source": "herdr:pi", "agent": "pi", "state": "idle", "agent_session_path": "rel.jsonl"}, nil, nil},
	}
	for _, protocol := range []int{20, 22} {
		t.Run(fmt.Sprint("protocol ", protocol), func(t *testing.T) {
			s := start(t, herdrsim.WithProtocol(protocol))
			_, _, pane := s.NewWorkspace("w", "/tmp")
			for _, st := range steps {
				if st.do != nil {
					st.do(s, pane)
				}
				if st.method != "" {
					st.params["pane_id"] = pane
					if r := result(t, call(t, s, st.method, st.params)); r["type"] != "ok" {
						t.Fatalf("%s: %s answered %v", st.name, st.method, r)
					}
				}
				if got := paneSession(t, s, pane); !reflect.DeepEqual(got, st.want) {
					t.Fatalf("%s: agent_session %+v, want %+v", st.name, got, st.want)
				}
			}
		})
	}
}

// TestAgentSessionIsSilent: a new session emits no event and leaves
// revision alone; it shows in session.snapshot's panes and agents.
func TestAgentSessionIsSilent(t *testing.T) {
	s := start(t)
	_, _, pane := s.NewWorkspace("w", "/tmp")
	s.SetAgent(pane, "claude", herdr.StatusIdle)
	st := subscribe(t, s, map[string]any{"type": "pane.updated"}, map[string]any{"type": "pane.agent_detected"})
	st.next(t) // ack
	call(t, s, "pane.report_agent_session", map[string]any{"pane_id": pane, "source": "herdr:claude", "agent": "claude", "agent_session_id": "s1"})
	if got := paneSession(t, s, pane); !reflect.DeepEqual(got, claudeID("s1")) {
		t.Fatalf("agent_session %+v", got)
	}
	s.SetTitle(pane, "fence")
	if extra := st.before(t, mark(`"fence"`)); len(extra) > 0 {
		t.Errorf("a session report emitted %q", extra)
	}
	if rev := revision(t, s, pane); rev != 1 {
		t.Errorf("revision %v after the title only, want 1", rev)
	}
	snap := s.Snapshot()
	if len(snap.Panes) != 1 || !reflect.DeepEqual(snap.Panes[0].AgentSession, claudeID("s1")) {
		t.Errorf("snapshot panes %+v", snap.Panes)
	}
	agents := result(t, call(t, s, "session.snapshot", map[string]any{}))["snapshot"].(map[string]any)["agents"].([]any)
	if len(agents) != 1 || agents[0].(map[string]any)["agent_session"].(map[string]any)["value"] != "s1" {
		t.Errorf("snapshot agents %v", agents)
	}
}

func TestReportAgentSessionErrors(t *testing.T) {
	s := start(t)
	_, _, pane := s.NewWorkspace("w", "/tmp")
	for _, tt := range []struct {
		params map[string]any
		code   string
	}{
		{map[string]any{"pane_id": "w1:p9", "source": "herdr:claude", "agent": "claude"}, "pane_not_found"},
		{map[string]any{"pane_id": pane, "source": "herdr:claude", "agent": "  "}, "invalid_agent"},
	} {
		if code, _ := errCode(t, call(t, s, "pane.report_agent_session", tt.params)); code != tt.code {
			t.Errorf("%v: code %s, want %s", tt.params, code, tt.code)
		}
	}
}
