package session

import (
	"path/filepath"
)

// A folder whose session files are written without a pause (an agent
// streaming an answer commits its database twenty times a second, each
// commit a few writes) would wake the watch tens of times a second for
// reads that come at most every sessionBusyGap anyway: each wake is
// threads woken, and together they cost more than the reads. So a folder
// that brought busyEvents or more writes between two reads rests: its
// watch is dropped and its panes' files are looked at every pollEvery
// instead (a stat of each: poll.go), until restQuiet looks in a row find
// them unchanged; then it is watched again. A rename still shows within
// a second. While a folder rests a new session file in it is not seen
// (looks.go's looks after input still are), and its panes' files are
// polled (a stat of each twice a second) only while they keep changing.

const (
	// busyEvents is how many writes between two reads make a folder rest:
	// twenty a second or more.
	busyEvents = 10
	// restQuiet is how many looks in a row that find a resting folder's
	// files unchanged end its rest.
	restQuiet = 4
)

// noteWrite counts a write to a watched pane's file name, for rest. s.mu
// held.
func (s *Sessions) noteWrite(name string) {
	if s.writes == nil {
		s.writes = map[string]int{}
	}
	s.writes[filepath.Dir(name)]++
}

// restBusy rests the folders that brought busyEvents writes or more since
// the last read, and starts counting again. s.mu held.
func (s *Sessions) restBusy() {
	for dir, n := range s.writes {
		if n < busyEvents || s.dirs[dir] == 0 {
			continue
		}
		if s.resting == nil {
			s.resting = map[string]int{}
		}
		s.resting[dir] = 0
		for _, p := range s.panes {
			if p.watching && p.dir == dir && !p.parent {
				p.watching = false
				s.release(dir)
			}
		}
		s.startPolling()
		s.log.Debug("session files: a folder written without a pause is looked at instead of watched", "dir", dir, "writes", n)
	}
	clear(s.writes)
}

// restLooked notes a look at the resting folders' files: changed says
// which folders had a file changed. A folder quiet for restQuiet looks is
// watched again, its panes read again once the watch is in place. s.mu
// held.
func (s *Sessions) restLooked(changed map[string]bool) {
	for dir, quiet := range s.resting {
		if changed[dir] {
			s.resting[dir] = 0
			continue
		}
		if quiet+1 < restQuiet {
			s.resting[dir] = quiet + 1
			continue
		}
		delete(s.resting, dir)
		for id, p := range s.panes {
			if !p.watching && p.dir == dir && s.acquire(dir) {
				p.watching = true
				s.check[id] = true
				s.arm()
			}
		}
	}
}

// rests reports whether dir rests: it is not to be watched now. s.mu
// held.
func (s *Sessions) rests(dir string) bool {
	_, ok := s.resting[dir]
	return ok
}
