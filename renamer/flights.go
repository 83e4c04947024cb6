package renamer

import (
	"cmp"
	"maps"
	"slices"
	"sync/atomic"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// A flight outlives the process that sent it: what deciding it needs is
// in the memory before the request (recordBefore), and leaves when its
// watch ends (Expire) or its fate is known. A daemon that starts, or
// takes over, follows the flights it finds there (Adopt) on its own
// stream: on 0.7/0.8 that stream replays the echo and the label before
// it; on 0.9 it shows a rename that lands late. A rename another process
// sends while this one runs (lock's put-back) is in the memory before it
// is sent, so this one adopts it before its echo comes.

// inflightTTL bounds how long a rename on a live stream waits for its
// echo (a lost event, a cut stream). A burst of our own renames on a 0.8
// stream is paced at one echo per tick, so this covers about a hundred
// renames queued ahead of it.
const inflightTTL = 100 * herdr.Tick

// echoGrace is how long a rename of ours stays watched on a live stream
// after its echo came. A person who renamed the target to our very label
// inside our rename's window, and then to another, sends two echoes of
// it: the last is ours, and the label before it goes back. No person
// renames twice inside it by hand after our name shows.
const echoGrace = time.Second

// flight is one rename of ours waiting for its echo.
type flight struct {
	want string // the label we set
	seen string // the label our last look saw before sending it
	// after is a label whose echo was heard before it was sent; before:
	// a replay of herdr's history has not reached that echo yet, so
	// nothing seen is this rename's echo.
	after  string
	before bool
	prev   string // the label seen last while before
	// given: it gave a label back (a put-back, a lock's label), not a
	// name of ours.
	given bool
	gen   uint64    // the subscription whose events tell its fate; 0: none yet
	at    time.Time // when its record was written
	// watched is when its watch began: when it was sent, or when a
	// process that started later adopted it from the memory.
	watched time.Time
	// foreign is the label of the last rename reported since ours was
	// registered when it was someone else's, else "".
	foreign string
	// echoed: a label reported was ours; backTo is foreign as it stood
	// right before the last such echo. While the entry replays, old
	// events may carry our label too, but herdr keeps the order, so the
	// last echo is the true one. seenAgain: seen was reported since the
	// last echo: an old echo, replayed, is followed by it before our own.
	echoed    bool
	backTo    string
	seenAgain bool
	// seenOver: seen was the last label we set, and our rename to it
	// had replaced seenOver (state.Flight.Over).
	seenOver string
	// heard is when its echo first came on a live stream; it is watched
	// for echoGrace more.
	heard time.Time
	// putBack is the label last put back for it, so an echo seen again
	// does not put it back twice; deferred: its put-back waits for the
	// memory to read again.
	putBack  string
	deferred bool
	// superseded tells the put-back on its way that a person renamed the
	// target since it was decided: it is not sent.
	superseded *atomic.Bool
	// decided: its decision is in the memory (see state.Flight.Decided);
	// adopted: it was so when we adopted it, and we never put back for it.
	decided, adopted bool
	// others: another process recorded it (adopted from the memory).
	others bool
	// later are the labels the looks before our later renames of the
	// target saw: each was judged ours to replace then, so none is a
	// person's to put back when an echo of a later rename to the same
	// label looks like this one's.
	later []string
	// closers are the labels of our later renames sent after this one
	// landed (their look saw its label); twin: a later rename of ours
	// asked for its label again. Once its echo came and then a closer's,
	// a later echo of its label is the twin's or a person's, not its
	// own. Without a twin one may be its own, the earlier an old one in a
	// replay, unless it is anchored (after): no history follows that.
	closers []string
	twin    bool
	closed  bool
}

// restart follows f from the start of subscription gen's history: a new
// 0.7/0.8 subscription replays the whole ring, our rename's history with
// it (replays). A flight adopted from another process follows the first.
// What it learnt of the renames around it stays.
func (f *flight) restart(gen uint64, replays bool) {
	*f = flight{want: f.want, seen: f.seen, after: f.after, gen: gen, at: f.at, watched: f.watched, given: f.given,
		putBack: f.putBack, later: f.later, closers: f.closers, twin: f.twin, before: replays && f.after != "", decided: f.decided, adopted: f.adopted,
		others: f.others, seenOver: f.seenOver}
}

// flights holds the renames on their way, by target, and which
// subscriptions' entries are past their replay. The owner's goroutine
// owns it.
type flights struct {
	by   map[state.Target][]*flight
	live map[liveKey]bool
}

type liveKey struct {
	gen  uint64
	kind state.Kind
}

func newFlights() *flights {
	return &flights{by: map[state.Target][]*flight{}, live: map[liveKey]bool{}}
}

// add follows one more rename of t, once, in the order they were sent.
// Each flight learns the labels the looks before the renames sent after
// it saw: each was judged ours to replace then. A flight adopted from the
// memory may be older than those followed already.
func (fl *flights) add(t state.Target, f *flight) {
	if o := fl.find(t, f.want, f.seen, f.at); o != nil {
		// Followed from its record already: the re-read before it was
		// sent may have seen a newer label of ours.
		o.later = append(o.later, f.later...)
		return
	}
	fs := fl.by[t]
	if len(fs) == state.MaxFlights {
		fs = fs[1:]
	}
	for _, o := range fs {
		if o.at.After(f.at) {
			f.later = append(f.later, o.seen)
			if o.seen == f.want {
				f.closers = append(f.closers, o.want)
			}
			f.twin = f.twin || o.want == f.want
			continue
		}
		o.later = append(o.later, f.seen)
		if f.seen == o.want {
			o.closers = append(o.closers, f.want)
		}
		o.twin = o.twin || f.want == o.want
		if o.foreign == f.seen {
			o.foreign = ""
		}
	}
	i := len(fs)
	for i > 0 && fs[i-1].at.After(f.at) {
		i--
	}
	fl.by[t] = slices.Insert(fs, i, f)
}

// find is t's flight that asked for want at at after a look that saw
// seen, nil when none.
func (fl *flights) find(t state.Target, want, seen string, at time.Time) *flight {
	for _, f := range fl.by[t] {
		if f.want == want && f.seen == seen && f.at.Equal(at) {
			return f
		}
	}
	return nil
}

// set replaces t's flights.
func (fl *flights) set(t state.Target, fs []*flight) {
	if len(fs) == 0 {
		delete(fl.by, t)
		return
	}
	fl.by[t] = fs
}

// names are the names of ours t's flights set that may still land at
// now: a label given back is a person's, and so is one we asked for
// longer ago than state.PendingTTL (whatever record of it is left).
func (fl *flights) names(t state.Target, now time.Time) []string {
	var out []string
	for _, f := range fl.by[t] {
		if !f.given && state.MayLand(f.at, now) {
			out = append(out, f.want)
		}
	}
	return out
}

// heard are the last two labels reported for each target on one
// subscription, in herdr's order (what a rename's echo replaced, and what
// came before that), and whether the last was taken for the echo of a
// rename of ours.
type heard struct {
	gen uint64
	by  map[state.Target]reported
}

// before is what was reported for t on gen before now.
func (h *heard) before(t state.Target, gen uint64) reported {
	if h.gen != gen {
		return reported{}
	}
	return h.by[t]
}

// add takes one more label reported for t on gen; ours: it was taken
// for the echo of a rename of ours.
func (h *heard) add(t state.Target, gen uint64, label string, ours bool) {
	if h.gen != gen || h.by == nil {
		h.gen, h.by = gen, map[state.Target]reported{}
	}
	r := h.by[t]
	h.by[t] = reported{prior: r.last, last: label, n: min(r.n+1, 2), ours: ours}
}

// targets are the targets with flights, in one order every time: what is
// done for each (a put-back started) happens in the same order on every
// run.
func (fl *flights) targets() []state.Target {
	ts := slices.Collect(maps.Keys(fl.by))
	slices.SortFunc(ts, func(a, b state.Target) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.ID, b.ID))
	})
	return ts
}

// over says whether f's watch has ended at now: watched longer than ttl,
// or its echo came over echoGrace ago.
func (f *flight) over(now time.Time, ttl time.Duration) bool {
	return now.Sub(f.watched) > ttl || !f.heard.IsZero() && now.Sub(f.heard) > echoGrace
}

// expire stops following flights whose watch is over, and returns them.
func (fl *flights) expire(now time.Time, ttl time.Duration) []settled {
	var gone []settled
	for _, t := range fl.targets() {
		fs := fl.by[t]
		keep := fs[:0]
		for _, f := range fs {
			if !f.over(now, ttl) {
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
func (fl *flights) echoedOn(gen uint64, kind state.Kind) []settled {
	var out []settled
	for _, t := range fl.targets() {
		for _, f := range fl.by[t] {
			if t.Kind == kind && f.gen == gen && f.echoed {
				out = append(out, settled{t, f})
			}
		}
	}
	return out
}

// settled is a flight whose watch ended, and its target.
type settled struct {
	t state.Target
	f *flight
}

func settledOf(t state.Target, fs []*flight) []settled {
	out := make([]settled, len(fs))
	for i, f := range fs {
		out[i] = settled{t, f}
	}
	return out
}
