package herdrsim

import (
	"bytes"
	"fmt"
	"net"
	"time"
)

// Fault is a misbehaviour injected in place of a normal answer.
type Fault int

// The faults a client must survive.
const (
	FaultGarbage       Fault = iota + 1 // a line that is not JSON
	FaultCloseNoAnswer                  // close right after reading the request
	FaultReset                          // close with the request unread: the client's read fails with ECONNRESET
	FaultCutLine                        // half of a JSON line, then close
	FaultOversize                       // a JSON line longer than 1 MiB
	FaultSchemaInvalid                  // a well-formed line the schema rejects; it is checked like any response
	// FaultEventsLost, for events.subscribe: the stream is acked, then at
	// its first round ends with the events_lost error line, as a 0.9
	// subscription that fell behind herdr's retained history does. Older
	// protocols have no such line: injecting it there is a misuse.
	FaultEventsLost
)

func (f Fault) String() string {
	switch f {
	case FaultGarbage:
		return "garbage"
	case FaultCloseNoAnswer:
		return "close-no-answer"
	case FaultReset:
		return "reset"
	case FaultCutLine:
		return "cut-line"
	case FaultOversize:
		return "oversize"
	case FaultSchemaInvalid:
		return "schema-invalid"
	case FaultEventsLost:
		return "events-lost"
	}
	return fmt.Sprintf("Fault(%d)", int(f))
}

// pending is an injected misbehaviour (a Fault, a stall) for the next
// left calls of method ("" = any method).
type pending[T any] struct {
	method string
	what   T
	left   int
}

// take consumes one use of the first entry for method with uses left, and
// returns what it injects (the zero T when none does); s.mu held.
func take[T any](list []pending[T], method string) T {
	for i := range list {
		p := &list[i]
		if p.left > 0 && (p.method == "" || p.method == method) {
			p.left--
			return p.what
		}
	}
	var none T
	return none
}

// InjectFault makes the next count calls of method ("" = any method)
// misbehave with f instead of answering. FaultEventsLost applies to
// "events.subscribe" only.
func (s *Server) InjectFault(method string, f Fault, count int) {
	if f < FaultGarbage || f > FaultEventsLost || count < 1 || (f == FaultEventsLost && method != "events.subscribe") {
		s.misuse("InjectFault(%q, %v, %d): unknown fault or count below 1", method, f, count)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if f == FaultEventsLost && !s.rel.live() {
		s.misuse("InjectFault(%q, %v): protocol %d has no events_lost (it skips lost events silently)", method, f, s.cfg.protocol)
		return
	}
	s.faults = append(s.faults, pending[Fault]{method: method, what: f, left: count})
}

// SetLatency delays every answer to method ("" = every method) by d.
func (s *Server) SetLatency(method string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latency[method] = d
}

// StallNext holds the next count answers to method ("" = any method) back
// by d more, on top of SetLatency: one slow answer among fast ones, as
// when herdr's app loop is busy for a moment. The request is read and
// counted at once, so a client that sends it again on another connection
// (a hedged read) gets its second answer without the stall.
func (s *Server) StallNext(method string, d time.Duration, count int) {
	if d <= 0 || count < 1 {
		s.misuse("StallNext(%q, %v, %d): want a positive stall and count", method, d, count)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stalls = append(s.stalls, pending[time.Duration]{method: method, what: d, left: count})
}

func (s *Server) applyFault(c net.Conn, f Fault, req *request) {
	switch f {
	case FaultGarbage:
		_ = writeLine(c, []byte("this is not json {"))
	case FaultCutLine:
		line := []byte(`{"id":"` + req.ID + `","result":{"type":"pong","version":"0.8.0"}}`)
		_, _ = c.Write(line[:len(line)/2])
	case FaultOversize:
		pad := bytes.Repeat([]byte("x"), maxRequestBytes+64)
		_ = writeLine(c, fmt.Appendf(nil, `{"id":%q,"result":{"type":"ok","pad":"%s"}}`, req.ID, pad))
	case FaultSchemaInvalid:
		// a tab_info whose tab lacks every required field but tab_id, which has the wrong type
		s.writeChecked(c, req.Method, fmt.Appendf(nil, `{"id":%q,"result":{"type":"tab_info","tab":{"tab_id":7}}}`, req.ID))
	}
	// FaultCloseNoAnswer: nothing to write
}
