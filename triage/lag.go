package triage

import (
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// A subscription that lags. herdr 0.7/0.8 write at most one event per
// subscription entry per 100 ms tick (docs/herdr.md §7): a pane whose
// title changes more than ten times a second fills the one pane.updated
// entry, its backlog grows (to the 512 events herdr's ring holds, some 25
// s), and every other pane's new title waits behind it, to be read as old
// news when it comes. A lagging entry also costs herdr: each tick it
// copies the whole backlog again.
//
// Lag notices it: pane.updated delivered at herdr's pace, one a tick for
// lagRun ticks in a row, or older than what a snapshot since showed of
// their pane. What answers it is the daemon's: while Answering,
// the kernel reports writes to local shells' terminals (a title comes
// that way) and each is news, and a poll reads the session every
// AnswerPoll; once the backlog is live news (events newer than the last
// snapshot come at herdr's pace for dropRun ticks, the subscription is
// past the replay it began with, or snapshots show panes changing as fast
// as herdr drains), Subscribe is false and the subscription goes on without
// pane.updated, so herdr copies no backlog. Snapshots calm for calmFor
// bring pane.updated back; its replay of old events lags again, and is
// answered the same way until it has caught up. herdr 0.9 (protocol 22)
// drains every retained event in a round and never lags.
type Lag struct {
	paced      bool      // the subscription is paced (herdr 0.7/0.8)
	subscribed time.Time // when it began
	// last is the last pane.updated; run counts those at herdr's pace
	// (or older than the snapshot) in a row, fresh those at its pace and
	// newer than the snapshot: herdr makes them that fast now.
	last       time.Time
	run, fresh int
	// dropped: the subscription leaves pane.updated out.
	dropped bool
	// revs are the revisions of the panes at revAt, and rate the
	// revisions a second the session moved by between two snapshots.
	revs      map[string]uint64
	revAt     time.Time
	rate      float64
	calmSince time.Time
}

// The timings of Lag, in herdr's tick, and the session's pace against
// the ten events a second herdr drains from an entry.
const (
	lagRun   = 10                 // pane.updated in a row at herdr's pace
	dropRun  = 30                 // of them new, in a row: the session is that fast
	lagPace  = 3 * herdr.Tick / 2 // one a tick, with room for a loaded herdr
	lagQuiet = 3 * herdr.Tick     // no pane.updated for as long: caught up
	chatty   = 10.0               // revisions a second: as many as herdr drains
	calm     = 5.0                // revisions a second: well under it
	calmFor  = 10 * time.Second   // calm for this long: pane.updated again
	rateSpan = time.Second        // the shortest span a rate is taken over
)

// AnswerPoll is how often the session is read while a subscription lags:
// the names that come from titles of panes the kernel cannot watch follow
// within it, and the snapshots tell when the session calms down.
const AnswerPoll = 5 * time.Second

// Subscribed notes a subscription that began at now; paced: herdr paces
// it (protocols before 22).
func (l *Lag) Subscribed(now time.Time, paced bool) {
	l.paced, l.subscribed, l.run, l.fresh, l.last = paced, now, 0, 0, time.Time{}
	if !paced {
		l.dropped = false
	}
}

// Delivered notes a pane.updated at now; stale: it is older than what
// the last snapshot (or an event since) showed of its pane. It says
// whether an answer begins: the caller reads the session at once.
func (l *Lag) Delivered(now time.Time, stale bool) (began bool) {
	if !l.paced || now.IsZero() {
		return false // herdr does not pace it, or no one knows when it came
	}
	was := l.Answering(now)
	atPace := !l.last.IsZero() && now.Sub(l.last) <= lagPace
	switch {
	case atPace && !stale:
		l.run, l.fresh = l.run+1, l.fresh+1
	case atPace || stale:
		l.run, l.fresh = l.run+1, 0
	default:
		l.run, l.fresh = 0, 0
	}
	l.last = now
	if l.fresh >= dropRun || l.run >= lagRun && (now.Sub(l.subscribed) > herdr.ReplayWindow || l.rate >= chatty) {
		// herdr makes pane.updated as fast as it drains them, or a
		// backlog outlasts any replay: it is live, and the entry only
		// costs herdr.
		l.dropped = true
	}
	return !was && l.Answering(now)
}

// Looked notes the panes of a snapshot read at now: how fast their
// revisions move says whether the session is busier than herdr's pace.
func (l *Lag) Looked(panes []herdr.Pane, now time.Time) {
	if !l.paced {
		return
	}
	if l.revs != nil && now.Sub(l.revAt) < rateSpan {
		return // too short a span to tell a rate by
	}
	revs := make(map[string]uint64, len(panes))
	moved := uint64(0)
	for _, p := range panes {
		revs[p.ID] = p.Revision
		if prev, ok := l.revs[p.ID]; ok && p.Revision > prev {
			moved += p.Revision - prev
		}
	}
	if l.revs != nil {
		l.rate = float64(moved) / now.Sub(l.revAt).Seconds()
	}
	l.revs, l.revAt = revs, now
	switch {
	case l.rate >= calm:
		l.calmSince = time.Time{}
	case l.calmSince.IsZero():
		l.calmSince = now
	}
	if l.rate >= chatty && l.run >= lagRun {
		l.dropped = true
	}
	if l.dropped && !l.calmSince.IsZero() && now.Sub(l.calmSince) >= calmFor {
		l.dropped, l.run, l.fresh = false, 0, 0
	}
}

// Subscribe says whether the subscription carries pane.updated.
func (l *Lag) Subscribe() bool { return !l.dropped }

// Answering says whether, at now, quiet panes' titles need another way to
// be seen: the subscription goes without pane.updated, or its
// pane.updated lags.
func (l *Lag) Answering(now time.Time) bool {
	return l.dropped || l.run >= lagRun && now.Sub(l.last) <= lagQuiet
}

// Stale says whether ev, a pane.updated, is older than what the view
// shows of its pane: a snapshot (or a later event) since showed a newer
// revision. Ask before Learn takes it in.
func (tr Triage) Stale(ev herdr.Event) bool {
	old, ok := tr.View.Pane(ev.PaneID)
	return ok && ev.Kind == herdr.PaneUpdated && ev.Pane != nil && ev.Pane.Revision < old.Revision
}
