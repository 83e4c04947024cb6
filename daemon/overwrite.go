package daemon

import (
	"context"
	"fmt"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
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
	gen  uint64    // the subscription whose events tell its fate
	at   time.Time // when herdr answered it
	// foreign is the label of the last rename reported since ours was
	// registered when it was someone else's, else "".
	foreign string
	// echoed: the last label reported is ours; backTo is foreign as it
	// stood right before that echo.
	echoed bool
	backTo string
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
	if d.flights == nil {
		return
	}
	fs := d.flights.by[t]
	if len(fs) == maxFlights {
		fs = fs[1:]
	}
	d.log.Debug("watching for a rename inside ours", t.key(), t.id, "ours", want, "read", seen)
	d.flights.by[t] = append(fs, &flight{want: want, seen: seen, gen: d.stream.gen.Load(), at: d.now()})
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

// expireInflight forgets renames whose fate never came: on a live stream
// after inflightTTL, on a replaying one after ReplayWindow more.
func (d *Daemon) expireInflight() {
	if d.flights == nil {
		return
	}
	now := d.now()
	for t, fs := range d.flights.by {
		keep := fs[:0]
		for _, f := range fs {
			ttl := inflightTTL
			if !d.live(f.gen, t.kind) {
				ttl += ReplayWindow
			}
			if now.Sub(f.at) <= ttl {
				keep = append(keep, f)
			}
		}
		d.flights.set(t, keep)
	}
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
	live := d.live(ev.gen, t.kind)
	var done []*flight
	keep := fs[:0]
	for _, f := range fs {
		if f.gen != ev.gen {
			if d.client.Protocol() >= 22 || ev.gen < f.gen {
				keep = append(keep, f)
				continue
			}
			// A new 0.7/0.8 subscription replays the whole ring, our
			// rename's history with it: follow it there from the start.
			*f = flight{want: f.want, seen: f.seen, gen: ev.gen, at: f.at}
		}
		d.observe(t, f, ev.Label, live)
		if f.echoed && live {
			done = append(done, f)
			continue
		}
		keep = append(keep, f)
	}
	d.flights.set(t, keep)
	for _, f := range done {
		d.putBack(ctx, t, f)
	}
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
// before the echo tells what our rename replaced. A label that is what our
// look saw, or one of ours (a killed daemon's late rename, another of ours
// on its way), is no one else's; while the entry may still be replaying,
// neither is a label the target is known to have had.
func (d *Daemon) observe(t target, f *flight, label string, live bool) {
	if label == f.want {
		f.echoed, f.backTo = true, f.foreign
		return
	}
	f.echoed = false
	if label == f.seen || d.labelIsOurs(t, label) || !live && d.seen.labels[t.id].Has(label) {
		f.foreign = ""
		return
	}
	f.foreign = label
}

// labelIsOurs says whether label is one the state remembers setting on
// the target, or one of our renames of it still on its way.
func (d *Daemon) labelIsOurs(t target, label string) bool {
	for _, f := range d.flights.by[t] {
		if f.want == label {
			return true
		}
	}
	if t.kind == workspaceTarget {
		m := d.state.Workspaces[t.id]
		return label == m.Label || m.Pending.Has(label)
	}
	return d.isOurs(t.id, label)
}

// replayOver marks an entry live and settles the flights whose echo came
// during its replay. A flight answered before the quiet began whose echo
// never came lost it (evicted from the ring): it is forgotten. An entry
// that was never quiet forgets none: their echoes are still to come, live.
func (d *Daemon) replayOver(ctx context.Context, ev streamEvent) {
	kind := tabTarget
	if ev.replayDone == renamedEvent[workspaceTarget] {
		kind = workspaceTarget
	}
	d.flights.live[liveKey{ev.gen, kind}] = true
	// Tests of the built binary wait for this record by its replay_over field.
	d.trace(Trace{Kind: TraceReplayOver, Event: ev.replayDone},
		"the subscription's history is delivered; its events are live", "replay_over", ev.replayDone, "gen", ev.gen)
	var done []target
	var settled []*flight
	for t, fs := range d.flights.by {
		if t.kind != kind {
			continue
		}
		keep := fs[:0]
		for _, f := range fs {
			switch {
			case f.gen != ev.gen:
				keep = append(keep, f)
			case f.echoed:
				done, settled = append(done, t), append(settled, f)
			case f.at.After(ev.quietFrom):
				keep = append(keep, f)
			}
		}
		d.flights.set(t, keep)
	}
	for i, f := range settled {
		d.putBack(ctx, done[i], f)
	}
}

// putBack gives the target back the label someone set inside our rename,
// unless it shows a label that is neither ours nor that one: then someone
// renamed it again since, and that stands.
func (d *Daemon) putBack(ctx context.Context, t target, f *flight) {
	if f.backTo == "" {
		return
	}
	rctx, cancel := context.WithTimeout(ctx, d.opt.Timeout)
	defer cancel()
	now, err := d.currentLabel(rctx, t)
	if err != nil {
		d.log.Warn("could not read a label to put back", t.key(), t.id, "err", err)
		return
	}
	if now == f.backTo || now != f.want && !d.labelIsOurs(t, now) {
		return
	}
	if err := d.setLabel(rctx, t, f.backTo); err != nil {
		d.log.Warn("could not put back a name set during our rename", t.key(), t.id, "name", f.backTo, "err", err)
		return
	}
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
	var got struct {
		Tab *herdr.Tab `json:"tab"`
	}
	if err := d.client.Call(ctx, "tab.get", map[string]string{"tab_id": t.id}, &got); err != nil {
		return "", err
	}
	if got.Tab == nil {
		return "", fmt.Errorf("tab.get %s: reply has no tab", t.id)
	}
	return got.Tab.Label, nil
}

// setLabel renames a target and notes the label in the last snapshot, so
// its echo is old news.
func (d *Daemon) setLabel(ctx context.Context, t target, label string) error {
	if t.kind == workspaceTarget {
		if _, err := d.client.RenameWorkspace(ctx, t.id, label); err != nil {
			return err
		}
		d.noteWorkspaceLabel(t.id, label)
		return nil
	}
	if _, err := d.client.RenameTab(ctx, t.id, label); err != nil {
		return err
	}
	d.noteLabel(t.id, label)
	return nil
}

// isOurs says whether label is one the state remembers setting on tab.
func (d *Daemon) isOurs(tabID, label string) bool {
	m := d.state.Tabs[tabID]
	if label == m.Label {
		return true
	}
	return m.Pending.Has(label)
}
