package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/owner"
	"github.com/herdrtabrenamer/herdrtabrenamer/pass"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// The search of interleavings with pane names on (--pane-format
// {agent|proc}: a pane with neither is named nothing). Beside the tab
// steps, each tab has a second pane a person works with: programs start
// and end in it, agents come and leave, a person names or clears it,
// locks or releases it, and it moves to another workspace and back,
// where herdr gives it a new id and keeps its terminal. The rule is the
// tabs' (explore_rule_test.go), for panes: no label a person set on a
// pane is ever replaced by ours unless they released the pane after
// setting it, and no locked pane's label changes. And one more: a pane
// showing a label our rename set, which the memory holds as ours, is
// ours to the daemon wherever the pane moved.
//
// A person's pane label is theirs to keep unless nothing can tell it
// from ours: "" (herdr's), one the memory holds as ours on that pane
// (the last we set, or one that may still land), one we asked for in
// the last state.PendingTTL, the label a released pane showed when it
// was released, or one typed inside a rename of ours on that pane,
// which lands over it (herdr tells of no pane rename, docs/panes.md says so).

// TestPaneInterleavings runs the search with pane names on, kills,
// restarts and damaged memory included.
func TestPaneInterleavings(t *testing.T) {
	searchWith(t, 1000, func(x *explorer) { x.pw = &paneWorld{x: x} })
}

// paneNamer names the panes of a search with pane names on.
var paneNamer = sync.OnceValue(func() *namer.Namer {
	pn, err := namer.New(namer.Config{Format: "{agent|proc}", MaxLen: 24, Home: exploreHome, Panes: true})
	if err != nil {
		panic(err)
	}
	return pn
})

// naming is how the schedule's daemons name.
func (x *explorer) naming() pass.Config { return x.namingOf(x.world) }

// namingOf is how a daemon of world w names, panes too when the search
// has them.
func (x *explorer) namingOf(w world) pass.Config {
	c := namingConfig(w)
	if x.pw != nil {
		c.PaneNamer = paneNamer()
	}
	return c
}

// paneLabels are what a person types on a pane: vim and claude are also
// names of ours, alpha the folder.
var paneLabels = []string{"mine", "notes", "vim", "claude", "alpha"}

// paneWorld is the panes' part of a schedule's world, in one server
// life. Panes are known by a key that follows them: the terminal they
// were first seen in, carried over when herdr gives a pane a new id (a
// move) or a new terminal (a restart with its session).
type paneWorld struct {
	x     *explorer
	life  int
	extra []string // each tab's second pane, by its id now
	// other is the tab of another workspace panes move to; "" until one
	// does. Moves make and close no tab.
	other string
	// keyOfTerm and keyOfID find a pane's key.
	keyOfTerm, keyOfID map[string]string
	// shown is what each pane showed at the last look, ours whether a
	// rename of ours set it, person what a person chose for it.
	shown  map[string]string
	ours   map[string]bool
	person map[string]*paneIntent
}

// paneIntent is what a person chose for a pane.
type paneIntent struct {
	label  string
	locked bool
}

// ensure makes the panes' world of the server life now: a second pane in
// each tab, in its folder.
func (pw *paneWorld) ensure() {
	x := pw.x
	if pw.life != x.life {
		pw.life, pw.other, pw.extra = x.life, "", nil
		pw.keyOfTerm, pw.keyOfID = map[string]string{}, map[string]string{}
		pw.shown, pw.ours, pw.person = map[string]string{}, map[string]bool{}, map[string]*paneIntent{}
		for _, lead := range x.panes {
			p, _ := x.srv.Pane(lead)
			pw.extra = append(pw.extra, x.srv.Split(lead, p.Cwd))
		}
		x.note("each tab gets a second pane: %v", pw.extra)
	}
	pw.follow()
}

// tabClosed drops the second pane of the i-th tab, closed: the search
// acts on it no more (moved away, it lives on as any other pane). The
// session's first tab is never closed, so a second pane is always left.
func (pw *paneWorld) tabClosed(i int) {
	if pw.life == pw.x.life && i < len(pw.extra) {
		pw.extra = slices.Delete(pw.extra, i, i+1)
	}
}

