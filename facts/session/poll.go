package session

import (
	"os"
	"path/filepath"
	"time"
)

// pollEvery is how often the session files of panes whose folders are not
// watched (fsnotify failed to start, a watch failed to be added, or the
// bound of maxSessionWatches was reached) are looked at. A look is a stat
// of each such file, no read; a file whose stat changed is read as a
// watched write is, so a rename still reaches the tab within a second.
const pollEvery = 500 * time.Millisecond

// startPolling starts the polling goroutine unless it runs. s.mu held.
func (s *Sessions) startPolling() {
	if s.polling || s.closed {
		return
	}
	s.polling = true
	s.stopPoll, s.pollDone = make(chan struct{}), make(chan struct{})
	go s.poll(s.stopPoll, s.pollDone)
}

// stopPolling stops the polling goroutine and returns a channel closed
// when it has ended. s.mu held.
func (s *Sessions) stopPolling() <-chan struct{} {
	if !s.polling {
		done := make(chan struct{})
		close(done)
		return done
	}
	s.polling = false
	close(s.stopPoll)
	return s.pollDone
}

// poll looks at the unwatched panes' files every pollEvery until none is
// left or it is stopped.
func (s *Sessions) poll(stop, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		if !s.pollOnce(stop) {
			return
		}
	}
}

// pollOnce stats the files of the panes not watched, at most one stat per
// file however many panes share it, and marks for reading again the
// panes whose files changed (or are seen for the first time: a write
// between their pass's read and the first look is not lost). false when
// no pane is left to poll: the goroutine then ends.
func (s *Sessions) pollOnce(stop chan struct{}) bool {
	s.mu.Lock()
	files := map[string]bool{}
	for _, p := range s.panes {
		if !p.watching {
			for _, f := range p.wake {
				files[f] = true
			}
		}
	}
	if len(files) == 0 {
		if s.stopPoll == stop {
			s.polling = false
		}
		s.mu.Unlock()
		return false
	}
	s.mu.Unlock()
	now := make(map[string]os.FileInfo, len(files))
	for f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			fi = nil
		}
		now[f] = fi
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	woke, changed := false, map[string]bool{}
	for f, fi := range now {
		was, seen := s.stats[f]
		if !seen || !sameStat(was, fi) {
			woke = s.markWoken(f, false) || woke
			changed[filepath.Dir(f)] = true
		}
	}
	s.stats = now
	s.restLooked(changed)
	if woke {
		s.arm()
	}
	return true
}
