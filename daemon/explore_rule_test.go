package daemon

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"time"

	"pgregory.net/rapid"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// The rule the search checks: no label a person set is ever replaced by
// ours unless they released it, and no locked label changes.
//
// A person's label is theirs to keep unless nothing can tell it from
// ours: herdr's own (a bare number), the label a tab already showed, one
// we asked for on that tab in the last state.PendingTTL (a late rename of
// ours may still land), on 0.7/0.8 one a rename of ours replaced in that
// time (a replay of herdr's history shows an old event of it the same
// way), the last one we set on it as far as the memory knows, or what we
// would name it now, or one the memory holds pending (recorded, and
// maybe never sent). Nor is one set inside a window of ours after the
// person first set that window's very label: a process that learns of
// them only from herdr's history cannot tell which was ours. A label is kept when the daemon
// has heard all it can; a locked one at every step, once lock returned.

// intent is what a person chose for a target.
type intent struct {
	label string
	// locked: lock returned holding label, which must then show at every
	// step; locking: lock wrote it and looks again.
	locked, locking bool
	// lostToALimit: on 0.9 a killed daemon's rename over it landed before
	// the next daemon subscribed, which 0.9 shows no one (docs/names.md).
	lostToALimit bool
	// ambiguous: the person first renamed the target to the very label of
	// the rename of ours whose window was open; a process that learns of
	// it only from herdr's history cannot tell which was ours.
	ambiguous bool
	// again: the label is the last one we set, which the person chose
	// again (herdr's event seq); a daemon learns it from that event.
	again bool
	seq   uint64
}

// window is a rename of ours whose window is open; ambiguous once a
// person renamed its target to its label inside it. applied: herdr
// applied it, its answer is on its way.
type window struct {
	t         state.Target
	want      string
	ambiguous bool
	applied   bool
	// sendNo counts the renames sent before it; ours: it sets a name of
	// ours (pending), not a label given back; overPutBack: a person's
	// label a put-back decided before it was sent landed inside it.
	sendNo            int
	ours, overPutBack bool
}

// intents are a server life's intents, and our renames sent in it.
type intents struct {
	life  int
	m     map[state.Target]*intent
	asked []asked
	// replaced are the labels our renames replaced.
	replaced []asked
}

type asked struct {
	t     state.Target
	label string
	at    time.Time
	// seen is what the look before it saw (its record's, or the label
	// the target showed when it was sent).
	seen string
}

func newIntents() *intents { return &intents{m: map[state.Target]*intent{}} }

// newLife starts a server life: tabs reuse ids, none has an intent yet.
func (w *intents) newLife(life int) {
	w.life, w.m, w.asked, w.replaced = life, map[state.Target]*intent{}, nil, nil
}

func (w *intents) forget(t state.Target) { delete(w.m, t) }

func (w *intents) lock(t state.Target, label string) {
	w.m[t] = &intent{label: label, locking: true}
}

func (w *intents) lockReturned(t state.Target) {
	if in := w.m[t]; in != nil && in.locking {
		in.locking, in.locked = false, true
	}
}

func (w *intents) unlockAll() {
	for t, in := range w.m {
		if in.locked || in.locking {
			delete(w.m, t)
		}
	}
}

// sent records a rename of ours about to reach herdr.
func (x *explorer) sent(t state.Target, label string) {
	// No two requests go out at the same instant: a rename is known by
	// its time, and a frozen clock would make two processes' one.
	x.now = x.now.Add(time.Millisecond)
	x.sends++
	if in := x.who.m[t]; in != nil && in.label == label && !in.locked && !in.locking {
		// Our rename sets the very label the person chose, and the
		// tab shows it as ours from then on: no one can tell the two.
		in.ambiguous = true
	}
	x.who.asked = append(x.who.asked, asked{t: t, label: label, at: x.now, seen: x.label(t)})
	x.who.replaced = append(x.who.replaced, asked{t: t, label: x.label(t), at: x.now})
}

// noteRecorded learns the renames a process recorded before sending
// them: one killed between the two leaves a label that may still land as
// if it had been sent. The time is the record's own, which no later
// record moves.
func (x *explorer) noteRecorded(mem *state.State) {
	targets := []state.Target{state.WorkspaceTarget(x.ws)}
	for _, id := range x.tabs {
		targets = append(targets, state.TabTarget(id))
	}
	for _, t := range targets {
		for _, f := range mem.Entry(t).Flights {
			a := asked{t: t, label: f.Want, at: f.Sent, seen: f.Seen}
			if !slices.ContainsFunc(x.who.asked, func(b asked) bool { return b == a }) {
				x.who.asked = append(x.who.asked, a)
			}
		}
	}
}

