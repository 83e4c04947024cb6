package daemon

import (
	"context"
	"fmt"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
)

// Putting back a name a person set inside one of our renames. herdr has no
// conditional rename: between the last look at a tab (or workspace) and
// our rename landing, a person's rename can land and be overwritten.
// herdr applies renames in order and reports each on the event stream in
// that order, so the label reported right before the echo of ours is the
// one ours replaced. When that is neither what our look saw nor one of
// ours, it was a person's, set inside the window: it goes back.
//
// Every rename the daemon sends goes through here: a tab's name, a
// person's label given its position prefix, a workspace's name.

// streamEvent is an event and the subscription it came on, or, when
// replayDone is set, the word that the subscription's entry for that kind
// has delivered its history (see watchEvents).
type streamEvent struct {
	herdr.Event
	gen uint64
	// replayDone: the entry for this event kind ("tab.renamed" or
	// "workspace.renamed") has been quiet for replayQuiet since quietFrom,
	// or (quietFrom zero) has run as long as any replay can, so
	// everything it sends from now on is live.
	replayDone string
	quietFrom  time.Time
}

// targetKind is what a rename names.
type targetKind uint8

const (
	tabTarget targetKind = iota
	workspaceTarget
)

// renamedEvent is the event herdr sends for a rename of each target kind.
var renamedEvent = [...]string{tabTarget: "tab.renamed", workspaceTarget: "workspace.renamed"}

// target is a tab or a workspace, by id.
type target struct {
	kind targetKind
	id   string
}

// key names the target's kind in log records: "tab" or "workspace".
func (t target) key() string {
	if t.kind == workspaceTarget {
		return "workspace"
	}
	return "tab"
}

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

// noteOurRename records a rename herdr just applied (Run only), so its
// echo can tell whether someone renamed the target in between.
func (d *Daemon) noteOurRename(t target, want, seen string) {
	d.follow(t, &flight{want: want, seen: seen, gen: d.stream.gen.Load(), at: d.now()})
}

// follow adds a flight to those watched for t.
func (d *Daemon) follow(t target, f *flight) {
	if d.flights == nil {
		return
	}
	fs := d.flights.by[t]
	if len(fs) == maxFlights {
		fs = fs[1:]
	}
	for _, old := range fs {
		old.later = append(old.later, f.seen)
		if old.foreign == f.seen {
			old.foreign = ""
		}
	}
	d.log.Debug("watching for a rename inside ours", t.key(), t.id, "ours", f.want, "read", f.seen)
	d.flights.by[t] = append(fs, f)
}

// live reports whether the events of kind on subscription gen are live:
// protocol 22 never replays; on older ones the entry's replay has ended.
func (d *Daemon) live(gen uint64, kind targetKind) bool {
	return d.client.Protocol() >= 22 || d.flights != nil && d.flights.live[liveKey{gen, kind}]
}

// echoWatched reports whether a rename made now has its echo watched on a
// live stream (Run, with tab.renamed past any replay).
func (d *Daemon) echoWatched() bool {
	return d.flights != nil && d.stream.first.Load() != 0 && d.live(d.stream.gen.Load(), tabTarget)
}

// flightTTL is how long a flight is watched. On 0.7/0.8 it is always the
// longest replay more: an entry can lag that far behind even after it
// looked caught up (herdr stalled, or renames every tick), and until its
// true echo comes, a flight not decided must stay to be decided for the
// person.
func (d *Daemon) flightTTL() time.Duration {
	if d.client.Protocol() >= 22 {
		return inflightTTL
	}
	return inflightTTL + ReplayWindow
}

// expireInflight forgets renames watched for flightTTL, here and in the
// state file.
func (d *Daemon) expireInflight() {
	if d.flights == nil {
		return
	}
	now, ttl := d.now(), d.flightTTL()
	var gone []settled
	for t, fs := range d.flights.by {
		keep := fs[:0]
		for _, f := range fs {
			if now.Sub(f.at) <= ttl {
				keep = append(keep, f)
			} else {
				gone = append(gone, settled{t, f})
			}
		}
		d.flights.set(t, keep)
	}
	d.unsaveFlights(gone)
}

func (fl *flights) set(t target, fs []*flight) {
	if len(fs) == 0 {
		delete(fl.by, t)
		return
	}
	fl.by[t] = fs
}

// checkOverwrite follows one rename event through the flights of its
// target, and puts back what a person set inside one of ours once its
// fate is known: at its echo on a live stream, else when the replay ends.
func (d *Daemon) checkOverwrite(ctx context.Context, ev streamEvent) {
	if d.flights == nil {
		return
	}
	if ev.replayDone != "" {
		d.replayOver(ctx, ev)
		return
	}
	t, ok := renameTarget(ev.Event)
	if !ok {
		return
	}
	fs := d.flights.by[t]
	if len(fs) == 0 {
		return
	}
	live, replays := d.live(ev.gen, t.kind), d.client.Protocol() < 22
	var decide, retired []*flight
	keep := fs[:0]
	for _, f := range fs {
		if f.gen != ev.gen {
			if f.gen != 0 && (!replays || ev.gen < f.gen) {
				keep = append(keep, f)
				continue
			}
			// A new 0.7/0.8 subscription replays the whole ring, our
			// rename's history with it: follow it there from the start.
			// A flight inherited from another daemon follows the first.
			*f = flight{want: f.want, seen: f.seen, gen: ev.gen, at: f.at, putBack: f.putBack, later: f.later}
		}
		d.observe(t, f, ev.Label)
		if ev.Label == f.want && live {
			decide = append(decide, f)
			if !replays {
				retired = append(retired, f)
				continue
			}
		}
		keep = append(keep, f)
	}
	d.flights.set(t, keep)
	for _, f := range decide {
		d.putBack(ctx, t, f)
	}
	d.unsaveFlights(settledOf(t, retired))
}

