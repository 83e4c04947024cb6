package herdrsim

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// apiError is an error answer with one of herdr's codes.
type apiError struct{ code, msg string }

func (e *apiError) Error() string { return e.code + ": " + e.msg }

func errf(code, format string, args ...any) *apiError {
	return &apiError{code: code, msg: fmt.Sprintf(format, args...)}
}

// Result payloads: "type" first, then declaration order (docs/herdr.md §3).
type (
	typeOnly struct {
		Type string `json:"type"`
	}
	pongResult struct {
		Type         string       `json:"type"`
		Version      string       `json:"version"`
		Protocol     int          `json:"protocol"`
		Capabilities capabilities `json:"capabilities"`
	}
	// capabilities is herdr's ServerCapabilities in declaration order;
	// 0.9 added the last three, one of them an integer (docs/herdr.md §4).
	capabilities struct {
		LiveHandoff                bool  `json:"live_handoff"`
		DetachedServerDaemon       bool  `json:"detached_server_daemon"`
		EndpointProtocolGeneration *int  `json:"endpoint_protocol_generation,omitempty"`
		SurfaceInterest            *bool `json:"surface_interest,omitempty"`
		HealthCheck                *bool `json:"health_check,omitempty"`
	}
	snapshotResult struct {
		Type     string          `json:"type"`
		Snapshot sessionSnapshot `json:"snapshot"`
	}
	workspaceListResult struct {
		Type       string            `json:"type"`
		Workspaces []herdr.Workspace `json:"workspaces"`
	}
	tabListResult struct {
		Type string      `json:"type"`
		Tabs []herdr.Tab `json:"tabs"`
	}
	tabResult struct {
		Type string    `json:"type"`
		Tab  herdr.Tab `json:"tab"`
	}
	tabCreatedResult struct {
		Type     string    `json:"type"`
		Tab      herdr.Tab `json:"tab"`
		RootPane paneWire  `json:"root_pane"`
	}
	paneListResult struct {
		Type  string     `json:"type"`
		Panes []paneWire `json:"panes"`
	}
	paneResult struct {
		Type string   `json:"type"`
		Pane paneWire `json:"pane"`
	}
	processInfoResult struct {
		Type        string            `json:"type"`
		ProcessInfo herdr.ProcessInfo `json:"process_info"`
	}
)

// implemented lists the methods the fake answers; every other method the
// played protocol knows gets herdr's own not_implemented fallback.
var implemented = map[string]func(*Server, *params) (any, error){
	"ping":                 (*Server).ping,
	"server.stop":          (*Server).serverStop,
	"session.snapshot":     (*Server).sessionSnapshot,
	"workspace.list":       (*Server).workspaceList,
	"workspace.rename":     (*Server).workspaceRename,
	"tab.list":             (*Server).tabList,
	"tab.get":              (*Server).tabGet,
	"tab.create":           (*Server).tabCreate,
	"tab.rename":           (*Server).tabRename,
	"tab.move":             (*Server).tabMove,
	"tab.close":            (*Server).tabClose,
	"pane.list":            (*Server).paneList,
	"pane.get":             (*Server).paneGet,
	"pane.current":         (*Server).paneCurrent,
	"pane.process_info":    (*Server).paneProcessInfo,
	"pane.rename":          (*Server).paneRename,
	"pane.report_metadata": (*Server).paneReportMetadata,
	"pane.report_agent":    (*Server).paneReportAgent,
	"pane.release_agent":   (*Server).paneReleaseAgent,
	"pane.move":            (*Server).paneMove,
	// Every played protocol (17 to 22) has it.
	"pane.report_agent_session": (*Server).paneReportAgentSession,
}

// dispatch answers one request; accepted is false when the params failed
// to parse (herdr answers those as invalid_request with id "").
func (s *Server) dispatch(req *request) (line []byte, accepted bool) {
	h, ok := implemented[req.Method]
	var result any
	var err error
	if !ok {
		err = errf("not_implemented", "method not implemented yet")
	} else {
		pr := &params{req: req}
		if req.Method == "ping" || req.Method == "server.stop" {
			result, err = h(s, pr)
		} else {
			s.mu.Lock()
			result, err = h(s, pr)
			s.mu.Unlock()
		}
	}
	var rerr *requestError
	var aerr *apiError
	switch {
	case errors.As(err, &rerr):
		return errorLine("", "invalid_request", rerr.Error()), false
	case errors.As(err, &aerr):
		return errorLine(req.ID, aerr.code, aerr.msg), true
	case err != nil:
		return errorLine(req.ID, "internal_error", err.Error()), true
	}
	b, merr := json.Marshal(successResponse{ID: req.ID, Result: result})
	if merr != nil {
		return errorLine(req.ID, "internal_error", merr.Error()), true
	}
	return b, true
}

