package daemon

import (
	"errors"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/pass"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
	"github.com/herdrtabrenamer/herdrtabrenamer/procwatch"
)

// The seen watch. herdr shows an agent that finished where the person
// was not looking as "done", and turns it "idle" once they look
// (docs/herdr.md §14). A look by switching tabs, workspaces or panes
// comes on the stream (tab.focused: news). A look that moves nothing
// does not: the person comes back to the terminal that shows the
// focused tab, herdr's client reads the focus-in the terminal sends,
// and herdr marks that tab seen and tells no one. So, only while an
// agent is done in the focused tab of the focused workspace and a name
// shows statuses, the daemon watches the terminals of herdr's clients
// on this machine (procwatch.InputWatch): a client that reads its
// terminal may have read the person's return, and a pass reads the
// statuses, with a re-check or two while the agent still shows done.
//
// Where no client is watched (not Linux, inotify refused, no client
// found here, --no-local-watch), the status poll stands in, every
// seenPoll, for as long as the done agent sits there: a bounded cost for
// a bounded delay. At rest, with no done agent in the focused tab,
// nothing of it runs: no watch, no poll, no read of /proc.

// seenWatch is the loop's part of the seen watch.
type seenWatch struct {
	// on: the last pass found an agent done in the focused tab.
	on bool
	w  *procwatch.InputWatch // nil: none
	// clients are the clients whose terminals w watches, by pid, found
	// for the server of pid server.
	clients map[int]bool
	server  int
	// timer fires for the pass a client's input asks for (armed), and
	// owed re-checks follow it; last is when such a pass last ran, and
	// gap how long after it the next one waits (0: seenGap).
	timer *time.Timer
	armed bool
	owed  int
	last  time.Time
	gap   time.Duration
}

// changed fires when the watch has reports; nil (never) while none runs.
func (s *seenWatch) changed() <-chan struct{} {
	if s.w == nil {
		return nil
	}
	return s.w.Changed()
}

// watching says whether some client's terminal is watched.
func (s *seenWatch) watching() bool { return len(s.clients) > 0 }

// poll is how often the status poll runs for the seen watch, given
// --agent-poll: every seenPoll (or --agent-poll, when longer) while an
// agent is done in the focused tab and no client is watched; 0
// otherwise, and when --agent-poll 0 forbids the status poll.
func (s *seenWatch) poll(agentPoll time.Duration) time.Duration {
	if !s.on || s.watching() || agentPoll <= 0 {
		return 0
	}
	return max(agentPoll, seenPoll)
}

// follow starts the watch when the last pass found an agent done in the
// focused tab, in a name, and stops it when not. A herdr server that
// restarted meanwhile has clients of its own: they are looked for.
func (s *seenWatch) follow(d *Daemon) {
	want := d.opt.Naming.ShowsStatus() && d.view.DoneInFocus()
	switch {
	case want && (!s.on || s.server != d.shells.Server()):
		s.stop()
		s.on = true
		s.find(d)
	case !want && s.on:
		s.stop()
	default:
		return
	}
	s.trace(d)
}

func (s *seenWatch) trace(d *Daemon) {
	d.trace(Trace{Kind: TraceSeenWatch, Done: s.on, Clients: len(s.clients)},
		"seen watch", "done_in_focus", s.on, "clients", len(s.clients))
}

// find watches the terminals of herdr's clients on this machine that are
// not watched yet: the processes of the server's executable
// (procinfo.HerdrClients), when the server is herdr here.
func (s *seenWatch) find(d *Daemon) {
	s.server = d.shells.Server()
	defer func() {
		if len(s.clients) == 0 {
			s.close() // a watch of nothing: its kernel resources go back
		}
	}()
	if !d.opt.Naming.LocalWatch || !d.shells.ServerHere() {
		return
	}
	pids, err := procinfo.HerdrClients(s.server)
	if err != nil || len(pids) == 0 {
		d.log.Debug("seen watch: no client of herdr to watch here; the status poll stands in", "err", err)
		return
	}
	if s.w == nil {
		w, err := procwatch.NewInputWatch()
		if err != nil {
			level := d.log.Info
			if errors.Is(err, procwatch.ErrUnsupported) {
				level = d.log.Debug
			}
			level("seen watch: cannot watch the terminals of herdr's clients; the status poll stands in", "err", err)
			return
		}
		s.w, s.clients = w, map[int]bool{}
	}
	for _, pid := range pids {
		if s.clients[pid] {
			continue
		}
		if err := s.w.Watch(pid); err != nil {
			d.log.Debug("seen watch: a client's terminal", "pid", pid, "err", err)
			continue
		}
		s.clients[pid] = true
	}
}

// close ends the kernel's watch, keeping the rest.
func (s *seenWatch) close() {
	if s.w != nil {
		_ = s.w.Close()
	}
	s.w, s.clients = nil, nil
}

// stop ends the watch and what it asked for.
func (s *seenWatch) stop() {
	s.close()
	s.server, s.on, s.armed, s.owed, s.gap = 0, false, false, 0, 0
	s.timer.Stop()
}

// take takes the watch's reports: a client that read its terminal asks
// for a pass; one that ended is replaced by those found now, if any (a
// person who detached and attached again). It says whether the clients
// watched changed, and with them the status poll.
func (s *seenWatch) take(d *Daemon) (changed bool) {
	gone := false
	for _, r := range s.w.Take() {
		if r.Gone {
			delete(s.clients, r.PID)
			gone = true
		}
		if r.Input && s.on {
			d.trace(Trace{Kind: TraceSeenInput, PID: r.PID}, "a client of herdr read its terminal", "pid", r.PID)
			s.input(d.now())
		}
	}
	if !gone || !s.on {
		return false
	}
	s.find(d)
	s.trace(d)
	return true
}

// input asks for the pass a client's input calls for: at once, or at the
// end of the gap after the last one. The first input's re-checks are
// owed too.
func (s *seenWatch) input(now time.Time) {
	if s.gap == 0 {
		s.gap, s.owed = seenGap, seenRechecks
	}
	if s.armed {
		return
	}
	s.armed = true
	s.timer.Reset(max(0, s.gap-now.Sub(s.last)))
}

// seenPass is that pass: a read of the statuses, then a re-check after
// seenGap while the agent still shows done and one is owed. Input that
// left the agent done (the person typed, but herdr saw no return) makes
// the next input's pass wait twice as long, up to seenGapMax.
func (l *loop) seenPass() {
	s := &l.seen
	s.armed, s.last = false, l.d.now()
	l.run(passInput{Input: pass.Input{AgentPoll: true, Urgent: true}})
	switch {
	case !s.on:
	case s.owed > 0:
		s.owed--
		s.armed = true
		s.timer.Reset(seenGap)
	default:
		s.gap = min(2*s.gap, seenGapMax)
	}
}
