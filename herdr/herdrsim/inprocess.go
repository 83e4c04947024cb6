package herdrsim

import (
	"encoding/json"
	"fmt"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// Do answers one API request in process, as the socket would answer its
// line, without a connection: a test that schedules every request itself
// (when each reaches herdr, what happens in between) calls it. The
// result is the response's result object; an error is an *herdr.APIError
// with herdr's code.
func (s *Server) Do(method string, params any) (json.RawMessage, error) {
	if params == nil {
		params = struct{}{}
	}
	line, err := json.Marshal(map[string]any{"id": "do", "method": method, "params": params})
	if err != nil {
		return nil, fmt.Errorf("herdrsim: encode %s: %w", method, err)
	}
	req, err := parseRequest(line, s.methods)
	if err != nil {
		return nil, &herdr.APIError{Method: method, Code: "invalid_request", Message: err.Error()}
	}
	s.mu.Lock()
	s.calls[method]++
	s.mu.Unlock()
	out, _ := s.dispatch(req)
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		return nil, fmt.Errorf("herdrsim: decode the answer to %s: %w", method, err)
	}
	if resp.Error != nil {
		return nil, &herdr.APIError{Method: method, Code: resp.Error.Code, Message: resp.Error.Message}
	}
	return resp.Result, nil
}

// RingEvent is one event of the server's ring and its place there.
type RingEvent struct {
	Seq   uint64
	Event herdr.Event
}

// Ring is the event ring as it stands (the last 512 events), oldest
// first: what a 0.7/0.8 subscription replays before it goes live, and
// what a test feeds a subscriber it schedules itself.
func (s *Server) Ring() []RingEvent {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]RingEvent, 0, len(s.hub.events))
	for _, e := range s.hub.events {
		if ev, err := herdr.ParseEvent(e.line); err == nil {
			out = append(out, RingEvent{Seq: e.seq, Event: ev})
		}
	}
	return out
}
