package herdrsim

// Connections counts accepted connections.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns
}

// Calls counts parsed requests of a method ("" = all methods).
func (s *Server) Calls(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if method != "" {
		return s.calls[method]
	}
	n := 0
	for _, v := range s.calls {
		n += v
	}
	return n
}

// Renames lists every tab.rename the API answered, in order.
func (s *Server) Renames() []Rename {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Rename(nil), s.renames...)
}

// ReadPolls counts the 100 ms read-poll sleeps of every connection so far:
// each one is a request line that had not (wholly) arrived when herdr
// looked, and cost its sender up to 100 ms (docs/herdr.md §2).
func (s *Server) ReadPolls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.polls
}

// EmptyLooks counts the looks for a request line that found nothing
// waiting, with the read poll on or off. A test that must send its request
// only after the server started waiting for it waits for this to move,
// instead of sleeping and hoping.
func (s *Server) EmptyLooks() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.empty
}

// ReadTimeouts counts connections dropped because their request line had
// not arrived within the read timeout (herdr: 5 s after accept, and a
// warning in its log). A client that keeps idle connections open must
// close them before then.
func (s *Server) ReadTimeouts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.timeouts
}

// OpenConnections is the number of connections open right now on the
// server's side: waiting for a request line, being answered, or streaming.
func (s *Server) OpenConnections() int {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	return len(s.open)
}

// OpenStreams is the number of events.subscribe streams being served right
// now: acked and not yet ended on the server's side. A stream the client
// closed stays open here until the server notices, at its next round.
func (s *Server) OpenStreams() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.streams
}

// PanePolls counts the times a per-pane pane.agent_status_changed
// subscription entry read its pane in a round that brought no event of
// it: herdr 0.8.2 asks its app thread for the pane (pane_get) on every
// such 100 ms tick, for as long as the entry lives (docs/herdr.md §7).
// It is what a per-pane subscription costs herdr at rest.
func (s *Server) PanePolls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.panePolls
}

// ResetCounters zeroes connections, calls, read polls, empty looks, read
// timeouts and renames (open streams are a state, not a count, and stay).
func (s *Server) ResetCounters() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conns, s.polls, s.empty, s.timeouts, s.calls, s.renames, s.wsNames = 0, 0, 0, 0, map[string]int{}, nil, nil
}
