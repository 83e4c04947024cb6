package daemon

import (
	"context"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/owner"

	"pgregory.net/rapid"

	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// actions are the steps a schedule is made of; "" is the check after
// every one.
func (x *explorer) actions() map[string]func(*rapid.T) {
	tab := x.tab
	steps := map[string]func(*rapid.T){
		"pass": func(*rapid.T) { x.pass() },
		"cd":   func(t *rapid.T) { x.cd(tab(t), rapid.SampledFrom(dirs).Draw(t, "dir")) },
		// The daily case: a shell changes folder, its hook nudges the
		// daemon, a pass renames the tab.
		"cd and a pass": func(t *rapid.T) {
			x.cd(tab(t), rapid.SampledFrom(dirs).Draw(t, "dir"))
			x.pass()
		},
		"person": func(t *rapid.T) { x.personRename(x.target(t), rapid.SampledFrom(labels).Draw(t, "label")) },
		"person picks a name we gave": func(t *rapid.T) {
			tg := x.target(t)
			if gave := x.gave(tg); len(gave) > 0 {
				x.personRename(tg, rapid.SampledFrom(gave).Draw(t, "label"))
			}
		},
		"deliver":           func(t *rapid.T) { x.ifDaemon(func(p *proc) { x.deliver(p, rapid.IntRange(1, 3).Draw(t, "events")) }) },
		"replay looks over": func(*rapid.T) { x.ifDaemon(x.endReplay) },
		"put-back": func(*rapid.T) {
			x.ifDaemon(func(p *proc) {
				if len(p.spawned) > 0 || p.running > 0 {
					x.runPutBack(p)
				}
			})
		},
		"lock":         func(t *rapid.T) { x.lockTab(tab(t)) },
		"lock goes on": func(*rapid.T) { x.stepLock() },
		"release":      func(t *rapid.T) { x.release(tab(t)) },
		"restore":      func(*rapid.T) { x.restore() },
		"kill":         func(*rapid.T) { x.ifDaemon(x.kill) },
		"stop":         func(*rapid.T) { x.ifDaemon(x.stop) },
		"start": func(*rapid.T) {
			if x.d == nil {
				x.startDaemon()
			}
		},
		"herdr restarts": func(t *rapid.T) { x.restartHerdr(x.draw("with its session")) },
		"time passes": func(t *rapid.T) {
			x.wait(rapid.SampledFrom([]time.Duration{time.Second, 10 * time.Second, 20 * time.Second, 31 * time.Second, 70 * time.Second}).Draw(t, "wait"))
		},
		"the state file is damaged":       func(*rapid.T) { x.damage() },
		"a person removes the state file": func(*rapid.T) { x.repair() },
		"a killed daemon's rename lands":  func(*rapid.T) { x.land() },
		"all is heard": func(*rapid.T) {
			if x.d != nil {
				x.drain(x.d)
				// A daemon killed while it drained has not heard all.
				x.check(x.d != nil && x.lock == nil && len(x.late) == 0)
			}
		},
		"": func(*rapid.T) { x.check(false) },
	}
	x.worldSteps(steps)
	if x.pw != nil {
		maps.Copy(steps, x.pw.actions())
	}
	if x.everyday {
		for _, k := range []string{"kill", "stop", "herdr restarts", "the state file is damaged",
			"a person removes the state file", "a killed daemon's rename lands"} {
			delete(steps, k)
		}
	}
	return steps
}

// cd moves tab i's pane to dir, once its shell is at its prompt.
func (x *explorer) cd(i int, dir string) {
	if x.progs[x.panes[i]] != "" {
		return
	}
	x.srv.SetCwd(x.panes[i], exploreHome+"/"+dir)
	x.note("pane %s cd %s", x.panes[i], dir)
	x.autoLabelMoved()
}

// gave are the labels we asked for on t in this server life, oldest
// first: a person who names a tab after its folder picks one, at any
// time after we asked.
func (x *explorer) gave(t state.Target) []string {
	var out []string
	for _, a := range x.who.asked {
		if a.t == t && !slices.Contains(out, a.label) {
			out = append(out, a.label)
		}
	}
	return out
}

func (x *explorer) ifDaemon(f func(*proc)) {
	if x.d != nil {
		f(x.d)
	}
}

// target is a tab or the workspace.
func (x *explorer) target(t *rapid.T) state.Target {
	if i := rapid.IntRange(0, len(x.tabs)).Draw(t, "target"); i < len(x.tabs) {
		return state.TabTarget(x.tabs[i])
	}
	return state.WorkspaceTarget(x.ws)
}

// wait lets time pass. What takes herdr and the daemon milliseconds is
// done by the time seconds passed: events reach the daemon, a replay
// ends, put-backs and a lock's wait end, a killed daemon's rename lands
// or never will.
func (x *explorer) wait(d time.Duration) {
	if d >= 10*time.Second {
		was := x.calm
		x.calm = true
		x.finishLock()
		x.ifDaemon(x.drain)
		x.calm = was
		x.late = nil
	}
	x.now = x.now.Add(d)
	x.note("%v pass", d)
}

// pass runs one of the daemon's passes.
func (x *explorer) pass() {
	x.ifDaemon(func(p *proc) {
		x.note("pass")
		_, _, _ = p.d.pass(context.Background(), passInput{})
	})
}

// endReplay ends the daemon's replay: truly, once it heard all of it, or
// as it looks when herdr stalls, before.
func (x *explorer) endReplay(p *proc) {
	if !p.sub.live {
		p.sub.live = true
		x.replayOver(p)
	}
}

// stop stops the daemon as SIGTERM does: it hears what it can of its
// renames' echoes first.
func (x *explorer) stop(p *proc) {
	x.drain(p)
	p.dead = true
	x.d = nil
	x.note("daemon stopped")
}

// lockTab runs lock on a tab: it locks the label the tab shows, then
// looks again once the renames of ours on their way are answered. The
// look runs on a goroutine of its own that hands control back at every
// wait ("lock goes on").
func (x *explorer) lockTab(i int) {
	if x.lock != nil {
		return
	}
	t, p := state.TabTarget(x.tabs[i]), x.newProc("lock")
	label, at := x.label(t), x.now
	if err := p.mem.Edit(func(tx *state.Tx) { tx.Lock(t, label) }); err != nil {
		x.note("lock %s refused: %v", t.ID, err)
		return
	}
	x.note("lock %s as %q", t.ID, label)
	x.who.lock(t, label)
	p.tab, p.label = t.ID, label
	p.wake, p.yielded = make(chan struct{}), make(chan struct{})
	x.lock = p
	go func() {
		defer func() {
			p.panicked = recover()
			p.done = true
			p.yielded <- struct{}{}
		}()
		<-p.wake
		_ = p.rn.PutBackLock(context.Background(), state.TabTarget(t.ID), label, at)
	}()
	x.stepLock()
}

// stepLock lets the lock command go on until it waits again or returns.
func (x *explorer) stepLock() {
	p := x.lock
	if p == nil {
		return
	}
	p.wake <- struct{}{}
	<-p.yielded
	if p.panicked != nil {
		x.lock = nil
		panic(p.panicked)
	}
	if p.done {
		x.lock = nil
		t := state.TabTarget(p.tab)
		x.who.lockReturned(t)
		if slices.ContainsFunc(x.windows, func(w window) bool { return w.t == t }) {
			x.overLock[t] = true
		}
		x.note("lock %s returned", p.tab)
	}
}

// finishLock lets a waiting lock command run to its end.
func (x *explorer) finishLock() {
	for x.lock != nil {
		x.stepLock()
	}
}

// sleep is a lock command's wait: it hands control back to the search,
// whose time it moves.
func (x *explorer) sleep(p *proc) func(context.Context, time.Duration) bool {
	return func(_ context.Context, d time.Duration) bool {
		x.now = x.now.Add(d)
		p.yielded <- struct{}{}
		<-p.wake
		return true
	}
}

// release hands a tab back to automatic naming.
func (x *explorer) release(i int) {
	t := state.TabTarget(x.tabs[i])
	st, _ := state.Load(x.path, "")
	label := x.label(t)
	if err := st.Edit(func(tx *state.Tx) { tx.Release(t, label) }); err != nil {
		x.note("release %s refused: %v", t.ID, err)
		return
	}
	x.who.forget(t)
	x.note("release %s", t.ID)
}

// restore stops the daemon and gives every tab whose label is ours its
// number back, following each to its echo before it ends.
func (x *explorer) restore() {
	if x.lock != nil {
		return
	}
	x.ifDaemon(x.stop)
	p := x.newProc("restore")
	if p.mem.Damaged() != nil {
		x.note("restore refused: the state file is damaged")
		return
	}
	// --force makes a person's label look ours: never for an undo.
	naming := x.namingOf(world{icons: x.icons, prefix: x.prefix})
	naming.Apply = false
	rd := x.newDaemon(p, naming)
	reps, err := rd.Explain(context.Background(), "")
	if err != nil {
		return
	}
	x.subscribe(p)
	snap := x.srv.Snapshot()
	pos := namer.Positions(snap.Tabs)
	var forget []state.Target
	for _, r := range reps {
		if r.PaneID != "" {
			continue
		}
		t := state.TabTarget(r.TabID)
		// restore's own rule: a label of ours goes back to the tab's
		// number, a person's text under our position prefix to the text.
		back, _ := owner.Restore(r.Label, r.Judged, p.mem.Tab(r.TabID), x.now, pos[r.TabID])
		if back == "" {
			continue
		}
		if r.Judged == owner.Ours {
			// A label restore judges ours (remembered, or a render of
			// the template) is one nothing tells from ours, a person's
			// included.
			x.who.forget(t)
		}
		x.note("restore gives %s %q", t.ID, back)
		_ = p.rn.GiveBack(context.Background(), t, r.Label, back)
		forget = append(forget, t)
	}
	if x.pw != nil {
		forget = append(forget, x.pw.restore(p, reps)...)
	}
	x.drain(p)
	_ = p.mem.Edit(func(tx *state.Tx) {
		for _, t := range forget {
			tx.Undo(t, x.now)
		}
	})
}

// restartHerdr stops herdr and starts it again, with its session (the
// same tabs, new terminals, a new event ring) or without (ids from 1). It
// happens when a daemon heard all: a restart inside a rename's window
// loses its echo with the ring, which nothing can decide.
func (x *explorer) restartHerdr(withSession bool) {
	was := x.calm
	x.calm = true
	x.finishLock()
	if x.d == nil {
		x.startDaemon() // what a killed one left on its way is heard first
	}
	x.drain(x.d)
	x.calm = was
	x.late = nil
	if withSession {
		if err := x.srv.Restart(); err != nil {
			x.t.Fatal(err)
		}
	} else {
		x.startHerdr()
	}
	x.note("herdr restarted (session kept: %v)", withSession)
	x.ifDaemon(x.subscribe)
}

// damage damages the state file.
func (x *explorer) damage() {
	if x.lock != nil {
		return
	}
	if err := os.WriteFile(x.path, []byte(`{"version":1,"tabs":{`), 0o600); err != nil {
		x.t.Fatal(err)
	}
	x.note("the state file is damaged")
}

// repair is a person removing a damaged state file: what it held is
// forgotten, their locks with it, and the renames of ours it followed
// that a person's name still waits to be put back from.
func (x *explorer) repair() {
	st, _ := state.Load(x.path, "")
	if st.Damaged() == nil {
		return
	}
	if err := os.Remove(x.path); err != nil {
		x.t.Fatal(err)
	}
	x.who.unlockAll()
	for i := range x.late {
		x.late[i].orphan = true
	}
	for t, in := range x.who.m {
		if x.label(t) != in.label {
			x.who.forget(t)
		}
	}
	x.note("a person removed the damaged state file")
}

// land applies a killed daemon's rename that herdr had not read yet.
func (x *explorer) land() {
	if len(x.late) == 0 {
		return
	}
	r := x.late[0]
	x.late = x.late[1:]
	// herdr reads a request it accepted within its read poll: one whose
	// sender died seconds ago was never read.
	if r.life != x.life || x.now.Sub(r.at) > time.Second {
		return
	}
	x.note("a killed daemon's rename of %s to %q lands", r.t.ID, r.params["label"])
	if x.d == nil {
		x.unheard(r.t)
	}
	if r.orphan {
		x.who.forget(r.t)
	}
	_, _ = x.srv.Do(r.method, r.params)
}
