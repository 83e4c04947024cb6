package daemon

import (
	"context"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// streamEvent is an event and the subscription it came on: a replay is
// only ever at the start of a subscription (docs/herdr.md §7).
type streamEvent struct {
	herdr.Event
	gen uint64
}

// ourRename is one of our renames waiting for its echo.
type ourRename struct {
	want    string    // the label we set
	seen    string    // the label our re-read saw just before
	gen     uint64    // the subscription that will carry the echo
	at      time.Time // when we sent it
	foreign string    // someone else's label seen before the echo
}

// ReplayWindow bounds the first replay of a 0.7/0.8 subscription: herdr's
// ring holds 512 events and sends each subscription at least one per
// 100 ms tick (docs/herdr.md §7). Until it is over, an old tab.renamed of
// a person could read as one made during our rename; afterwards every
// replayed label is one the daemon has seen, which checkOverwrite ignores.
// 0.9 (protocol 22) does not replay. Within it the daemon re-reads each
// tab right before renaming it, a request more per rename.
const ReplayWindow = 512*100*time.Millisecond + time.Second

// inflightTTL bounds how long a rename waits for its echo.
const inflightTTL = 10 * time.Second

// noteOurRename records a rename just made (Run only), so its echo can
// tell whether a person renamed the tab in between.
func (d *Daemon) noteOurRename(tabID, want, seen string) {
	if d.inflight == nil {
		return
	}
	now := d.now()
	if !d.streamProves(now) {
		return // the stream may still be replaying: it proves nothing
	}
	d.log.Debug("watching for a rename inside ours", "tab", tabID, "ours", want, "read", seen)
	d.inflight[tabID] = &ourRename{want: want, seen: seen, gen: d.stream.gen.Load(), at: now}
}

// freshSnapshot is the age under which a pass's snapshot stands in for
// the re-read before a rename, when echoWatched.
const freshSnapshot = 250 * time.Millisecond

// echoWatched reports whether a rename made now would have its echo
// watched by checkOverwrite (Run, on a stream past its replay).
func (d *Daemon) echoWatched() bool {
	return d.inflight != nil && d.streamProves(d.now())
}

// streamProves reports whether the event stream's tab.renamed events can
// prove an overwrite at now: it is up and past any replay.
func (d *Daemon) streamProves(now time.Time) bool {
	first := d.stream.first.Load()
	return first != 0 && (d.client.Protocol() >= 22 || now.Sub(time.Unix(0, first)) >= ReplayWindow)
}

// expireInflight forgets renames whose echo never came (a lost event, a
// cut stream); once per pass, not per rename.
func (d *Daemon) expireInflight() {
	now := d.now()
	for id, r := range d.inflight {
		if now.Sub(r.at) > inflightTTL {
			delete(d.inflight, id)
		}
	}
}

// checkOverwrite closes the window recheck leaves: herdr applies
// renames in order and reports each on the event stream in that order. A
// tab.renamed with a label that is neither ours nor the one our re-read
// saw, arriving before the echo of our rename, is a person's rename that
// landed between the re-read and ours and that we overwrote: put it back.
//
// Left open: a stream that loses events (0.9 events_lost) or ends between
// the two, a person who renames the tab back to a label it had before,
// and, on 0.7/0.8, the first ReplayWindow of the daemon's first stream.
func (d *Daemon) checkOverwrite(ctx context.Context, ev streamEvent) {
	if ev.Kind != "tab.renamed" || d.inflight == nil {
		return
	}
	r := d.inflight[ev.TabID]
	if r == nil || ev.gen != r.gen {
		return
	}
	d.log.Debug("tab renamed while ours was on the way", "tab", ev.TabID, "label", ev.Label, "ours", r.want, "read", r.seen)
	// tab.renamed events reach us in the order herdr applied them, so
	// only the last one before our echo tells what our rename replaced:
	// the label our re-read saw, or someone's rename inside the window.
	switch {
	case ev.Label == r.want:
		delete(d.inflight, ev.TabID)
		if r.foreign == "" {
			return
		}
	case ev.Label == r.seen || d.isOurs(ev.TabID, ev.Label) || d.seen.labels[ev.TabID].Has(ev.Label):
		// Not a new name of a person's: what we read, one of ours (a
		// killed daemon's late rename), or a replayed old label.
		r.foreign = ""
		return
	default:
		r.foreign = ev.Label
		return
	}
	rctx, cancel := context.WithTimeout(ctx, d.opt.Timeout)
	defer cancel()
	if _, err := d.client.RenameTab(rctx, ev.TabID, r.foreign); err != nil {
		d.log.Warn("could not put back a name set during our rename", "tab", ev.TabID, "name", r.foreign, "err", err)
		return
	}
	d.noteLabel(ev.TabID, r.foreign)
	d.log.Info("a person renamed the tab as we did; put their name back", "tab", ev.TabID, "name", r.foreign, "ours", r.want)
}

// isOurs says whether label is one the state remembers setting on tab.
func (d *Daemon) isOurs(tabID, label string) bool {
	m := d.state.Tabs[tabID]
	if label == m.Label {
		return true
	}
	return m.Pending.Has(label)
}
