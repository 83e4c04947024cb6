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
	d.log.Debug("watching for a rename inside ours", t.key(), t.id, "ours", f.want, "read", f.seen)
	d.flights.add(t, f)
}

// live reports whether the events of kind on subscription gen are live:
// protocol 22 never replays; on older ones the entry's replay has ended.
func (d *Daemon) live(gen uint64, kind targetKind) bool {
	return d.client.Protocol() >= 22 || d.flights.isLive(gen, kind)
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
	d.unsaveFlights(d.flights.expire(d.now(), d.flightTTL()))
}

// checkOverwrite follows one rename event through the flights of its
// target, and puts back what a person set inside one of ours once its
// fate is known: at its echo on a live stream, else when the replay ends.
func (d *Daemon) checkOverwrite(ev streamEvent) {
	if d.flights == nil {
		return
	}
	if ev.replayDone != "" {
		d.replayOver(ev)
		return
	}
	t, ok := renameTarget(ev.Event)
	if !ok {
		return
	}
	fs := d.flights.of(t)
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
		d.putBack(t, f)
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
	return append(ours, d.flights.wants(t)...)
}

// replayOver marks an entry live and decides the flights whose echo came
// during its replay, by the last echo. Every flight stays watched for
// flightTTL: the replay's end is a guess, so a later echo decides again.
func (d *Daemon) replayOver(ev streamEvent) {
	kind := tabTarget
	if ev.replayDone == renamedEvent[workspaceTarget] {
		kind = workspaceTarget
	}
	d.flights.markLive(ev.gen, kind)
	// Tests of the built binary wait for this record by its replay_over field.
	d.trace(Trace{Kind: TraceReplayOver, Event: ev.replayDone},
		"the subscription's history is delivered; its events are live", "replay_over", ev.replayDone, "gen", ev.gen)
	for _, s := range d.flights.echoedOn(ev.gen, kind) {
		d.putBack(s.t, s.f)
	}
}

// putBack gives the target back the label someone set inside our rename,
// unless it shows a label that is neither ours nor that one: then someone
// renamed it again since, and that stands. In Run it goes out off the
// loop (putBacks); without a loop, at once.
func (d *Daemon) putBack(t target, f *flight) {
	if f.backTo == "" || f.backTo == f.putBack {
		return
	}
	ours, back := append(d.oursOf(t), f.want), f.backTo
	r := &rename{kind: giveBack, t: t, want: back, rep: &TabReport{},
		why: "a person renamed it as we did: their name goes back", over: func(label string) bool {
			return label != back && namer.FateOf(namer.Case{Label: label, Memory: namer.Memory{Labels: ours}, Workspace: t.kind == workspaceTarget}).Verdict == namer.Ours
		}}
	// Claimed now: an echo seen again meanwhile does not send it twice.
	f.putBack = back
	if d.backs != nil {
		d.backs.start(d, r, f, d.opt.Timeout)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), d.opt.Timeout)
	defer cancel()
	d.sendRenames(ctx, []*rename{r}, false, &stateWrites{}, &PassStats{})
	if r.out != renameDone {
		f.putBack = ""
	}
}

// putBackSettled notes and logs, on the loop, what a put-back sent off it
// did; one that was not done may be tried again at a later echo.
func (d *Daemon) putBackSettled(b putBackDone) {
	d.recordAfter([]*rename{b.r}, &stateWrites{}, &PassStats{})
	if b.r.out != renameDone && b.f.putBack == b.r.want {
		b.f.putBack = ""
	}
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