// follow finds each pane's key: by its terminal, else (a restart with
// the session) by its id.
func (pw *paneWorld) follow() {
	for _, p := range pw.x.srv.Snapshot().Panes {
		k, ok := pw.keyOfTerm[p.TerminalID]
		if !ok {
			if k, ok = pw.keyOfID[p.ID]; !ok {
				k = p.TerminalID
				pw.shown[k] = p.Label
			}
			pw.keyOfTerm[p.TerminalID] = k
		}
		pw.keyOfID[p.ID] = k
	}
}

// locks says whether the memory still holds a lock of pane p: under its
// id, or under the id it had, found by its terminal. A person removing
// the state file forgets it, and so does a herdr restart after the pane
// moved and before a pass saw the move (herdr keeps neither its terminal
// nor its process then): what herdr keeps no longer ties it to the pane.
func (pw *paneWorld) locks(mem *state.State, p herdr.Pane) bool {
	if mem.Damaged() != nil {
		return true // nothing is renamed until a person fixes it
	}
	for _, id := range mem.IDs(state.Pane) {
		e := mem.Entry(state.PaneTarget(id))
		if e.Locked && (id == p.ID || e.Terminal != "" && e.Terminal == p.TerminalID) {
			return true
		}
	}
	return false
}

// panes are every pane of the session now, by key.
func (pw *paneWorld) panes() map[string]herdr.Pane {
	out := map[string]herdr.Pane{}
	for _, p := range pw.x.srv.Snapshot().Panes {
		if k, ok := pw.keyOfTerm[p.TerminalID]; ok {
			out[k] = p
		}
	}
	return out
}

// paneLabel is what pane id shows now.
func (x *explorer) paneLabel(id string) string {
	p, _ := x.srv.Pane(id)
	return p.Label
}

func (pw *paneWorld) actions() map[string]func(*rapid.T) {
	x := pw.x
	anyPane := func(t *rapid.T) string {
		pw.ensure()
		return rapid.SampledFrom(append(slices.Clone(x.panes), pw.extra...)).Draw(t, "pane")
	}
	extra := func(t *rapid.T) int {
		pw.ensure()
		return rapid.IntRange(0, len(pw.extra)-1).Draw(t, "second pane")
	}
	return map[string]func(*rapid.T){
		"pane: a person names it": func(t *rapid.T) {
			x.personRename(state.PaneTarget(anyPane(t)), rapid.SampledFrom(paneLabels).Draw(t, "label"))
		},
		// The daily case: a person names a pane after what runs in it,
		// what a template would render.
		"pane: a person names it after what runs in it": func(t *rapid.T) {
			id := pw.extra[extra(t)]
			p, _ := x.srv.Pane(id)
			label := path.Base(p.Cwd)
			if info, err := x.srv.Do("pane.process_info", map[string]any{"pane_id": id}); err == nil && strings.Contains(string(info), `"vim"`) {
				label = "vim"
			} else if p.Agent != "" {
				label = p.Agent
			}
			x.personRename(state.PaneTarget(id), label)
		},
		"pane: a person clears it": func(t *rapid.T) { x.personRename(state.PaneTarget(anyPane(t)), "") },
		"pane: a program starts": func(t *rapid.T) {
			id := pw.extra[extra(t)]
			x.srv.SetForeground(id, herdrsim.Proc{Argv: []string{"vim"}})
			x.note("pane %s runs vim", id)
		},
		"pane: the program ends": func(t *rapid.T) {
			id := pw.extra[extra(t)]
			x.srv.SetForeground(id)
			x.note("pane %s is at its prompt", id)
		},
		"pane: an agent comes": func(t *rapid.T) {
			id := pw.extra[extra(t)]
			x.srv.SetAgent(id, "claude", herdr.StatusIdle)
			x.note("claude comes to pane %s", id)
		},
		"pane: the agent leaves": func(t *rapid.T) {
			id := pw.extra[extra(t)]
			x.srv.SetAgent(id, "", "")
			x.note("the agent leaves pane %s", id)
		},
		"pane: lock":    func(t *rapid.T) { pw.mark(anyPane(t), true) },
		"pane: release": func(t *rapid.T) { pw.mark(anyPane(t), false) },
		"pane: moves":   func(t *rapid.T) { pw.move(extra(t)) },
	}
}

