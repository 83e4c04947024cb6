package renamer

import (
	"slices"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/owner"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// follow adds a flight to those watched for t; nothing without Follow.
func (r *Renamer) follow(t state.Target, f *flight) {
	if r.flights == nil {
		return
	}
	r.log.Debug("watching for a rename inside ours", t.Kind.String(), t.ID, "ours", f.want, "read", f.seen)
	r.flights.add(t, f)
}

// unfollow stops following the rename of t that asked for want at at
// after a look that saw seen.
func (r *Renamer) unfollow(t state.Target, want, seen string, at time.Time) {
	if r.flights == nil {
		return
	}
	r.flights.set(t, slices.DeleteFunc(r.flights.by[t], func(f *flight) bool {
		return f.want == want && f.seen == seen && f.at.Equal(at)
	}))
}

// Live reports whether the rename events of kind on subscription gen are
// live: protocol 22 never replays; on older ones the entry's replay has
// ended (ReplayOver).
func (r *Renamer) Live(gen uint64, kind state.Kind) bool {
	return r.herdr.Protocol() >= 22 || r.flights != nil && r.flights.live[liveKey{gen, kind}]
}

// EchoWatched reports whether a rename made now has its echo watched on a
// live stream: the owner follows renames, a subscription was acked
// (started) and its tab.renamed entry is past any replay.
func (r *Renamer) EchoWatched(started bool) bool {
	return r.flights != nil && started && r.Live(r.gen(), state.Tab)
}

// flightTTL is how long a flight is watched. On 0.7/0.8 it is always the
// longest replay more: an entry can lag that far behind even after it
// looked caught up (herdr stalled, or renames every tick), and until its
// true echo comes, a flight not decided must stay to be decided for the
// person.
func (r *Renamer) flightTTL() time.Duration {
	if r.herdr.Protocol() >= 22 {
		return inflightTTL
	}
	return inflightTTL + herdr.ReplayWindow
}

// Echo follows one rename event through the flights of its target, and
// puts back what a person set inside one of ours once its fate is known:
// at its echo on a live stream, else when the replay ends. gen is the
// subscription it came on.
func (r *Renamer) Echo(ev herdr.Event, gen uint64) {
	if r.flights == nil {
		return
	}
	t, ok := renameTarget(ev)
	if !ok {
		return
	}
	before := r.heard.before(t, gen)
	r.adopt(t)
	echo := r.echo(t, ev.Label, gen, before)
	r.heard.add(t, gen, ev.Label, echo)
	if !echo && r.Live(gen, t.Kind) {
		r.learn(t, ev.Label, before)
	}
}

// echo follows a rename of t to label on subscription gen through t's
// flights (before: what was reported of t before it), and says whether
// one of them took it for its echo.
func (r *Renamer) echo(t state.Target, label string, gen uint64, before reported) (echo bool) {
	fs := r.flights.by[t]
	if len(fs) == 0 {
		return false
	}
	live, replays := r.Live(gen, t.Kind), r.herdr.Protocol() < 22
	var decide, retired []*flight
	keep := fs[:0]
	for _, f := range fs {
		if f.over(r.now(), r.flightTTL()) || !replays && f.others && r.now().Sub(f.at) >= state.PendingTTL {
			// Its echo came long enough ago, or its watch is over
			// (however long since the pass that would end it): this
			// event is not its. On 0.9 another process's rename older
			// than PendingTTL has landed unheard or never will.
			retired = append(retired, f)
			continue
		}
		if f.gen != gen {
			if f.gen != 0 && (!replays || gen < f.gen) {
				keep = append(keep, f)
				continue
			}
			// A new 0.7/0.8 subscription replays the whole ring, our
			// rename's history with it: follow it there from the start.
			// A flight adopted from another process follows the first.
			f.restart(gen, replays)
		}
		mine := r.observe(t, f, label, before)
		echo = echo || mine
		if mine && live {
			decide = append(decide, f)
			if !replays || f.after != "" {
				// Live, or past its anchor (a put-back goes out after
				// the echo it follows): no old history follows, and a
				// later echo of its label past the grace is a person's.
				if f.heard.IsZero() {
					f.heard = r.now()
				}
			}
		}
		keep = append(keep, f)
	}
	r.flights.set(t, keep)
	for _, f := range decide {
		r.putBack(t, f)
	}
	r.unsave(settledOf(t, retired))
	return echo
}

// learn takes into the memory what a rename of t to label, heard live
// and taken for no echo of ours, says of it (before: what was reported
// of t before it): someone else named it. A release ends when a person
// names the tab something else than it was released with
// (owner.ReleaseHolds), and our last label chosen again after another
// label than the one our rename to it replaced is the person's
// (owner.ChosenAgain): a pass that comes after must take neither for
// ours. A replayed rename may be older than the release or our rename,
// and tells nothing.
func (r *Renamer) learn(t state.Target, label string, before reported) {
	e := r.mem.Entry(t)
	m := owner.Of(e, r.now())
	var edits state.Edits
	if t.Kind == state.Tab && e.Released && !owner.ReleaseHolds(label, m) {
		edits.Add(func(tx *state.Tx) { tx.EndRelease(t) })
	}
	if label == e.Label && before.n > 0 && !before.ours && owner.ChosenAgain(t.Kind, before.last, e.Over, r.oursOf(t)) {
		edits.Add(func(tx *state.Tx) { tx.Disown(t) })
	}
	if len(edits) == 0 {
		return
	}
	if err := r.save(edits.Apply); err != nil {
		r.log.Warn("could not save state; keeping it in memory", "err", err)
	}
}

// renameTarget is what a rename event names.
func renameTarget(ev herdr.Event) (state.Target, bool) {
	switch ev.Kind {
	case herdr.TabRenamed:
		return state.TabTarget(ev.TabID), ev.TabID != ""
	case herdr.WorkspaceRenamed:
		return state.WorkspaceTarget(ev.WorkspaceID), ev.WorkspaceID != ""
	}
	return state.Target{}, false
}

// reported are the labels reported for a target before an event, in
// herdr's order: last right before it, prior before that; n of them are
// known on this subscription. ours: last was taken for the echo of a
// rename of ours.
type reported struct {
	prior, last string
	n           int
	ours        bool
}

// observe moves a flight along one reported label, and says whether it
// is the flight's echo, the one that decides its fate. Only the last
// label before the echo tells what our rename replaced, and herdr
// reports an entry's events in the order it applied them, replayed or
// live, so a label before our echo is the one the target had right then,
// however old: a person's rename back to a label the target had before
// is theirs. A label that is what our look saw, one of ours (a killed
// daemon's late rename, another of ours on its way) or herdr's own tab
// number is no one's to put back, unless what our look saw was our last
// label and a person chose it again since (owner.ChosenAgain): then the
// label before it is not the one our rename to it replaced.
func (r *Renamer) observe(t state.Target, f *flight, label string, before reported) bool {
	switch {
	case f.before:
		// History from before the rename was sent: no echo of it. A
		// put-back follows the echo of ours that replaced its label, so
		// its anchor is that label followed by ours.
		f.before = label != f.after || f.prev != f.want
		f.prev = label
		return false
	case f.closed:
		return false
	case f.echoed && (f.twin || f.after != "") && slices.Contains(f.closers, label):
		// A later rename of ours replaced it: what follows is theirs.
		// Past its anchor no old history follows either. A closer that
		// is what it would put back is that put-back, done already.
		f.closed = true
		if label == f.backTo {
			f.putBack = label
		}
		return false
	}
	if label == f.want {
		return r.echoed(t, f, before)
	}
	if label == f.putBack {
		// Our put-back landed: one more echo of ours (a late one
		// landing again) puts it back again.
		f.putBack = ""
	}
	if f.echoed && owner.Shown(t.Kind, label, f.seen) {
		f.seenAgain = true
	}
	f.foreign = ""
	ours := append(r.oursOf(t), f.later...)
	if !slices.Contains(ours, label) {
		// Someone renamed it after our echo, to a number too: their
		// newer choice, and the label ours replaced no longer goes
		// back (a later echo of ours decides again), nor does a
		// put-back of it on its way.
		f.backTo = ""
		if f.superseded != nil {
			f.superseded.Store(true)
		}
	}
	if owner.Foreign(t.Kind, label, append(ours, f.seen)) {
		f.foreign = label
	}
	return false
}

// echoed takes in a report of f's label, and says whether it may be f's
// echo. Where herdr may replay (0.7/0.8, before a put-back's anchor) a
// report taken for its echo may have been an old one; herdr then reports
// what our look saw before our own echo comes, since the target showed
// it when we looked. A later report of our label without that between is
// a person's rename back to it: no echo of ours, and nothing goes back.
// On a stream known to be live (0.9, past an anchor) the echo grace
// bounds the watch instead.
func (r *Renamer) echoed(t state.Target, f *flight, before reported) bool {
	if f.echoed && f.heard.IsZero() && !f.seenAgain {
		f.foreign = ""
		return false
	}
	f.echoed, f.backTo, f.seenAgain = true, f.foreign, false
	if f.backTo == "" && f.seenOver != "" && before.n == 2 && before.last == f.seen && !before.ours &&
		owner.ChosenAgain(t.Kind, before.prior, f.seenOver, append(r.oursOf(t), f.later...)) {
		f.backTo = f.seen
	}
	return true
}

// oursOf are the target's labels of ours: the ones the memory remembers
// setting, and our names for it still on their way (a label given back
// is a person's).
func (r *Renamer) oursOf(t state.Target) []string {
	return append(r.mem.Entry(t).OurLabels(r.now()), r.flights.names(t, r.now())...)
}

// ReplayOver marks an entry live and decides the flights whose echo came
// during its replay, by the last echo. Every flight stays watched for
// flightTTL: the replay's end is a guess, so a later echo decides again.
func (r *Renamer) ReplayOver(gen uint64, kind herdr.EventKind) {
	if r.flights == nil {
		return
	}
	k := state.Tab
	if kind == herdr.WorkspaceRenamed {
		k = state.Workspace
	}
	r.flights.live[liveKey{gen, k}] = true
	for _, s := range r.flights.echoedOn(gen, k) {
		r.putBack(s.t, s.f)
	}
}

// Expire forgets renames watched for flightTTL, here and in the memory.
func (r *Renamer) Expire() {
	if r.flights == nil {
		return
	}
	r.unsave(r.flights.expire(r.now(), r.flightTTL()))
}

// Saw takes in what a snapshot read on the current subscription shows,
// for the renames adopted from the memory that no event told of yet. On
// 0.9 a subscription shows nothing from before it began: a person's
// rename inside a killed daemon's, made before we subscribed, is known
// only from the session, and goes back if that rename lands later.
func (r *Renamer) Saw(shows map[state.Target]string) {
	if r.flights == nil || r.herdr.Protocol() < 22 {
		return
	}
	gen := r.gen()
	for _, t := range r.flights.targets() {
		fs := r.flights.by[t]
		label, ok := shows[t]
		if !ok {
			continue
		}
		for _, f := range fs {
			if f.gen == 0 {
				f.gen = gen
				r.observe(t, f, label, reported{})
			}
		}
	}
}

// ServerGone stops following every rename: the server they were sent to
// is gone (herdr restarted), so none lands any more, and a new server's
// tabs that reuse their ids must not take its events for their echoes.
func (r *Renamer) ServerGone() {
	if r.flights != nil {
		r.flights = newFlights()
	}
}

// Adopt follows the flights the memory holds that are young enough to be
// decided: a stopped or killed daemon's renames, another process's.
func (r *Renamer) Adopt() {
	if r.flights == nil {
		return
	}
	if err := r.mem.Refresh(); err != nil {
		r.log.Warn("state file", "err", err)
	}
	for _, kind := range []state.Kind{state.Tab, state.Workspace} {
		for _, id := range r.mem.IDs(kind) {
			r.take(state.Target{Kind: kind, ID: id})
		}
	}
}

// adopt follows t's flights in the memory that are not followed yet, the
// memory refreshed first: another process records its rename before it
// sends it, so it is there before its echo.
func (r *Renamer) adopt(t state.Target) {
	if err := r.mem.Refresh(); err != nil {
		r.log.Warn("state file", "err", err)
	}
	r.take(t)
}

func (r *Renamer) take(t state.Target) {
	now := r.now()
	e := r.mem.Entry(t)
	for _, f := range e.Flights {
		own := r.sending.has(t, f)
		if r.flights.find(t, f.Want, f.Seen, f.Sent) != nil || !own && r.herdr.Protocol() >= 22 &&
			(f.Answered && !r.sentSinceSubscribed(f.Sent) || now.Sub(f.Sent) >= state.PendingTTL) {
			// On 0.9 another process's rename herdr answered before we
			// subscribed landed before we could hear it, and one older
			// than PendingTTL landed so or never will: no echo of it
			// will come. One sent since (once --apply beside us) echoes
			// on our stream.
			continue
		}
		// Watched from now, however old: a 0.7/0.8 replay shows its
		// echo for as long as herdr's ring holds it. Only a name of
		// ours is pending while it may land.
		given := !slices.ContainsFunc(e.Pending, func(p state.Pending) bool { return p.Label == f.Want })
		fl := &flight{want: f.Want, seen: f.Seen, after: f.After, at: f.Sent, watched: now, given: given,
			decided: f.Decided, adopted: f.Decided, others: !own, seenOver: f.Over}
		if own {
			// Our own, recorded and not concluded yet: sent on this
			// stream after all it told so far.
			fl.gen = r.gen()
		}
		r.follow(t, fl)
	}
}

// sentSinceSubscribed says whether a rename sent at sent was sent after
// the current subscription was acked: its echo comes on it, live.
func (r *Renamer) sentSinceSubscribed(sent time.Time) bool {
	at, ok := r.subscribed[r.gen()]
	return ok && !sent.Before(at)
}

// Awaiting reports whether a recent rename of ours on subscription gen,
// open now (up), has no fate yet: no echo, or one seen only in a replay
// not known to be over. With no stream open, no echo can come.
func (r *Renamer) Awaiting(gen uint64, up bool) bool {
	if r.flights == nil || !up {
		return false
	}
	now := r.now()
	for t, fs := range r.flights.by {
		for _, f := range fs {
			if f.gen == gen && now.Sub(f.watched) <= inflightTTL && (!f.echoed || !r.Live(f.gen, t.Kind)) {
				return true
			}
		}
	}
	return false
}

// unsave takes flights whose watch ended out of the memory, in one write.
func (r *Renamer) unsave(gone []settled) {
	var edits state.Edits
	for _, s := range gone {
		if slices.ContainsFunc(r.mem.Entry(s.t).Flights, func(f state.Flight) bool { return f.Want == s.f.want && f.Sent.Equal(s.f.at) }) {
			edits.Add(func(tx *state.Tx) { tx.Settle(s.t, s.f.want, s.f.at) })
		}
	}
	if len(edits) == 0 {
		return
	}
	if err := r.save(edits.Apply); err != nil {
		r.log.Warn("could not save state; keeping it in memory", "err", err)
	}
}