// endpointProtocolGeneration is 0.9's ENDPOINT_PROTOCOL_GENERATION.
const endpointProtocolGeneration = 1

func (s *Server) ping(*params) (any, error) {
	caps := capabilities{LiveHandoff: capabilityHandoff, DetachedServerDaemon: capabilityDetached}
	if s.rel.plays >= 22 {
		gen, yes := endpointProtocolGeneration, true
		caps.EndpointProtocolGeneration, caps.SurfaceInterest, caps.HealthCheck = &gen, &yes, &yes
	}
	return pongResult{Type: "pong", Version: s.version, Protocol: s.cfg.protocol, Capabilities: caps}, nil
}

// serverStop answers ok. Since 0.8.2 herdr answers it on the socket thread
// and turns every later request but ping away with server_unavailable until
// the process is gone (docs/herdr.md §3); the simulator keeps listening
// until the test calls Stop or Restart, so that state can be observed.
// Older releases answer ok from the app and go down; here they just answer.
// Unlike herdr, which parses a request's params before it refuses it, the
// simulator refuses a request with bad params as server_unavailable too.
func (s *Server) serverStop(*params) (any, error) {
	if s.rel.stopGuard() {
		s.mu.Lock()
		s.stopping = true
		s.mu.Unlock()
	}
	return typeOnly{Type: "ok"}, nil
}

func (s *Server) sessionSnapshot(*params) (any, error) {
	return snapshotResult{Type: "session_snapshot", Snapshot: s.sess.snapshot(s.version, s.cfg.protocol, s.rel.plays)}, nil
}

func (s *Server) workspaceList(*params) (any, error) {
	out := []herdr.Workspace{}
	for _, ws := range s.sess.workspaces {
		out = append(out, s.sess.wsInfo(ws))
	}
	return workspaceListResult{Type: "workspace_list", Workspaces: out}, nil
}

// optWorkspace resolves an optional workspace_id; ok=false means "all".
func (s *Server) optWorkspace(pr *params) (*workspace, bool, error) {
	id, ok := pr.str("workspace_id", false)
	if pr.err != nil {
		return nil, false, pr.err
	}
	if !ok {
		return nil, false, nil
	}
	ws := s.sess.findWorkspace(id)
	if ws == nil {
		return nil, true, errf("workspace_not_found", "workspace %s not found", id)
	}
	return ws, true, nil
}

func (s *Server) tabList(pr *params) (any, error) {
	ws, one, err := s.optWorkspace(pr)
	if err != nil {
		return nil, err
	}
	out := []herdr.Tab{}
	for _, w := range s.sess.workspaces {
		if one && w != ws {
			continue
		}
		for _, t := range w.tabs {
			out = append(out, s.sess.tabInfo(t))
		}
	}
	return tabListResult{Type: "tab_list", Tabs: out}, nil
}

func (s *Server) needTab(pr *params) (*tab, error) {
	id, _ := pr.str("tab_id", true)
	if pr.err != nil {
		return nil, pr.err
	}
	t := s.sess.findTab(id)
	if t == nil {
		return nil, errf("tab_not_found", "tab %s not found", id)
	}
	return t, nil
}

func (s *Server) needPane(pr *params) (*pane, error) {
	id, _ := pr.str("pane_id", true)
	if pr.err != nil {
		return nil, pr.err
	}
	p := s.sess.findPane(id)
	if p == nil {
		return nil, errf("pane_not_found", "pane %s not found", id)
	}
	return p, nil
}

// optPane resolves an optional pane id field, defaulting to the focused pane.
func (s *Server) optPane(pr *params, field string) (*pane, error) {
	id, ok := pr.str(field, false)
	if pr.err != nil {
		return nil, pr.err
	}
	if !ok {
		if p := s.sess.focusedPane(); p != nil {
			return p, nil
		}
		return nil, errf("pane_not_found", "pane not found")
	}
	p := s.sess.findPane(id)
	if p == nil {
		return nil, errf("pane_not_found", "pane %s not found", id)
	}
	return p, nil
}

func (s *Server) tabGet(pr *params) (any, error) {
	t, err := s.needTab(pr)
	if err != nil {
		return nil, err
	}
	return tabResult{Type: "tab_info", Tab: s.sess.tabInfo(t)}, nil
}