// personRename is a person naming pane id (label "": clearing it), with
// herdr's CLI or at the keyboard: herdr tells no one.
func (pw *paneWorld) personRename(id, label string) {
	x := pw.x
	pw.ensure()
	before := x.paneLabel(id)
	if _, err := x.srv.Do("pane.rename", map[string]any{"pane_id": id, "label": label}); err != nil {
		return
	}
	now, k := x.paneLabel(id), pw.keyOfID[id]
	if now == before {
		return
	}
	pw.shown[k], pw.ours[k] = now, false
	x.note("a person names pane %s %q", id, now)
	t := state.PaneTarget(id)
	inWindow := slices.ContainsFunc(x.windows, func(w window) bool { return w.t == t })
	if now == "" || inWindow || x.askedLately(t, now) || pw.heldAsOurs(id, now) {
		delete(pw.person, k)
		return
	}
	pw.person[k] = &paneIntent{label: now}
}

// heldAsOurs says whether the memory holds label as ours on pane id, or
// as the label it showed when released: under its id, or under the id it
// had before herdr gave it a new one (the daemon adopts that memory).
func (pw *paneWorld) heldAsOurs(id, label string) bool {
	mem, _ := state.Load(pw.x.path, "")
	p, _ := pw.x.srv.Pane(id)
	for _, mid := range mem.IDs(state.Pane) {
		e := mem.Entry(state.PaneTarget(mid))
		if mid != id && (e.Terminal == "" || e.Terminal != p.TerminalID) {
			continue
		}
		if slices.Contains(e.OurLabels(pw.x.now), label) || e.Released && e.ReleasedFrom != nil && *e.ReleasedFrom == label {
			return true
		}
	}
	return false
}

// mark locks pane id (lock) or releases it, as `lock --pane` and
// `release --pane` do; a lock only when no rename of ours is on its way.
func (pw *paneWorld) mark(id string, lock bool) {
	x := pw.x
	if lock && (x.depth > 0 || len(x.late) > 0 || x.lock != nil) {
		return
	}
	p, _ := x.srv.Pane(id)
	t, k := state.PaneTarget(id), pw.keyOfID[id]
	st, _ := state.Load(x.path, "")
	err := st.Edit(func(tx *state.Tx) {
		if lock {
			tx.Lock(t, p.Label)
		} else {
			tx.Release(t, p.Label)
		}
		tx.Seat(t, p.TerminalID)
	})
	if err != nil {
		x.note("lock or release of pane %s refused: %v", id, err)
		return
	}
	delete(pw.person, k)
	if lock {
		pw.person[k] = &paneIntent{label: p.Label, locked: true}
	}
	x.note("pane %s %s showing %q", id, map[bool]string{true: "locked", false: "released"}[lock], p.Label)
}

// move moves the i-th second pane into the tab of the other workspace,
// or from there back into its tab: herdr gives it a new id in another
// workspace, and keeps its terminal, label and program.
func (pw *paneWorld) move(i int) {
	x := pw.x
	id := pw.extra[i]
	p, _ := x.srv.Pane(id)
	to := x.tabs[i]
	if p.WorkspaceID == x.ws {
		if _, ok := x.srv.Tab(pw.other); !ok {
			_, pw.other, _ = x.srv.NewWorkspace("", exploreHome+"/gamma")
		}
		to = pw.other
	}
	dest := map[string]any{"type": "tab", "tab_id": to, "split": "right"}
	raw, err := x.srv.Do("pane.move", map[string]any{"pane_id": id, "destination": dest})
	var r struct {
		Result struct {
			Pane herdr.Pane `json:"pane"`
		} `json:"move_result"`
	}
	if err != nil || json.Unmarshal(raw, &r) != nil {
		x.t.Fatalf("pane.move %s: %v", id, err)
	}
	pw.extra[i] = r.Result.Pane.ID
	pw.follow()
	x.note("pane %s moves to tab %s: now %s", id, to, pw.extra[i])
}