// replayLag is how long after a rename of ours its echo may still come
// on 0.7/0.8, where herdr marks nowhere where a replay ends: the longest
// replay, and the renamer's watch of a flight (docs/names.md, "Across the
// daemon's life").
const replayLag = 100*herdr.Tick + herdr.ReplayWindow

// askedWithin says whether we asked for label on t in the last d, sent
// or only recorded (noteRecorded).
func (x *explorer) askedWithin(t state.Target, label string, d time.Duration) bool {
	return slices.ContainsFunc(x.who.asked, func(a asked) bool { return a.t == t && a.label == label && x.now.Sub(a.at) < d })
}

// replayLike says whether, on 0.7/0.8, a person's rename of t to label,
// just applied, looks to a daemon exactly like a rename of ours to label
// replayed late (docs/names.md's limit): one of ours to label that a daemon
// still watches for its echo (asked within replayLag, adopted from the
// memory by a daemon started within replayLag, or left undecided in the
// memory for the next daemon to adopt), and since the last report of
// label herdr
// reported the label that rename's look saw, as it reports before a
// late echo of ours.
func (x *explorer) replayLike(t state.Target, label string) bool {
	if x.proto >= 22 {
		return false
	}
	mem, _ := state.Load(x.path, "")
	onDisk := mem.Entry(t).Flights
	for _, a := range x.who.asked {
		if a.t != t || a.label != label {
			continue
		}
		watched := x.now.Sub(a.at) < replayLag ||
			!a.at.After(x.started) && x.now.Sub(x.started) < replayLag ||
			slices.ContainsFunc(onDisk, func(f state.Flight) bool { return f.Want == label && f.Sent.Equal(a.at) && !f.Decided })
		if watched && x.shownSinceLast(t, label, a.seen) {
			return true
		}
	}
	return false
}

// shownSinceLast says whether herdr reported, for t, a label that shows
// seen (owner.Shown, restated) after its last report of label before the
// newest one.
func (x *explorer) shownSinceLast(t state.Target, label, seen string) bool {
	var labels []string
	for _, e := range x.srv.Ring() {
		if id, ok := renamedID(e.Event, t.Kind); ok && id == t.ID {
			labels = append(labels, e.Event.Label)
		}
	}
	if len(labels) == 0 {
		return false
	}
	labels = labels[:len(labels)-1]
	for i := len(labels) - 1; i >= 0; i-- {
		if labels[i] == label {
			return slices.ContainsFunc(labels[i+1:], func(l string) bool { return shows(t.Kind, l, seen) })
		}
	}
	return false
}

// renamedID is the target a rename event of kind k names.
func renamedID(ev herdr.Event, k state.Kind) (string, bool) {
	switch {
	case k == state.Tab && ev.Kind == herdr.TabRenamed:
		return ev.TabID, true
	case k == state.Workspace && ev.Kind == herdr.WorkspaceRenamed:
		return ev.WorkspaceID, true
	}
	return "", false
}

// shows says whether a reported label shows what a look saw: the same,
// or "" where herdr shows its own (a tab's number, a workspace's
// automatic label).
func shows(k state.Kind, reported, seen string) bool {
	return reported == seen || reported == "" && (k == state.Workspace || bareNumber(seen))
}

// label is what a target shows now.
func (x *explorer) label(t state.Target) string {
	if t.Kind == state.Pane {
		return x.paneLabel(t.ID)
	}
	snap := x.srv.Snapshot()
	if t.Kind == state.Workspace {
		for _, w := range snap.Workspaces {
			if w.ID == t.ID {
				return w.Label
			}
		}
		return ""
	}
	for _, tab := range snap.Tabs {
		if tab.ID == t.ID {
			return tab.Label
		}
	}
	return ""
}

// ours are the labels nothing tells from ours on t now: what we would
// name it (after its lead pane), herdr's automatic one for a workspace
// (from a folder of its first tab's panes).
func (x *explorer) ours(t state.Target) []string {
	snap := x.srv.Snapshot()
	if t.Kind == state.Tab {
		return x.tabNames(t, snap)
	}
	panes := map[string][]herdr.Pane{}
	for _, p := range snap.Panes {
		panes[p.TabID] = append(panes[p.TabID], p)
	}
	lead := func(tab string) string {
		l, _, _ := namer.Lead(panes[tab])
		return path.Base(l.Cwd)
	}
	var out []string
	if i := slices.IndexFunc(snap.Tabs, func(tb herdr.Tab) bool { return tb.WorkspaceID == t.ID }); i >= 0 {
		for _, p := range panes[snap.Tabs[i].ID] {
			out = append(out, path.Base(p.Cwd)) // herdr's automatic label
		}
	}
	for _, w := range snap.Workspaces {
		if w.ID == t.ID {
			out = append(out, "ws-"+lead(w.ActiveTabID))
		}
	}
	return out
}

