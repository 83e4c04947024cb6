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

// IsCode reports whether err is (or wraps) an APIError with the given code,
// e.g. IsCode(err, "tab_not_found").
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
