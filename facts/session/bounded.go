package session

import (
	"errors"
	"fmt"
	"time"
)

// readBound is how long one look at a session may take before it is
// abandoned. A read of a regular file or a database answers in a
// millisecond or two (a database another process holds locked, within
// sqlread.Busy; any database read, within sqlread.Timeout); what takes longer is a
// file system that hangs (a network mount gone away) or a file that
// blocks its opener, which no pass may wait on. The look goes on by
// itself; until it returns, every other look answers at once that it
// has not (errStuck), so that one hung file costs a pass readBound once,
// and a signal stopping the daemon is never held up longer than that.
const readBound = time.Second

// Errors of a look that did not answer.
var (
	errAbandoned = errors.New("abandoned")
	errStuck     = errors.New("has not returned")
)

// readCall is one look under way in its own goroutine.
type readCall struct {
	ref      Ref
	since    time.Time
	finished bool // it returned (Reader.smu)
}

// answer is what a look found: the title and the file it was read from
// (its path even when it gave none: a watch waits for one there), and
// what the title is, or why there is none.
type answer struct {
	title, path string
	what        string
	err         error
}

// why is what explain says of the answer: what the title is and where it
// was read, or why there is none.
func (a answer) why() string {
	if a.err != nil {
		return a.err.Error()
	}
	return a.what
}

// lookup is Lookup that also says why there is no title: the look runs
// in its own goroutine, and is abandoned when it takes over readBound.
func (r *Reader) lookup(ref Ref) answer {
	r.smu.Lock()
	stuck := r.stuck
	r.smu.Unlock()
	if stuck != nil {
		return answer{err: fmt.Errorf("a look at %s %w since %s; no session file is read until it does",
			stuck.ref, errStuck, stuck.since.Format(time.TimeOnly))}
	}
	call := &readCall{ref: ref, since: r.now()}
	done := make(chan answer, 1)
	go r.look(call, done)
	t := time.NewTimer(readBound)
	defer t.Stop()
	select {
	case a := <-done:
		return a
	case <-t.C:
	}
	r.smu.Lock()
	if call.finished {
		r.smu.Unlock()
		return <-done
	}
	first := r.stuck == nil
	if first {
		r.stuck = call
	}
	r.smu.Unlock()
	if first {
		r.log.Warn("session titles: a look at a session file did not answer; it is abandoned, and no session file is read until it returns",
			"agent", ref.Agent, "kind", ref.Kind, "session", ref.Value, "bound", readBound)
	}
	return answer{err: fmt.Errorf("a look at %s %w: no answer within %v", ref, errAbandoned, readBound)}
}

// look reads ref's title for call, holding r.mu, and hands it over.
func (r *Reader) look(call *readCall, done chan<- answer) {
	r.mu.Lock()
	a := r.title(call.ref)
	r.note(call.ref, a.err)
	r.mu.Unlock()
	done <- a
	r.smu.Lock()
	call.finished = true
	abandoned := r.stuck == call
	if abandoned {
		r.stuck = nil
	}
	r.smu.Unlock()
	if abandoned {
		r.log.Info("session titles: the abandoned look returned; session files are read again",
			"agent", call.ref.Agent, "session", call.ref.Value, "after", r.now().Sub(call.since).Round(time.Millisecond))
	}
}

// unanswered reports whether err is a look that did not answer.
func unanswered(err error) bool { return errors.Is(err, errAbandoned) || errors.Is(err, errStuck) }
