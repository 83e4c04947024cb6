package herdrsim

import (
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// The agent session a pane carries (PaneInfo.agent_session), as herdr
// 0.8.2 keeps it (src/agent_resume.rs, src/terminal/state.rs
// set_agent_session_ref_for_session_start and set_hook_authority_at,
// src/app/creation.rs terminal_agent_session_info; the same rules in the
// 0.9 line). Only herdr's own integrations get one: a report from any
// other source, or with a kind herdr does not keep for that agent, leaves
// the session alone. A change emits no event and leaves revision alone.
//
// Not modelled: the gating of full-lifecycle integrations (pi, omp,
// opencode, kilo, kimi, mastracode) whose pane.report_agent_session comes
// before their process is seen, and foreground takeovers of another
// integration's session; both are answered ok and ignored, as herdr does
// in the common case of each.

// officialSources are herdr's own integrations, source and agent label
// (agent_resume.rs is_official_agent_source).
var officialSources = map[string]string{
	"herdr:claude": "claude", "herdr:codex": "codex", "herdr:copilot": "copilot",
	"herdr:devin": "devin", "herdr:droid": "droid", "herdr:kimi": "kimi", "herdr:omp": "omp",
	"herdr:mastracode": "mastracode", "herdr:pi": "pi", "herdr:hermes": "hermes",
	"herdr:opencode": "opencode", "herdr:qodercli": "qodercli", "herdr:qwen": "qwen",
	"herdr:kilo": "kilo", "herdr:cursor": "cursor", "herdr:antigravity_cli": "agy", "herdr:grok": "grok",
}

// nativeStateSources are the integrations whose pane.report_agent only
// records the session: herdr reads their status off the screen
// (is_reserved_native_state_source).
var nativeStateSources = map[string]bool{
	"herdr:claude": true, "herdr:codex": true, "herdr:copilot": true, "herdr:devin": true,
	"herdr:droid": true, "herdr:qodercli": true, "herdr:qwen": true, "herdr:cursor": true, "herdr:grok": true,
}

// fullLifecycleSources report their own status and are gated on their
// process (detect::full_lifecycle_hook_authority).
var fullLifecycleSources = map[string]bool{
	"herdr:pi": true, "herdr:omp": true, "herdr:mastracode": true,
	"herdr:opencode": true, "herdr:kilo": true, "herdr:kimi": true,
}

// replacingStarts are the session_start_source values with which an
// integration may replace its own session id by another
// (session_report_allows_session_replacement); "" is a report without one.
var replacingStarts = map[string][]string{
	"herdr:claude": {"clear", "resume", "compact"}, "herdr:codex": {"startup", "clear", "resume", "compact"},
	"herdr:mastracode": {"startup"}, "herdr:hermes": {"startup", "new", "resume"}, "herdr:opencode": {"select"},
	"herdr:pi": {"new", "resume", "fork"}, "herdr:omp": {"startup", "new", "resume", "fork"},
	"herdr:qwen": {"startup", "clear", "resume", "compact", "branch"}, "herdr:antigravity_cli": {""},
}

// startSources are the session_start_source values herdr recognises
// (normalize_session_start_source); it drops any other.
var startSources = []string{"startup", "resume", "clear", "compact", "branch", "new", "fork", "select"}

// identityOnlySources report a session and nothing else: herdr ignores
// their pane.report_agent (session_identity_only_integration).
var identityOnlySources = map[string]bool{"herdr:hermes": true, "herdr:qwen": true, "herdr:antigravity_cli": true}

const (
	maxSessionIDLen   = 512
	maxSessionPathLen = 4096
)

// sessionReport is one report's session fields.
type sessionReport struct {
	source, agent string
	id, path      *string
	seq           *uint64
	start         string // session_start_source, trimmed; "" when absent or unknown
}

func (pr *params) sessionReport(source, agent string) sessionReport {
	r := sessionReport{source: strings.TrimSpace(source), agent: strings.TrimSpace(agent)}
	if v, ok := pr.str("agent_session_id", false); ok {
		r.id = &v
	}
	if v, ok := pr.str("agent_session_path", false); ok {
		r.path = &v
	}
	if v, ok := pr.uint("seq", false); ok {
		r.seq = &v
	}
	if v, ok := pr.str("session_start_source", false); ok && slices.Contains(startSources, strings.TrimSpace(v)) {
		r.start = strings.TrimSpace(v)
	}
	return r
}

// ref is the session herdr keeps from r (session_ref_from_report): none
// from an unofficial source; pi and omp keep the path, else the id; every
// other integration keeps the id only.
func (r sessionReport) ref() *herdr.AgentSession {
	if officialSources[r.source] != r.agent || r.agent == "" {
		return nil
	}
	out := &herdr.AgentSession{Source: r.source, Agent: r.agent}
	if (r.agent == "pi" || r.agent == "omp") && r.path != nil && validSessionPath(*r.path) {
		out.Kind, out.Value = herdr.SessionKindPath, *r.path
		return out
	}
	if r.id != nil && validSessionID(*r.id) {
		out.Kind, out.Value = herdr.SessionKindID, *r.id
		return out
	}
	return nil
}

func validSessionID(v string) bool {
	return v != "" && len(v) <= maxSessionIDLen && !strings.ContainsFunc(v, unicode.IsControl)
}

func validSessionPath(v string) bool {
	return v != "" && len(v) <= maxSessionPathLen && !strings.ContainsFunc(v, unicode.IsControl) && path.IsAbs(v)
}

// acceptSeq is herdr's per-source report order (accept_hook_report): a
// sequenced report must be newer than the last, an unsequenced one is
// taken only from a source that never sent a sequence.
func (p *pane) acceptSeq(source string, seq *uint64) bool {
	last, seen := p.hookSeqs[source]
	if seq == nil {
		return !seen
	}
	if seen && *seq <= last {
		return false
	}
	if p.hookSeqs == nil {
		p.hookSeqs = map[string]uint64{}
	}
	p.hookSeqs[source] = *seq
	return true
}

// recordSession applies a session report to p; s.mu held.
func (p *pane) recordSession(r sessionReport) {
	ref := r.ref()
	if ref == nil {
		return
	}
	if fullLifecycleSources[r.source] && (p.agent != r.agent || p.session == nil) {
		return
	}
	if !p.acceptSeq(r.source, r.seq) {
		return
	}
	if p.agent != "" && knownAgent(r.agent) && p.agent != r.agent {
		return // the agent herdr detects in the pane is another one
	}
	cur := p.session
	if cur != nil && (cur.Source != r.source || cur.Agent != r.agent) {
		return // another integration's session
	}
	if otherID(cur, ref) && !slices.Contains(replacingStarts[r.source], r.start) {
		return // a different session of the same agent, without a new start
	}
	p.session = ref
}

// otherID reports whether ref names another session id than cur.
func otherID(cur, ref *herdr.AgentSession) bool {
	return cur != nil && ref != nil && cur.Kind == herdr.SessionKindID && ref.Kind == herdr.SessionKindID && cur.Value != ref.Value
}

// recordAuthority applies the session fields of a pane.report_agent that
// sets the pane's status (a hook authority); false when herdr ignores the
// whole report: it comes from another integration than the one owning
// the pane's session, or out of order. An authority report without a
// session leaves the pane none; one naming another id of the same
// session's owner keeps the session it has.
func (p *pane) recordAuthority(r sessionReport) bool {
	cur := p.session
	if cur != nil && (cur.Source != r.source || cur.Agent != r.agent) {
		return false
	}
	if !p.acceptSeq(r.source, r.seq) {
		return false
	}
	ref := r.ref()
	if otherID(cur, ref) {
		ref = cur
	}
	p.session = ref
	return true
}

// knownAgent reports whether herdr detects agent by itself (an agent
// label of its manifests), which is when a report of it can conflict with
// what the pane runs.
func knownAgent(agent string) bool {
	for _, a := range officialSources {
		if a == agent {
			return true
		}
	}
	return false
}

// dropSessionOf forgets p's session when the agent that owns it leaves the
// pane: herdr clears the session of an agent whose process exited.
func (p *pane) dropSessionOf(oldAgent, newAgent string) {
	if p.session != nil && p.session.Agent == oldAgent && newAgent != oldAgent {
		p.session = nil
	}
}

// paneReportAgentSession is pane.report_agent_session: the session alone,
// no status (src/app/api/panes.rs@v0.8.2).
func (s *Server) paneReportAgentSession(pr *params) (any, error) {
	source, _ := pr.str("source", true)
	agent, _ := pr.str("agent", true)
	r := pr.sessionReport(source, agent)
	p, err := s.needPane(pr)
	if err != nil {
		return nil, err
	}
	if r.agent == "" {
		return nil, errf("invalid_agent", "agent label must not be empty")
	}
	p.recordSession(r)
	return typeOnly{Type: "ok"}, nil
}

// paneReleaseAgent is an agent's hook saying it left the pane
// (handle_pane_release_agent in src/app/api/panes.rs@v0.8.2): the agent a
// report named leaves, herdr's pane.agent_detected saying released. A
// release of another agent than the pane's changes nothing.
func (s *Server) paneReleaseAgent(pr *params) (any, error) {
	pr.str("source", true)
	agent, _ := pr.str("agent", true)
	pr.uint("seq", false)
	p, err := s.needPane(pr)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(agent) == "" {
		return nil, errf("invalid_agent", "agent must not be empty")
	}
	if p.agent == strings.TrimSpace(agent) {
		p.session = nil
		s.setAgent(p, "", "")
	}
	return typeOnly{Type: "ok"}, nil
}
