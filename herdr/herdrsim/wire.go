package herdrsim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// NewestProtocol is the newest protocol this fake knows; any larger number
// plays as this one but reports itself honestly.
const NewestProtocol = 22

// allMethods is every request method of protocol 22's schema (herdr 0.9.1),
// in schema order: serde lists variants in this order in "unknown variant"
// errors. Older protocols parse a subset (methodsFor).
var allMethods = strings.Fields(`ping server.stop server.live_handoff server.reload_config
server.agent_manifests server.reload_agent_manifests notification.show product_announcement.dismiss
release_notes.dismiss command.invoke client.window_title.set client.window_title.clear
client_shell.surface.set session.snapshot workspace.create workspace.list workspace.get
workspace.focus workspace.rename workspace.move workspace.move_block workspace.report_metadata
workspace.close worktree.list worktree.create worktree.open worktree.remove tab.create tab.list
tab.get tab.focus tab.rename tab.move tab.close agent.list agent.get agent.read agent.explain
agent.send_keys agent.rename agent.view.set agent.view.clear agent.focus agent.start agent.prompt
agent.wait pane.split pane.swap pane.move pane.zoom pane.layout pane.process_info layout.export
layout.apply layout.set_split_ratio pane.neighbor pane.edges pane.focus_direction pane.resize
pane.scroll pane.edit_scrollback pane.selection.read pane.copy_motion pane.copy_search pane.list
pane.current pane.get pane.focus pane.input.set pane.link.activate pane.link.resolve pane.rename
pane.send_text pane.send_keys pane.send_input pane.read pane.graphics.set pane.graphics.clear
pane.graphics.info pane.report_agent pane.report_agent_session pane.report_metadata
pane.clear_agent_authority pane.release_agent pane.close popup.close events.subscribe events.wait
pane.wait_for_output integration.list integration.install integration.uninstall plugin.link
plugin.list plugin.unlink plugin.enable plugin.disable plugin.action.list plugin.action.invoke
plugin.log.list plugin.pane.open plugin.pane.focus plugin.pane.close`)

// methodsSince22 are the methods 0.9 added (docs/herdr.md §1); 0.9.0 lacks
// pane.link.resolve, which 0.9.1 added within protocol 22.
var methodsSince22 = strings.Fields(`product_announcement.dismiss release_notes.dismiss
command.invoke client_shell.surface.set pane.scroll pane.edit_scrollback pane.selection.read
pane.copy_motion pane.copy_search pane.link.activate pane.link.resolve integration.list`)

// allSubscriptions is every subscription type of protocol 19 to 22, schema order.
var allSubscriptions = strings.Fields(`workspace.created workspace.updated
workspace.metadata_updated workspace.renamed workspace.moved workspace.reordered workspace.closed
workspace.focused worktree.created worktree.opened worktree.removed tab.created tab.closed
tab.focused tab.renamed tab.moved pane.created pane.closed pane.updated pane.focused pane.moved
pane.exited pane.agent_detected pane.output_matched pane.agent_status_changed pane.scroll_changed
layout.updated`)

// graphicsStream exists on the wire in every protocol but is skipped by the
// schema generator, so it is known to the parser and never validated. herdr
// declares it right after pane.graphics.info, which is where serde's
// "expected one of" list names it (src/api/schema.rs@v0.8.2 Method).
const graphicsStream = "pane.graphics.stream"

// methodsFor lists the request methods a server of release r parses.
func methodsFor(r release) []string {
	out := make([]string, 0, len(allMethods)+1)
	for _, m := range allMethods {
		switch {
		case m == "workspace.move_block" && r.protocol < 19, m == "pane.input.set" && r.protocol < 20,
			slices.Contains(methodsSince22, m) && r.protocol < 22,
			m == "pane.link.resolve" && r.version == "0.9.0":
			continue
		}
		out = append(out, m)
		if m == "pane.graphics.info" {
			out = append(out, graphicsStream)
		}
	}
	return out
}

// subscriptionsFor lists the subscription types protocol p accepts.
func subscriptionsFor(p int) []string {
	out := make([]string, 0, len(allSubscriptions))
	for _, t := range allSubscriptions {
		if t == "workspace.reordered" && p < 19 {
			continue
		}
		out = append(out, t)
	}
	return out
}

// request is a parsed request envelope.
type request struct {
	ID     string
	Method string
	Params map[string]json.RawMessage
	line   []byte
}

// requestError is a parse failure; its message imitates serde_json's.
type requestError struct{ msg string }

func (e *requestError) Error() string { return "invalid request: " + e.msg }

// serdeAt appends serde_json's position suffix; errors raised after the
// whole (flattened, internally tagged) value was buffered point at its end.
func serdeAt(line []byte, format string, args ...any) *requestError {
	return &requestError{msg: fmt.Sprintf(format, args...) + fmt.Sprintf(" at line 1 column %d", len(line))}
}