// personRename is a person renaming a target in herdr's UI.
func (x *explorer) personRename(t state.Target, label string) {
	if t.Kind == state.Pane {
		x.pw.personRename(t.ID, label)
		return
	}
	before := x.label(t)
	if t.Kind == state.Workspace {
		x.srv.HumanRenameWorkspace(t.ID, label)
	} else {
		x.srv.HumanRename(t.ID, label)
	}
	if x.label(t) != label || label == before {
		return
	}
	for i := range x.windows {
		if w := &x.windows[i]; w.t == t && w.want == label {
			w.ambiguous = true
		}
	}
	x.note("a person renames %s %s to %q", t.Kind, t.ID, label)
	mem, _ := state.Load(x.path, "")
	e := mem.Entry(t)
	if why := x.cannotTell(t, label, e); why != "" {
		x.note("  whose it is no one can tell: %s", why)
		x.who.forget(t)
		return
	}
	// A locked tab a person renames is theirs like any other: its label
	// is kept once all is heard, not at every step (a rename of ours on
	// its way may land on it, and is put back).
	x.who.m[t] = &intent{label: label, ambiguous: x.ambiguousWindow(t) || x.unansweredWant(e, label),
		again: label == e.Label, seq: x.lastSeq()}
}

// cannotTell says why a person's rename of t to label, just applied,
// with the memory entry e on disk, is one that docs/names.md says no one can
// tell from ours, "" when it is the person's to keep: one place for the
// rule's limits, each as docs/names.md names it.
func (x *explorer) cannotTell(t state.Target, label string, e state.Entry) string {
	switch {
	case x.force && t.Kind == state.Tab:
		return "--force renames people's names"
	case bareNumber(label):
		return "herdr's own label"
	case slices.Contains(x.ours(t), label):
		return "what we would name it now"
	case x.askedWithin(t, label, state.PendingTTL):
		// Sent or only recorded (noteRecorded): it may still land.
		return "a label we asked for in the last 30 s"
	case x.replayLike(t, label):
		return "on 0.7/0.8, within a replay's lag, as a replayed echo of ours"
	case t.Kind == state.Tab && e.Released && e.ReleasedFrom != nil && label == *e.ReleasedFrom:
		return "back to a released tab's label before the daemon saw the person name it"
	case label == e.Label && x.unheard09(t):
		return "on 0.9, our last label chosen again where no daemon heard it"
	}
	return ""
}

// unheard09 says whether, on 0.9, no daemon heard the rename of t before
// the newest (the person's, just applied): no daemon runs, or it
// subscribed after it. 0.9 replays nothing.
func (x *explorer) unheard09(t state.Target) bool {
	if x.proto < 22 {
		return false
	}
	if x.d == nil {
		return true
	}
	var seqs []uint64
	for _, e := range x.srv.Ring() {
		if id, ok := renamedID(e.Event, t.Kind); ok && id == t.ID {
			seqs = append(seqs, e.Seq)
		}
	}
	return len(seqs) < 2 || seqs[len(seqs)-2] <= x.d.sub.replayTo
}

// autoLabelMoved forgets what a person chose for a workspace when herdr's
// automatic label for it, which follows the directory, is that label
// now: no client can tell the two apart.
func (x *explorer) autoLabelMoved() {
	for t, in := range x.who.m {
		if t.Kind == state.Workspace && !in.locked && !in.locking && slices.Contains(x.ours(t), in.label) {
			x.who.forget(t)
		}
	}
}

// unansweredWant says whether a rename of ours to label was recorded and
// never answered (its process killed) on 0.7/0.8: whoever replays herdr's
// history cannot tell a person's rename to that label from that rename
// landing late, after what a person set inside its window.
func (x *explorer) unansweredWant(e state.Entry, label string) bool {
	return x.proto < 22 && slices.ContainsFunc(e.Flights, func(f state.Flight) bool { return f.Want == label && !f.Answered })
}

// ambiguousWindow says whether an open window on t was made ambiguous.
func (x *explorer) ambiguousWindow(t state.Target) bool {
	return slices.ContainsFunc(x.windows, func(w window) bool { return w.t == t && w.ambiguous })
}

