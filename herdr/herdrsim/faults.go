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

type pendingFault struct {
	method string
	fault  Fault
	left   int
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
	s.faults = append(s.faults, pendingFault{method: method, fault: f, left: count})
}

// takeFault consumes one pending fault for method; s.mu held.
func (s *Server) takeFault(method string) Fault {
	for i := range s.faults {
		pf := &s.faults[i]
		if pf.left > 0 && (pf.method == "" || pf.method == method) {
			pf.left--
			return pf.fault
		}
	}
	return 0
}

// SetLatency delays every answer to method ("" = every method) by d.
func (s *Server) SetLatency(method string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latency[method] = d
}

// pendingStall is a StallNext not used up yet.
type pendingStall struct {
	method string
	d      time.Duration
	left   int
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
	s.stalls = append(s.stalls, pendingStall{method: method, d: d, left: count})
}

// takeStall consumes one pending stall for method; s.mu held.
func (s *Server) takeStall(method string) time.Duration {
	for i := range s.stalls {
		ps := &s.stalls[i]
		if ps.left > 0 && (ps.method == "" || ps.method == method) {
			ps.left--
			return ps.d
		}
	}
	return 0
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
