package daemon

import (
	"slices"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// A flight outlives the daemon that sent it: what deciding it needs goes
// into the state file before the request (saveFlight), and leaves when
// its watch ends (unsaveFlights). A daemon that starts, or takes over,
// follows the flights it finds there (inheritFlights) on its own stream:
// on 0.7/0.8 that stream replays the echo and the label before it; on 0.9
// it shows a rename that lands late.

// flight is one rename of ours waiting for its echo.
type flight struct {
	want string    // the label we set
	seen string    // the label our last look saw before sending it
	gen  uint64    // the subscription whose events tell its fate; 0: none yet
	at   time.Time // when it was sent
	// foreign is the label of the last rename reported since ours was
	// registered when it was someone else's, else "".
	foreign string
	// echoed: a label reported was ours; backTo is foreign as it stood
	// right before the last such echo. While the entry replays, old
	// events may carry our label too, but herdr keeps the order, so the
	// last echo is the true one.
	echoed bool
	backTo string
	// putBack is the label last put back for it, so an echo seen again
	// does not put it back twice.
	putBack string
	// later are the labels the looks before our later renames of the
	// target saw: each was judged ours to replace then, so none is a
	// person's to put back when an echo of a later rename to the same
	// label looks like this one's.
	later []string
}

// flights holds the daemon's renames on their way, by target, and which
// subscriptions' entries are past their replay. The Run goroutine owns it.
type flights struct {
	by   map[target][]*flight
	live map[liveKey]bool
}

type liveKey struct {
	gen  uint64
	kind targetKind
}

func newFlights() *flights {
	return &flights{by: map[target][]*flight{}, live: map[liveKey]bool{}}
}

// maxFlights bounds the renames of one target watched at once.
const maxFlights = 8

// add follows one more rename of t. The older flights learn that the
// label its look saw was judged ours to replace.
func (fl *flights) add(t target, f *flight) {
	fs := fl.by[t]
	if len(fs) == maxFlights {
		fs = fs[1:]
	}
	for _, old := range fs {
		old.later = append(old.later, f.seen)
		if old.foreign == f.seen {
			old.foreign = ""
		}
	}
	fl.by[t] = append(fs, f)
}

// of are t's flights, oldest first.
func (fl *flights) of(t target) []*flight {
	if fl == nil {
		return nil
	}
	return fl.by[t]
}

// set replaces t's flights.
func (fl *flights) set(t target, fs []*flight) {
	if len(fs) == 0 {
		delete(fl.by, t)
		return
	}
	fl.by[t] = fs
}

// wants are the labels t's flights set.
func (fl *flights) wants(t target) []string {
	var out []string
	for _, f := range fl.of(t) {
		out = append(out, f.want)
	}
	return out
}

// markLive records that subscription gen's entry for kind is past its
// replay.
func (fl *flights) markLive(gen uint64, kind targetKind) { fl.live[liveKey{gen, kind}] = true }

func (fl *flights) isLive(gen uint64, kind targetKind) bool {
	return fl != nil && fl.live[liveKey{gen, kind}]
}

// expire stops following flights sent more than ttl ago, and returns them.
func (fl *flights) expire(now time.Time, ttl time.Duration) []settled {
	var gone []settled
	for t, fs := range fl.by {
		keep := fs[:0]
		for _, f := range fs {
			if now.Sub(f.at) <= ttl {
				keep = append(keep, f)
			} else {
				gone = append(gone, settled{t, f})
			}
		}
		fl.set(t, keep)
	}
	return gone
}

// echoedOn are the flights of kind whose echo came on subscription gen.
func (fl *flights) echoedOn(gen uint64, kind targetKind) []settled {
	var out []settled
	for t, fs := range fl.by {
		for _, f := range fs {
			if t.kind == kind && f.gen == gen && f.echoed {
				out = append(out, settled{t, f})
			}
		}
	}
	return out
}

// awaiting reports whether a flight sent on subscription gen within ttl
// of now has no fate yet: no echo, or one seen only while live said its
// entry still replayed.
func (fl *flights) awaiting(now time.Time, gen uint64, ttl time.Duration, live func(uint64, targetKind) bool) bool {
	for t, fs := range fl.by {
		for _, f := range fs {
			if f.gen == gen && now.Sub(f.at) <= ttl && (!f.echoed || !live(f.gen, t.kind)) {
				return true
			}
		}
	}
	return false
}

// settled is a flight whose watch ended, and its target.
type settled struct {
	t target
	f *flight
}

func settledOf(t target, fs []*flight) []settled {
	out := make([]settled, len(fs))
	for i, f := range fs {
		out[i] = settled{t, f}
	}
	return out
}

// appendFlight adds f, keeping the newest maxFlights.
func appendFlight(fs []state.Flight, f state.Flight) []state.Flight {
	fs = append(slices.Clone(fs), f)
	if len(fs) > maxFlights {
		fs = fs[len(fs)-maxFlights:]
	}
	return fs
}

// dropFlight forgets the oldest flight that asked for want.
func dropFlight(fs []state.Flight, want string) []state.Flight {
	i := slices.IndexFunc(fs, func(f state.Flight) bool { return f.Want == want })
	if i < 0 {
		return fs
	}
	fs = slices.Delete(slices.Clone(fs), i, i+1)
	if len(fs) == 0 {
		return nil
	}
	return fs
}

// unsaveFlights takes flights whose watch ended out of the state file, in
// one write.
func (d *Daemon) unsaveFlights(gone []settled) {
	var w stateWrites
	for _, s := range gone {
		_, isTab := d.state.Tabs[s.t.id]
		_, isWorkspace := d.state.Workspaces[s.t.id]
		switch {
		case s.t.kind == tabTarget && isTab:
			w.add(dropSavedFlight(s.t.id, s.f.want))
		case s.t.kind == workspaceTarget && isWorkspace:
			w.addWorkspace(dropWorkspaceRename(s.t.id, s.f.want, false))
		}
	}
	d.saveAfterRenames(&w, nil)
}

// inheritFlights follows the flights the state file holds that are young
// enough to be decided: a stopped or killed daemon's renames.
func (d *Daemon) inheritFlights() {
	if err := d.state.Refresh(); err != nil {
		d.log.Warn("state file", "err", err)
	}
	now, ttl := d.now(), d.flightTTL()
	take := func(t target, fs []state.Flight) {
		for _, f := range fs {
			if now.Sub(f.Sent) <= ttl {
				d.follow(t, &flight{want: f.Want, seen: f.Seen, at: f.Sent})
			}
		}
	}
	for id, m := range d.state.Tabs {
		take(target{tabTarget, id}, m.Flights)
	}
	for id, m := range d.state.Workspaces {
		take(target{workspaceTarget, id}, m.Flights)
	}
}

// awaitEchoes gives our renames still on their way up to
// shutdownEchoWait to show their fate before the daemon stops.
func (l *loop) awaitEchoes() {
	d := l.d
	if d.flights == nil {
		return
	}
	deadline := time.After(shutdownEchoWait)
	for d.awaitingEcho() {
		select {
		case sev := <-l.events:
			d.checkOverwrite(sev)
		case <-deadline:
			return
		}
	}
}

// awaitingEcho reports whether a recent rename of ours on the open
// stream has no fate yet: no echo, or one seen only in a replay not known
// to be over. With no stream open, no echo can come.
func (d *Daemon) awaitingEcho() bool {
	return d.stream.up.Load() && d.flights.awaiting(d.now(), d.stream.gen.Load(), inflightTTL, d.live)
}