func expectedOneOf(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	return "expected one of " + strings.Join(q, ", ")
}

// parseRequest decodes a trimmed request line the way herdr's serde
// envelope does: id must be a string, method a known variant, params a map.
func parseRequest(line []byte, methods []string) (*request, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(line, &top); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, &requestError{msg: fmt.Sprintf("expected value at line 1 column %d", max(se.Offset, 1))}
		}
		return nil, serdeAt(line, "invalid type: %s, expected internally tagged enum Request", describeJSON(bytes.TrimSpace(line)))
	}
	if top == nil {
		return nil, serdeAt(line, "invalid type: null, expected internally tagged enum Request")
	}
	req := &request{line: line}
	method, ok := top["method"]
	if !ok {
		return nil, serdeAt(line, "missing field `method`")
	}
	if err := json.Unmarshal(method, &req.Method); err != nil || isNull(method) {
		return nil, serdeAt(line, "invalid type: %s, expected variant identifier", describeJSON(method))
	}
	if !slices.Contains(methods, req.Method) {
		return nil, serdeAt(line, "unknown variant `%s`, %s", req.Method, expectedOneOf(methods))
	}
	id, ok := top["id"]
	if !ok {
		return nil, serdeAt(line, "missing field `id`")
	}
	if err := json.Unmarshal(id, &req.ID); err != nil || isNull(id) {
		return nil, serdeAt(line, "invalid type: %s, expected a string", describeJSON(id))
	}
	params, ok := top["params"]
	if !ok {
		return nil, serdeAt(line, "missing field `params`")
	}
	if err := json.Unmarshal(params, &req.Params); err != nil || req.Params == nil {
		return nil, serdeAt(line, "invalid type: %s, expected struct %s", describeJSON(params), paramsTypeName(req.Method))
	}
	return req, nil
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// describeJSON renders a value the way serde's "invalid type" errors do.
func describeJSON(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "unit"
	}
	switch raw[0] {
	case 'n':
		return "null"
	case 't', 'f':
		return "boolean `" + string(raw) + "`"
	case '"':
		var s string
		_ = json.Unmarshal(raw, &s)
		return fmt.Sprintf("string %q", s)
	case '[':
		return "sequence"
	case '{':
		return "map"
	}
	if bytes.ContainsAny(raw, ".eE") {
		return "floating point `" + string(raw) + "`"
	}
	return "integer `" + string(raw) + "`"
}

// paramsTypeName derives the Rust params struct name from a method, for
// error messages only ("tab.rename" -> "TabRenameParams").
func paramsTypeName(method string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(method, func(r rune) bool { return r == '.' || r == '_' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String() + "Params"
}

// params decodes typed fields out of a request's params map, keeping the
// first error; every error is a serde-like invalid_request.
type params struct {
	req *request
	err error
}

func (p *params) fail(format string, args ...any) {
	if p.err == nil {
		p.err = serdeAt(p.req.line, format, args...)
	}
}

func (p *params) raw(name string, required bool) (json.RawMessage, bool) {
	v, ok := p.req.Params[name]
	if !ok || isNull(v) {
		if required && !ok {
			p.fail("missing field `%s`", name)
		} else if required {
			p.fail("invalid type: null, expected a string")
		}
		return nil, false
	}
	return v, true
}

// str reads a string field; optional fields accept null as absent.
func (p *params) str(name string, required bool) (string, bool) {
	v, ok := p.raw(name, required)
	if !ok {
		return "", false
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		p.fail("invalid type: %s, expected a string", describeJSON(v))
		return "", false
	}
	return s, true
}

func (p *params) boolean(name string) bool {
	v, ok := p.req.Params[name]
	if !ok {
		return false
	}
	var b bool
	if err := json.Unmarshal(v, &b); err != nil {
		p.fail("invalid type: %s, expected a boolean", describeJSON(v))
	}
	return b
}

func (p *params) uint(name string, required bool) (uint64, bool) {
	v, ok := p.req.Params[name]
	if !ok || (!required && isNull(v)) {
		if required {
			p.fail("missing field `%s`", name)
		}
		return 0, false
	}
	var n uint64
	if err := json.Unmarshal(v, &n); err != nil {
		p.fail("invalid type: %s, expected u64", describeJSON(v))
		return 0, false
	}
	return n, true
}

// object decodes a JSON object field into dst (a map or struct pointer).
func (p *params) object(name string, dst any) bool {
	v, ok := p.req.Params[name]
	if !ok || isNull(v) {
		return false
	}
	if err := json.Unmarshal(v, dst); err != nil {
		p.fail("invalid type: %s, expected a map", describeJSON(v))
		return false
	}
	return true
}