// inside is what happens inside the window of who's rename of t: before
// herdr applies it.
func (x *explorer) inside(who *proc, t state.Target) {
	if x.calm {
		return
	}
	x.depth++
	defer func() { x.depth-- }()
	x.actInside(who, t, rapid.IntRange(0, 2).Draw(x.t, "inside the window"), x.insideActs(who, t))
}

// after is what happens after herdr applied who's rename of t, before
// its answer comes back.
func (x *explorer) after(who *proc, t state.Target) {
	if x.calm {
		return
	}
	x.depth++
	defer func() { x.depth-- }()
	x.actInside(who, t, rapid.IntRange(0, 1).Draw(x.t, "after the rename"), x.afterActs(who, t))
}

// actInside does n of acts inside a window, checking after each; a kill
// ends them.
func (x *explorer) actInside(who *proc, t state.Target, n int, acts []act) {
	for range n {
		a := acts[rapid.IntRange(0, len(acts)-1).Draw(x.t, "what happens")]
		if a.do(who, t) {
			return
		}
		x.check(false)
	}
}

// unheard marks the person's label on t that a killed daemon's rename is
// about to replace, where no one will hear it: on 0.9 (no replay) a
// rename that lands before the next daemon subscribes is shown to no one
// (docs/names.md says so).
func (x *explorer) unheard(t state.Target) {
	if in := x.who.m[t]; in != nil && x.proto >= 22 {
		in.lostToALimit = true
	}
}

// killInside kills a daemon with a rename of it on its way, in a world
// where processes die.
func (x *explorer) killInside(who *proc) {
	if x.everyday {
		return
	}
	if who.name != "daemon" || who.dead {
		return
	}
	x.kill(who)
}

// check checks the rule: locked labels at every step; a person's label
// when the world is at rest (settled).
func (x *explorer) check(settled bool) {
	if len(x.bad) > 0 && x.lock == nil && x.depth == 0 {
		x.fail("%s", x.bad[0])
	}
	if settled {
		// A damaged memory holds the renames of ours a person's name
		// waits to be put back from: nothing is decided until a person
		// fixes or removes it.
		st, _ := state.Load(x.path, "")
		settled = st.Damaged() == nil
	}
	mem, _ := state.Load(x.path, "")
	for t, in := range x.who.m {
		now := x.label(t)
		if e := mem.Entry(t); e.Locked && now == e.LockedLabel && !in.locked {
			// A person renamed a tab they had locked while a rename of
			// ours was on its way: the lock's label, put back over ours,
			// is the one rule nothing overrides.
			continue
		}
		// A label that has become what herdr calls the workspace, or
		// what we would name the target, no one can tell from ours.
		if x.kept(t, in.label, now) || in.lostToALimit || in.ambiguous || slices.Contains(x.ours(t), in.label) {
			continue
		}
		if in.locked && !x.lateFor(t) && !x.onItsWayOverLock(t) {
			x.bad = append(x.bad, fmt.Sprintf("%s %s was locked as %q and shows %q", t.Kind, t.ID, in.label, now))
		}
		if settled {
			x.bad = append(x.bad, fmt.Sprintf("%s %s shows %q, not the person's %q", t.Kind, t.ID, now, in.label))
		}
	}
	if x.pw != nil {
		x.pw.check(settled)
	}
	if len(x.bad) > 0 && x.lock == nil && x.depth == 0 {
		x.fail("%s", x.bad[0])
	}
}

// onItsWayOverLock says whether a rename of t was on its way when lock
// returned (docs/names.md: lock waits for such renames only so long), and the
// step that sent it goes on: its label may show until herdr answers it
// and the locked label goes back right after.
func (x *explorer) onItsWayOverLock(t state.Target) bool {
	if len(x.windows) == 0 {
		clear(x.overLock)
	}
	if x.deadOverLock[t] {
		// Its process died before it could put the locked label back:
		// the next daemon does, as soon as it looks.
		if in := x.who.m[t]; in != nil && x.label(t) == in.label {
			delete(x.deadOverLock, t)
		}
		return true
	}
	return x.overLock[t]
}

// lateFor says whether a killed daemon's rename of t may still land.
func (x *explorer) lateFor(t state.Target) bool {
	return slices.ContainsFunc(x.late, func(r lateRename) bool { return r.t == t && r.life == x.life })
}

// bareNumber is what herdr labels an unnamed tab with, restated for the
// search: its 1-based position (or "", what a rename to "" leaves).
func bareNumber(label string) bool { return herdrLike.MatchString(label) }

var herdrLike = regexp.MustCompile(`^([1-9][0-9]*)?$`)