// renameTarget is what a rename event names.
func renameTarget(ev herdr.Event) (target, bool) {
	switch ev.Kind {
	case "tab.renamed":
		return target{tabTarget, ev.TabID}, ev.TabID != ""
	case "workspace.renamed":
		return target{workspaceTarget, ev.WorkspaceID}, ev.WorkspaceID != ""
	}
	return target{}, false
}

// observe moves a flight along one reported label. Only the last label
// before the echo tells what our rename replaced, and herdr reports an
// entry's events in the order it applied them, replayed or live, so a
// label before our echo is the one the target had right then, however
// old: a person's rename back to a label the target had before is theirs.
// A label that is what our look saw, one of ours (a killed daemon's late
// rename, another of ours on its way) or herdr's own tab number is no
// one's to put back.
func (d *Daemon) observe(t target, f *flight, label string) {
	if label == f.want {
		f.echoed, f.backTo = true, f.foreign
		return
	}
	f.foreign = ""
	notPersons := append(append(d.oursOf(t), f.seen), f.later...)
	if namer.Foreign(label, notPersons, t.kind == workspaceTarget) {
		f.foreign = label
	}
}

// oursOf are the target's labels of ours: the ones the state remembers
// setting, and our renames of it still on their way.
func (d *Daemon) oursOf(t target) []string {
	var ours []string
	if t.kind == workspaceTarget {
		ours = d.state.Workspaces[t.id].OurLabels(d.now())
	} else {
		ours = d.state.Tabs[t.id].OurLabels(d.now())
	}
	for _, f := range d.flights.by[t] {
		ours = append(ours, f.want)
	}
	return ours
}

// replayOver marks an entry live and decides the flights whose echo came
// during its replay, by the last echo. Every flight stays watched for
// flightTTL: the replay's end is a guess, so a later echo decides again.
func (d *Daemon) replayOver(ctx context.Context, ev streamEvent) {
	kind := tabTarget
	if ev.replayDone == renamedEvent[workspaceTarget] {
		kind = workspaceTarget
	}
	d.flights.live[liveKey{ev.gen, kind}] = true
	// Tests of the built binary wait for this record by its replay_over field.
	d.trace(Trace{Kind: TraceReplayOver, Event: ev.replayDone},
		"the subscription's history is delivered; its events are live", "replay_over", ev.replayDone, "gen", ev.gen)
	var decide []settled
	for t, fs := range d.flights.by {
		for _, f := range fs {
			if t.kind == kind && f.gen == ev.gen && f.echoed {
				decide = append(decide, settled{t, f})
			}
		}
	}
	for _, s := range decide {
		d.putBack(ctx, s.t, s.f)
	}
}

// putBack gives the target back the label someone set inside our rename,
// unless it shows a label that is neither ours nor that one: then someone
// renamed it again since, and that stands.
func (d *Daemon) putBack(ctx context.Context, t target, f *flight) {
	if f.backTo == "" || f.backTo == f.putBack {
		return
	}
	rctx, cancel := context.WithTimeout(ctx, d.opt.Timeout)
	defer cancel()
	now, err := d.currentLabel(rctx, t)
	if err != nil {
		d.log.Warn("could not read a label to put back", t.key(), t.id, "err", err)
		return
	}
	ours := append(d.oursOf(t), f.want)
	if now == f.backTo || namer.FateOf(namer.Case{Label: now, Memory: namer.Memory{Labels: ours}, Workspace: t.kind == workspaceTarget}).Verdict != namer.Ours {
		return
	}
	if err := d.setLabel(rctx, t, f.backTo); err != nil {
		d.log.Warn("could not put back a name set during our rename", t.key(), t.id, "name", f.backTo, "err", err)
		return
	}
	f.putBack = f.backTo
	d.log.Info("a person renamed it as we did; put their name back", t.key(), t.id, "name", f.backTo, "ours", f.want)
}

// currentLabel reads a target's label now.
func (d *Daemon) currentLabel(ctx context.Context, t target) (string, error) {
	if t.kind == workspaceTarget {
		wss, err := d.client.Workspaces(ctx)
		if err != nil {
			return "", err
		}
		for _, w := range wss {
			if w.ID == t.id {
				return w.Label, nil
			}
		}
		return "", fmt.Errorf("workspace %s not found", t.id)
	}
	tab, err := d.client.Tab(ctx, t.id)
	return tab.Label, err
}

// setLabel gives a target back a label (a person's, a lock's): the
// rename request of every other rename, its label noted in the last
// snapshot so its echo is old news.
func (d *Daemon) setLabel(ctx context.Context, t target, label string) error {
	if _, err := d.request(ctx, t, label); err != nil {
		return err
	}
	d.note(t, label)
	return nil
}
