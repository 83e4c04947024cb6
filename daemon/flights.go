package daemon

import (
	"context"
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
	var tabs, wss []settled
	for _, s := range gone {
		if s.t.kind == workspaceTarget {
			wss = append(wss, s)
		} else if _, ok := d.state.Tabs[s.t.id]; ok {
			tabs = append(tabs, s)
		}
	}
	if len(tabs) > 0 {
		err := d.update(func(m map[string]state.TabMemory) {
			for _, s := range tabs {
				if e, ok := m[s.t.id]; ok {
					e.Flights = dropFlight(e.Flights, s.f.want)
					m[s.t.id] = e
				}
			}
		})
		if err != nil {
			d.log.Warn("could not save state; keeping it in memory", "err", err)
		}
	}
	if len(wss) > 0 {
		d.updateWorkspaces(func(m map[string]state.WorkspaceMemory) {
			for _, s := range wss {
				if e, ok := m[s.t.id]; ok {
					e.Flights = dropFlight(e.Flights, s.f.want)
					m[s.t.id] = e
				}
			}
		})
	}
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
	ctx, cancel := context.WithTimeout(context.WithoutCancel(l.ctx), shutdownEchoWait+d.opt.Timeout)
	defer cancel()
	deadline := time.After(shutdownEchoWait)
	for d.awaitingEcho() {
		select {
		case sev := <-l.events:
			d.checkOverwrite(ctx, sev)
		case <-deadline:
			return
		}
	}
}

// awaitingEcho reports whether a recent rename of ours on the open
// stream has no fate yet: no echo, or one seen only in a replay not known
// to be over. With no stream open, no echo can come.
func (d *Daemon) awaitingEcho() bool {
	now, gen := d.now(), d.stream.gen.Load()
	if !d.stream.up.Load() {
		return false
	}
	for t, fs := range d.flights.by {
		for _, f := range fs {
			if f.gen == gen && now.Sub(f.at) <= inflightTTL && (!f.echoed || !d.live(f.gen, t.kind)) {
				return true
			}
		}
	}
	return false
}

// putBackLocks gives locked tabs back the label they were locked with.
func (d *Daemon) putBackLocks(ctx context.Context, rows []*row, stats *PassStats) {
	for _, r := range rows {
		rep := &r.report
		if err := d.setLabel(ctx, target{tabTarget, rep.TabID}, rep.Want); err != nil {
			rep.Action, rep.Error = ActionFailed, err.Error()
			d.log.Warn("could not put back a locked tab's label", "tab", rep.TabID, "label", rep.Want, "err", err)
			continue
		}
		stats.Renames++
		rep.Action, rep.Label = ActionKeep, rep.Want
		d.log.Info("a rename of ours landed after the tab was locked; put its label back", "tab", rep.TabID, "label", rep.Want)
	}
}