func (s *Server) tabCreate(pr *params) (any, error) {
	cwd, _ := pr.str("cwd", false)
	label, hasLabel := pr.str("label", false)
	focus := pr.boolean("focus")
	var env map[string]string
	pr.object("env", &env)
	if pr.err != nil {
		return nil, pr.err
	}
	for k, v := range env {
		if k == "" || strings.ContainsAny(k, "=\x00") || strings.Contains(v, "\x00") {
			return nil, errf("invalid_env", "invalid environment variable %q", k)
		}
	}
	id, hasWS := pr.str("workspace_id", false)
	ws := s.sess.focusedWS
	if hasWS {
		if ws = s.sess.findWorkspace(id); ws == nil {
			return nil, errf("workspace_not_found", "workspace %s not found", id)
		}
	} else if ws == nil {
		return nil, errf("workspace_not_found", "no active workspace")
	}
	var custom *string
	if hasLabel {
		custom = &label
	}
	t, p := s.newTab(ws, cwd, custom, focus)
	return tabCreatedResult{Type: "tab_created", Tab: s.sess.tabInfo(t), RootPane: s.paneWire(p)}, nil
}

func (s *Server) tabRename(pr *params) (any, error) {
	label, _ := pr.str("label", true)
	t, err := s.needTab(pr)
	if err != nil {
		return nil, err
	}
	s.renameTab(t, label)
	s.renames = append(s.renames, Rename{TabID: t.id, Label: label, At: time.Now()})
	return tabResult{Type: "tab_info", Tab: s.sess.tabInfo(t)}, nil
}

// tabMove is herdr's handle_tab_move: insert_index is a place between the
// tabs as they are before the move (0 before the first, the tab count
// after the last), so it may be one past the last position.
func (s *Server) tabMove(pr *params) (any, error) {
	idx, _ := pr.uint("insert_index", true)
	t, err := s.needTab(pr)
	if err != nil {
		return nil, err
	}
	if idx > uint64(len(t.ws.tabs)) {
		return nil, errf("tab_move_failed", "insert_index %d is out of bounds", idx)
	}
	s.moveTab(t, int(idx))
	out := []herdr.Tab{}
	for _, x := range t.ws.tabs {
		out = append(out, s.sess.tabInfo(x))
	}
	return tabListResult{Type: "tab_list", Tabs: out}, nil
}

func (s *Server) tabClose(pr *params) (any, error) {
	t, err := s.needTab(pr)
	if err != nil {
		return nil, err
	}
	s.closeTab(t)
	return typeOnly{Type: "ok"}, nil
}

func (s *Server) paneList(pr *params) (any, error) {
	ws, one, err := s.optWorkspace(pr)
	if err != nil {
		return nil, err
	}
	out := []paneWire{}
	for _, w := range s.sess.workspaces {
		if one && w != ws {
			continue
		}
		for _, t := range w.tabs {
			for _, p := range t.panes {
				out = append(out, s.paneWire(p))
			}
		}
	}
	return paneListResult{Type: "pane_list", Panes: out}, nil
}

func (s *Server) paneGet(pr *params) (any, error) {
	p, err := s.needPane(pr)
	if err != nil {
		return nil, err
	}
	return paneResult{Type: "pane_info", Pane: s.paneWire(p)}, nil
}

func (s *Server) paneCurrent(pr *params) (any, error) {
	p, err := s.optPane(pr, "caller_pane_id")
	if err != nil {
		return nil, err
	}
	return paneResult{Type: "pane_current", Pane: s.paneWire(p)}, nil
}

func (s *Server) paneProcessInfo(pr *params) (any, error) {
	p, err := s.optPane(pr, "pane_id")
	if err != nil {
		return nil, err
	}
	return processInfoResult{Type: "pane_process_info", ProcessInfo: p.processInfo()}, nil
}

// paneRename trims the label; empty or missing clears it. No event.
func (s *Server) paneRename(pr *params) (any, error) {
	label, _ := pr.str("label", false)
	p, err := s.needPane(pr)
	if err != nil {
		return nil, err
	}
	p.label = strings.TrimSpace(label)
	return paneResult{Type: "pane_info", Pane: s.paneWire(p)}, nil
}

var (
	// Compiled on first use: "{1,80}" expands to a large program, and the
	// demo binary should not pay for it at every start (`nudge` included).
	sourcePattern   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9:._-]{1,80}$`) })
	tokenKeyPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_-]{1,32}$`) })
)

const (
	maxTokensPerReport = 16
	maxTokensPerPane   = 32
	maxTTLMillis       = 86_400_000
)

