package session

import (
	"path/filepath"
	"strings"
	"time"
)

// herdr sends no event when the session a pane's agent runs changes:
// Claude Code's /clear starts a new one and /resume takes up an old one,
// OpenCode's session list switches to another, and each agent's hook
// tells herdr a moment later, telling no one else. A new session's file
// appearing says so (watch.go); a switch to a session whose file exists,
// or a new one not written yet, says nothing. So Sessions looks again,
// through a pass that reads which session each pane runs, when the
// session may have changed without a file appearing:
//
//   - input read in a tracked pane's terminal (Input; the daemon's local
//     watch reports it): the person typed, and the agent's hook reports
//     the session it switched to within a few hundred milliseconds after
//     the key that asked for it. Looks follow at lookAfter of the last
//     input, each one pass: a switch shows within a second, and a pane
//     nobody types in costs nothing;
//   - a session file written in a watched folder that no tracked pane
//     reads, after otherQuiet without a write to it (a session taken up
//     again, whose file the agent appends to), at most once per lookGap:
//     another agent at work in the same folder asks once, not at every
//     line it writes.

// lookAfter are the looks after input, counted from the last input
// reported: a hook that takes 0.2 s is seen at 0.25 s, one that takes a
// second at 1.2 s.
var lookAfter = []time.Duration{250 * time.Millisecond, 600 * time.Millisecond, 1200 * time.Millisecond, 3 * time.Second}

// lookGap spaces the looks asked by writes to files no pane reads, and
// otherQuiet is how long such a file rests before a write to it asks
// for one: another agent working in the same folder writes many times a
// second.
const (
	lookGap    = time.Second
	otherQuiet = 10 * time.Second
)

// Input tells Sessions that pane id's terminal read input, so the
// session its agent runs may change next: Changed fires at each of
// lookAfter from now, unless more input moves them on. Only a pane
// whose {session} is asked for counts (one that runs a session read, or
// an agent herdr reports no session for yet); others cost nothing.
func (s *Sessions) Input(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.panes[id] == nil && !s.unreported[id] {
		return
	}
	s.lookStep = 0
	if s.lookTimer == nil {
		s.lookTimer = time.AfterFunc(lookAfter[0], s.look)
		return
	}
	s.lookTimer.Reset(lookAfter[0])
}

// look is one look after input: a signal on Changed, and the next look
// set.
func (s *Sessions) look() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	if s.lookStep++; s.lookStep < len(lookAfter) {
		s.lookTimer.Reset(lookAfter[s.lookStep] - lookAfter[s.lookStep-1])
	}
	s.mu.Unlock()
	s.signal()
}

// signal wakes a pass; one wake stands for any number.
func (s *Sessions) signal() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// otherSession reports whether name, written in a watched folder, is a
// session file no tracked pane reads (a session an agent took up again),
// and no look of that kind ran within lookGap. s.mu held.
func (s *Sessions) otherSession(name string, now time.Time) bool {
	if !strings.HasSuffix(name, ".jsonl") || s.dirs[filepath.Dir(name)] == 0 {
		return false
	}
	for _, p := range s.panes {
		if p.path == name {
			return false
		}
	}
	last, seen := s.others[name]
	if len(s.others) >= maxFiles {
		clear(s.others)
	}
	s.others[name] = now
	if seen && now.Sub(last) < otherQuiet || now.Sub(s.otherAt) < lookGap {
		return false
	}
	s.otherAt = now
	return true
}
