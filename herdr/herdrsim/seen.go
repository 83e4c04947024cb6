package herdrsim

import "github.com/herdrtabrenamer/herdrtabrenamer/herdr"

// A person looking: herdr shows an agent that finished where the person
// was not looking as "done" (unseenCompletion), and "idle" once they
// look, which herdr tells no one of (docs/herdr.md §14).

// markSeen is a person looking at t, as when herdr switches to a tab: its
// "done" panes are idle from then on, without an event of their own
// (src/workspace.rs@v0.8.2 switch_tab).
func markSeen(t *tab) {
	for _, p := range t.panes {
		if p.agentStatus() == herdr.StatusDone {
			p.status = herdr.StatusIdle
		}
	}
}

// OuterFocus is the person's terminal, the one herdr's client draws in,
// losing (false) or gaining (true) the focus: the client reads ESC [ O or
// ESC [ I from it and tells the server. While the terminal is away, an
// agent that finishes in the focused tab is "done" as in any other; when
// the person comes back, the focused tab's "done" panes are seen, idle
// from then on, and herdr emits nothing for it (src/app/runtime.rs@v0.8.2
// OuterFocusGained: mark_active_tab_seen). Silent.
func (s *Server) OuterFocus(focused bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sess.away = !focused
	if ws := s.sess.focusedWS; focused && ws != nil && ws.active != nil {
		markSeen(ws.active)
	}
}