// cleanMetadata trims, drops control characters, caps at 80 chars and
// trims again, in herdr 0.8.2's order (normalize_metadata_tokens,
// normalize_presentation_text): a control character between blanks
// leaves a blank that counts toward the 80.
func cleanMetadata(v string) string {
	v = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.TrimSpace(v))
	if r := []rune(v); len(r) > 80 {
		v = string(r[:80])
	}
	return strings.TrimSpace(v)
}

// metadataReport is the params of one pane.report_metadata request; has*
// says a field was sent.
type metadataReport struct {
	source, applies, title, display       string
	hasApplies, hasTitle, hasDisplay      bool
	labels                                map[string]string
	hasLabels                             bool
	tokens                                map[string]*string
	hasTokens                             bool
	clearTitle, clearDisplay, clearLabels bool
	seq, ttl                              uint64
	hasSeq, hasTTL                        bool
}

// readMetadataReport reads the params; a wrong type is left in pr.err.
func readMetadataReport(pr *params) *metadataReport {
	r := &metadataReport{}
	r.source, _ = pr.str("source", true)
	r.applies, r.hasApplies = pr.str("applies_to_source", false)
	r.title, r.hasTitle = pr.str("title", false)
	r.display, r.hasDisplay = pr.str("display_agent", false)
	pr.str("agent", false)
	r.hasLabels = pr.object("state_labels", &r.labels)
	// An empty tokens object sets nothing: herdr reads it as absent.
	r.hasTokens = pr.object("tokens", &r.tokens) && len(r.tokens) > 0
	r.clearTitle, r.clearDisplay, r.clearLabels = pr.boolean("clear_title"), pr.boolean("clear_display_agent"), pr.boolean("clear_state_labels")
	r.seq, r.hasSeq = pr.uint("seq", false)
	r.ttl, r.hasTTL = pr.uint("ttl_ms", false)
	return r
}

// paneReportMetadata validates like herdr (codes from docs/herdr.md §3; the
// message wording is this fake's) and applies tokens and presentation.
func (s *Server) paneReportMetadata(pr *params) (any, error) {
	r := readMetadataReport(pr)
	p, err := s.needPane(pr)
	if err != nil {
		return nil, err
	}
	r.source = strings.TrimSpace(r.source)
	if err := r.validate(); err != nil {
		return nil, err
	}
	if r.hasSeq {
		stale, err := sequenceMetadata(p, r.source, r.seq)
		if err != nil {
			return nil, err
		}
		if stale {
			return typeOnly{Type: "ok"}, nil // stale report: accepted, ignored
		}
	}
	if r.hasTokens {
		if err := s.applyTokens(p, r); err != nil {
			return nil, err
		}
	}
	before := p.presentation()
	r.applyPresentation(p)
	if p.presentation() != before {
		s.emit("pane_agent_status_changed", p.statusData())
	}
	return typeOnly{Type: "ok"}, nil
}

// validate checks the report as herdr does, in herdr's order: source,
// tokens (over 16 is a bad token report, not the pane's limit), ttl,
// applies_to_source, state labels.
func (r *metadataReport) validate() error {
	if !sourcePattern().MatchString(r.source) {
		return errf("invalid_metadata_source", "metadata source %q must be 1-80 characters of A-Z a-z 0-9 : . _ -", r.source)
	}
	if len(r.tokens) > maxTokensPerReport {
		return errf("invalid_metadata_token", "at most %d tokens per report", maxTokensPerReport)
	}
	for k := range r.tokens {
		if !tokenKeyPattern().MatchString(k) {
			return errf("invalid_metadata_token", "metadata token key %q must be 1-32 characters of A-Z a-z 0-9 _ -", k)
		}
	}
	if r.hasTTL && (r.ttl < 1 || r.ttl > maxTTLMillis) {
		return errf("invalid_metadata_ttl", "ttl_ms must be between 1 and %d", maxTTLMillis)
	}
	if r.hasApplies && !sourcePattern().MatchString(strings.TrimSpace(r.applies)) {
		return errf("invalid_metadata_source", "applies_to_source %q must be 1-80 characters of A-Z a-z 0-9 : . _ -", r.applies)
	}
	for k := range r.labels {
		if statusRank(herdr.AgentStatus(k)) == 0 && k != string(herdr.StatusUnknown) {
			return errf("invalid_state_label", "state label %q is not one of idle, working, blocked, done, unknown", k)
		}
	}
	if !r.hasTitle && !r.hasDisplay && !r.hasLabels && !r.hasTokens && !r.clearTitle && !r.clearDisplay && !r.clearLabels {
		return errf("invalid_metadata_request", "metadata report must set or clear at least one field")
	}
	if (r.hasTitle && r.clearTitle) || (r.hasDisplay && r.clearDisplay) || (r.hasLabels && r.clearLabels) {
		return errf("invalid_metadata_request", "metadata report cannot set and clear the same field")
	}
	return nil
}