// restore clears the pane labels restore judges ours, as `restore` does,
// and returns the panes whose memory goes.
func (pw *paneWorld) restore(p *proc, reps []pass.Report) []state.Target {
	var forget []state.Target
	for _, r := range reps {
		if r.PaneID == "" {
			continue
		}
		t := state.PaneTarget(r.PaneID)
		if owner.RestorePane(r.Label, r.Judged, p.mem.Entry(t), pw.x.now) != "" {
			continue
		}
		pw.x.note("restore clears pane %s %q", r.PaneID, r.Label)
		_ = p.rn.GiveBack(context.Background(), t, r.Label, "")
		forget = append(forget, t)
	}
	return forget
}

// check checks the rule for panes, after every step: locked labels at
// every step at rest; a person's label, and our labels the memory holds
// being ours, once the world is settled.
func (pw *paneWorld) check(settled bool) {
	x := pw.x
	if pw.life != x.life {
		return // no pane of this life was worked with yet
	}
	pw.follow()
	panes := pw.panes()
	for k, p := range panes {
		if p.Label != pw.shown[k] {
			// Not a person's step: a rename of ours (or restore's).
			pw.shown[k], pw.ours[k] = p.Label, p.Label != ""
		}
	}
	mem, _ := state.Load(x.path, "")
	for k, in := range pw.person {
		p, ok := panes[k]
		switch {
		case ok && in.locked && !pw.locks(mem, p):
			delete(pw.person, k)
			x.note("pane %s's lock is forgotten", p.ID)
		case !ok || p.Label == in.label:
		case in.locked && x.depth == 0 && !x.lateFor(state.PaneTarget(p.ID)):
			x.bad = append(x.bad, fmt.Sprintf("pane %s was locked as %q and shows %q", p.ID, in.label, p.Label))
		case settled && !in.locked && !x.force: // --force renames people's names
			x.bad = append(x.bad, fmt.Sprintf("pane %s shows %q, not the person's %q", p.ID, p.Label, in.label))
		}
	}
	if settled {
		pw.checkOurs(panes)
	}
}

// checkOurs: a pane showing a label our rename set, which the memory
// holds as ours for the terminal it runs in, is ours to the daemon
// (explain), wherever the pane moved.
func (pw *paneWorld) checkOurs(panes map[string]herdr.Pane) {
	x := pw.x
	mem, _ := state.Load(x.path, "")
	if mem.Damaged() != nil {
		return
	}
	rd := x.newDaemon(x.newProc("explain"), x.naming())
	reps, err := rd.Explain(context.Background(), "")
	if err != nil {
		return
	}
	for _, r := range reps {
		k := pw.keyOfID[r.PaneID]
		if r.PaneID == "" || !pw.ours[k] || r.Judged != owner.Human {
			continue
		}
		for _, id := range mem.IDs(state.Pane) {
			if e := mem.Entry(state.PaneTarget(id)); e.Label == r.Label && e.Terminal != "" && e.Terminal == panes[k].TerminalID {
				x.bad = append(x.bad, fmt.Sprintf("pane %s shows %q, which the memory holds as ours (as pane %s), and explain calls it a person's", r.PaneID, r.Label, id))
			}
		}
	}
}

// askedLately says whether a daemon may still take label on pane t for
// one of ours: asked for within the pending window, or on 0.7/0.8 within
// a replay's lag (asked, replaced, or adopted by a daemon started since).
func (x *explorer) askedLately(t state.Target, label string) bool {
	within := func(d time.Duration) func(asked) bool {
		return func(a asked) bool { return a.t == t && a.label == label && x.now.Sub(a.at) < d }
	}
	lately := within(state.PendingTTL)
	// A daemon that starts follows the renames it adopts for replayLag
	// from then: their echoes replay.
	adopted := func(a asked) bool {
		return a.t == t && a.label == label && !a.at.After(x.started) && x.now.Sub(x.started) < replayLag
	}
	return slices.ContainsFunc(x.who.asked, lately) ||
		x.proto < 22 && (slices.ContainsFunc(x.who.replaced, lately) || slices.ContainsFunc(x.who.asked, within(replayLag)) ||
			slices.ContainsFunc(x.who.asked, adopted))
}
