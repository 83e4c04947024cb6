package herdr

import (
	"errors"
	"fmt"
	"strings"
)

// ErrNotRunning matches (errors.Is) every error that means "no herdr server
// listens on this socket": the socket file is missing or refuses
// connections. Callers treat it as a normal state, not a failure.
var ErrNotRunning = errors.New("herdr server not running")

// NotRunningError says why a socket has no server behind it.
type NotRunningError struct {
	Path   string
	Reason string // "socket missing" or "connection refused"
	Err    error
}

func (e *NotRunningError) Error() string {
	return fmt.Sprintf("no herdr server at %s (%s)", e.Path, e.Reason)
}

// Is makes errors.Is(err, ErrNotRunning) true.
func (e *NotRunningError) Is(target error) bool { return target == ErrNotRunning }

func (e *NotRunningError) Unwrap() error { return e.Err }

// TransportError is anything that went wrong between our socket and the
// server's answer: EOF before a full line, a reset, a line that is not JSON
// or not a reply, an oversize reply, a missed deadline. Op is the method (or
// "events.subscribe stream"), Path the socket.
type TransportError struct {
	Op   string
	Path string
	Err  error
}

func (e *TransportError) Error() string {
	return fmt.Sprintf("herdr %s at %s: %s", e.Op, e.Path, oneLine(e.Err.Error()))
}

func (e *TransportError) Unwrap() error { return e.Err }

// APIError is the server's own error object ({"code","message"}). ID is the
// id the server echoed: our request id, "" for a request it could not parse,
// or "<id>:sub:<n>:probe" for a subscription probe.
type APIError struct {
	Method  string
	Path    string
	ID      string
	Code    string
	Message string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("herdr %s at %s: %s: %s", e.Method, e.Path, e.Code, oneLine(e.Message))
}

// Error codes with a meaning of their own for a client (docs/herdr.md §3).
const (
	// CodeServerUnavailable: herdr is shutting down (or its app loop is
	// gone); every request but ping gets it until the socket closes.
	CodeServerUnavailable = "server_unavailable"
	// CodeEventsLost ends an event stream that fell behind herdr's
	// retained history (0.9): resubscribe, then read the whole session.
	CodeEventsLost = "events_lost"
	// CodeAgentBlocked: agent.prompt to an agent that is waiting for its
	// user (0.8.2+); nothing was sent.
	CodeAgentBlocked = "agent_blocked"
	// CodeWorkspaceGroupCloseRequired: workspace.close of a primary
	// workspace that still has worktree workspaces, without close_group
	// (0.9.0+); nothing was closed.
	CodeWorkspaceGroupCloseRequired = "workspace_group_close_required"
	// CodeInvalidRequest is every parse failure, including a method or
	// subscription type the server does not know.
	CodeInvalidRequest = "invalid_request"
	// CodeNotImplemented is herdr's fallback arm for a parsed method.
	CodeNotImplemented = "not_implemented"
	// CodeTabNotFound, CodeWorkspaceNotFound and CodePaneNotFound: the id
	// a request named is gone (herdr never reuses one, docs/herdr.md §5).
	CodeTabNotFound       = "tab_not_found"
	CodeWorkspaceNotFound = "workspace_not_found"
	CodePaneNotFound      = "pane_not_found"
)

// Sentinels that errors.Is matches against the APIErrors of the codes
// above, so callers need not compare strings.
var (
	// ErrServerGoingAway matches server_unavailable. IsServerGone is the
	// wider test a caller usually wants.
	ErrServerGoingAway = errors.New("herdr server is shutting down")
	// ErrEventsLost matches the events_lost line that ends a lagging stream.
	ErrEventsLost = errors.New("herdr event stream fell behind and lost events")
	// ErrAgentBlocked matches agent_blocked.
	ErrAgentBlocked = errors.New("herdr agent is blocked")
	// ErrWorkspaceGroupCloseRequired matches workspace_group_close_required.
	ErrWorkspaceGroupCloseRequired = errors.New("herdr workspace group must be closed as a whole")
	// ErrUnsupported matches a method or subscription type the server does
	// not know: serde's "unknown variant" parse error or not_implemented.
	ErrUnsupported = errors.New("not supported by this herdr server")
	// ErrTabNotFound, ErrWorkspaceNotFound and ErrPaneNotFound match
	// their codes; ErrNotFound matches any of the three: the tab,
	// workspace or pane a request named is gone.
	ErrTabNotFound       = errors.New("herdr has no such tab")
	ErrWorkspaceNotFound = errors.New("herdr has no such workspace")
	ErrPaneNotFound      = errors.New("herdr has no such pane")
	ErrNotFound          = errors.New("herdr has no such tab, workspace or pane")
)

var codeSentinels = map[string]error{
	CodeServerUnavailable:           ErrServerGoingAway,
	CodeEventsLost:                  ErrEventsLost,
	CodeAgentBlocked:                ErrAgentBlocked,
	CodeWorkspaceGroupCloseRequired: ErrWorkspaceGroupCloseRequired,
	CodeNotImplemented:              ErrUnsupported,
	CodeTabNotFound:                 ErrTabNotFound,
	CodeWorkspaceNotFound:           ErrWorkspaceNotFound,
	CodePaneNotFound:                ErrPaneNotFound,
}

// Is matches the sentinel of e's code. herdr answers an unknown method or
// subscription type with a plain invalid_request whose serde message says
// "unknown variant", so that message is what marks ErrUnsupported there.
func (e *APIError) Is(target error) bool {
	if target == ErrUnsupported && e.Code == CodeInvalidRequest && strings.Contains(e.Message, "unknown variant") {
		return true
	}
	if target == ErrNotFound {
		return e.Code == CodeTabNotFound || e.Code == CodeWorkspaceNotFound || e.Code == CodePaneNotFound
	}
	s, ok := codeSentinels[e.Code]
	return ok && s == target
}

// IsServerGone reports whether err means that further requests to this
// server are pointless until it is back, so the caller should back off and
// reconnect instead of reporting each request: no server listens
// (ErrNotRunning), it is shutting down (server_unavailable), an event
// stream was ended by the server (ErrStreamEnded), or a connection broke
// mid-exchange or timed out (*TransportError).
func IsServerGone(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrNotRunning) || errors.Is(err, ErrServerGoingAway) || errors.Is(err, ErrStreamEnded) {
		return true
	}
	var te *TransportError
	return errors.As(err, &te)
}

// IsEventsLost reports whether an event stream ended because it fell
// behind herdr's retained history: the caller should resubscribe and then
// take one full snapshot, since some changes were never delivered.
func IsEventsLost(err error) bool { return errors.Is(err, ErrEventsLost) }

// IsUnsupported reports whether the server does not know the method (or
// subscription type) that was asked for: feature detection, not an outage.
func IsUnsupported(err error) bool { return errors.Is(err, ErrUnsupported) }

// IsCode reports whether err is (or wraps) an APIError with the given code,
// e.g. IsCode(err, CodeTabNotFound); errors.Is with the code's sentinel
// says the same where there is one.
func IsCode(err error, code string) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Code == code
}

// oneLine keeps error strings on one line whatever a server or a
// lower layer put in them: messages end up in logs and status lines.
func oneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

// snippet quotes the start of a bad line for an error message.
func snippet(b []byte) string {
	const max = 64
	if len(b) > max {
		return fmt.Sprintf("%q...", b[:max])
	}
	return fmt.Sprintf("%q", b)
}