// sequenceMetadata records seq as source's latest on p. A seq not past the
// source's last is stale: herdr accepts the report and ignores it.
func sequenceMetadata(p *pane, source string, seq uint64) (stale bool, err error) {
	last, seen := p.seqs[source]
	if seen && seq <= last {
		return true, nil
	}
	if !seen && len(p.seqs) >= maxSequencedSources {
		return false, errf("metadata_sequence_source_limit", "pane %s already has %d sequenced metadata sources", p.id, maxSequencedSources)
	}
	if p.seqs == nil {
		p.seqs = map[string]uint64{}
	}
	p.seqs[source] = seq
	return false, nil
}

// applyTokens merges the report's tokens into p's (an empty value drops
// one) and, with a ttl, lets them expire.
func (s *Server) applyTokens(p *pane, r *metadataReport) error {
	next := map[string]string{}
	for k, v := range p.tokens {
		next[k] = v
	}
	for k, v := range r.tokens {
		if v == nil || cleanMetadata(*v) == "" {
			delete(next, k)
		} else {
			next[k] = cleanMetadata(*v)
		}
	}
	if len(next) > maxTokensPerPane {
		return errf("metadata_token_limit", "pane %s would hold more than %d tokens", p.id, maxTokensPerPane)
	}
	s.setTokens(p, next)
	if r.hasTTL {
		s.expireTokens(p, next, time.Duration(r.ttl)*time.Millisecond)
	}
	return nil
}

// applyPresentation sets or clears the title, display agent and state
// labels as the report says.
func (r *metadataReport) applyPresentation(p *pane) {
	switch {
	case r.hasTitle:
		p.metaTitle = cleanMetadata(r.title)
	case r.clearTitle:
		p.metaTitle = ""
	}
	switch {
	case r.hasDisplay:
		p.metaDisplay = cleanMetadata(r.display)
	case r.clearDisplay:
		p.metaDisplay = ""
	}
	switch {
	case r.hasLabels:
		p.stateLabels = map[string]string{}
		for k, v := range r.labels {
			p.stateLabels[k] = cleanMetadata(v)
		}
	case r.clearLabels:
		p.stateLabels = nil
	}
}

// expireTokens drops, after ttl, the tokens of a report that still hold
// the reported value; expiry bumps revision like herdr's.
func (s *Server) expireTokens(p *pane, reported map[string]string, ttl time.Duration) {
	var t *time.Timer
	t = time.AfterFunc(ttl, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if _, live := s.timers[t]; !live {
			return
		}
		delete(s.timers, t)
		if p.gone {
			return
		}
		next := map[string]string{}
		for k, v := range p.tokens {
			if reported[k] != v {
				next[k] = v
			}
		}
		s.setTokens(p, next)
	})
	s.timers[t] = struct{}{}
}

func (s *Server) paneReportAgent(pr *params) (any, error) {
	source, _ := pr.str("source", true)
	agent, _ := pr.str("agent", true)
	state, _ := pr.str("state", true)
	pr.str("message", false)
	r := pr.sessionReport(source, agent)
	if pr.err == nil {
		switch herdr.AgentStatus(state) {
		case herdr.StatusIdle, herdr.StatusWorking, herdr.StatusBlocked, herdr.StatusUnknown:
		default:
			pr.fail("unknown variant `%s`, expected one of `idle`, `working`, `blocked`, `unknown`", state)
		}
	}
	p, err := s.needPane(pr)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(agent) == "" {
		return nil, errf("invalid_agent", "agent must not be empty")
	}
	switch {
	case nativeStateSources[r.source] && officialSources[r.source] == r.agent:
		// herdr reads these agents' status off the screen: the report
		// only tells the session.
		p.recordSession(r)
		return typeOnly{Type: "ok"}, nil
	case identityOnlySources[r.source] && officialSources[r.source] == r.agent:
		return typeOnly{Type: "ok"}, nil
	case !p.recordAuthority(r):
		return typeOnly{Type: "ok"}, nil
	}
	agent, status := strings.TrimSpace(agent), herdr.AgentStatus(state)
	if status == herdr.StatusIdle && s.unseenCompletion(p, agent) {
		status = herdr.StatusDone
	}
	s.setAgent(p, agent, status)
	return typeOnly{Type: "ok"}, nil
}
