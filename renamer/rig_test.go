package renamer

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/owner"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// fakeHerdr holds labels and applies renames in order, reporting each on
// its event log as herdr's stream would. before, when set, runs right
// before a rename of ours applies: a person's rename inside its window.
type fakeHerdr struct {
	mu     sync.Mutex
	proto  int
	labels map[state.Target]string
	events []herdr.Event
	before func(t state.Target, label string)
	// lookErrs fail that many looks at a tab from now.
	lookErrs int
}

func newFakeHerdr(proto int) *fakeHerdr {
	return &fakeHerdr{proto: proto, labels: map[state.Target]string{}}
}

// set renames t as a person or another process would.
func (h *fakeHerdr) set(t state.Target, label string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.labels[t] = label
	if t.Kind == state.Pane {
		return // herdr tells of no pane rename
	}
	ev := herdr.Event{Kind: herdr.TabRenamed, TabID: t.ID, Label: label}
	if t.Kind == state.Workspace {
		ev = herdr.Event{Kind: herdr.WorkspaceRenamed, WorkspaceID: t.ID, Label: label}
	}
	h.events = append(h.events, ev)
}

func (h *fakeHerdr) label(t state.Target) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.labels[t]
}

func (h *fakeHerdr) rename(t state.Target, label string) error {
	if h.before != nil {
		h.before(t, label)
	}
	h.set(t, label)
	return nil
}

func (h *fakeHerdr) RenameTab(_ context.Context, id, label string) (herdr.Tab, error) {
	return herdr.Tab{ID: id, Label: label}, h.rename(state.TabTarget(id), label)
}

func (h *fakeHerdr) RenameWorkspace(_ context.Context, id, label string) (herdr.Workspace, error) {
	return herdr.Workspace{ID: id, Label: label}, h.rename(state.WorkspaceTarget(id), label)
}

func (h *fakeHerdr) RenamePane(_ context.Context, id, label string) (herdr.Pane, error) {
	return herdr.Pane{ID: id, Label: label}, h.rename(state.PaneTarget(id), label)
}

func (h *fakeHerdr) Pane(_ context.Context, id string) (herdr.Pane, error) {
	return herdr.Pane{ID: id, Label: h.label(state.PaneTarget(id))}, nil
}

func (h *fakeHerdr) Tab(_ context.Context, id string) (herdr.Tab, error) {
	h.mu.Lock()
	if h.lookErrs > 0 {
		h.lookErrs--
		h.mu.Unlock()
		return herdr.Tab{}, context.DeadlineExceeded
	}
	h.mu.Unlock()
	return herdr.Tab{ID: id, Label: h.label(state.TabTarget(id))}, nil
}

func (h *fakeHerdr) Workspaces(context.Context) ([]herdr.Workspace, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []herdr.Workspace
	for t, l := range h.labels {
		if t.Kind == state.Workspace {
			out = append(out, herdr.Workspace{ID: t.ID, Label: l})
		}
	}
	return out, nil
}

func (h *fakeHerdr) Protocol() int { return h.proto }

// rig is a Renamer that follows its renames, over a fakeHerdr and a
// memory of its own, on a clock the test moves. Put-backs it starts wait
// in spawned until the test runs them (runSpawned), so a test can put
// other work before them.
type rig struct {
	t       *testing.T
	h       *fakeHerdr
	mem     *state.State
	r       *Renamer
	now     time.Time
	gen     uint64
	read    int // events of h fed to the renamer
	spawned []func()
}

func newRig(t *testing.T, proto int) *rig {
	t.Helper()
	g := &rig{t: t, h: newFakeHerdr(proto), now: time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC), gen: 1}
	g.mem, _ = state.Load("", "")
	g.r = New(Options{Herdr: g.h, Memory: g.mem, Now: func() time.Time { return g.now }, Follow: true,
		Gen: func() uint64 { return g.gen }, Spawn: func(f func()) { g.spawned = append(g.spawned, f) }})
	t.Cleanup(func() { g.runSpawned(); g.r.Close() })
	return g
}

// name sends a rename of ours to want after a look that saw seen; young:
// the look stands in for the re-read.
func (g *rig) name(t state.Target, seen, want string, young bool) *Rename {
	g.t.Helper()
	x := &Rename{Kind: OurName, Target: t, Seen: seen, Want: want, Case: owner.Case{Want: want}}
	if ok, err := g.r.Send(context.Background(), []*Rename{x}, nil, young); !ok || err != nil {
		g.t.Fatalf("send %q: ok %v, err %v, %s", want, ok, err, x.Err)
	}
	return x
}

// nameWithPersonInside sends a rename of ours of t from seen to want, a
// person's rename of t to mine landing right before it.
func (g *rig) nameWithPersonInside(t state.Target, seen, want, mine string) *Rename {
	g.t.Helper()
	g.h.before = func(at state.Target, label string) {
		if at == t && label == want {
			g.h.before = nil
			g.h.set(at, mine)
		}
	}
	return g.name(t, seen, want, false)
}

// feed hands the renamer the events herdr logged since the last feed.
func (g *rig) feed() {
	g.h.mu.Lock()
	evs := g.h.events[g.read:]
	g.read = len(g.h.events)
	g.h.mu.Unlock()
	for _, ev := range evs {
		g.r.Echo(ev, g.gen)
	}
}

// feedN hands the renamer the next n events herdr logged.
func (g *rig) feedN(n int) {
	g.h.mu.Lock()
	evs := g.h.events[g.read : g.read+n]
	g.read += n
	g.h.mu.Unlock()
	for _, ev := range evs {
		g.r.Echo(ev, g.gen)
	}
}

// echo hands the renamer events of t's labels, as a replay would.
func (g *rig) echo(t state.Target, labels ...string) {
	for _, l := range labels {
		ev := herdr.Event{Kind: herdr.TabRenamed, TabID: t.ID, Label: l}
		if t.Kind == state.Workspace {
			ev = herdr.Event{Kind: herdr.WorkspaceRenamed, WorkspaceID: t.ID, Label: l}
		}
		g.r.Echo(ev, g.gen)
	}
}

// replayOver tells the renamer its entry for t's kind has replayed all.
func (g *rig) replayOver(t state.Target) {
	kind := herdr.TabRenamed
	if t.Kind == state.Workspace {
		kind = herdr.WorkspaceRenamed
	}
	g.r.ReplayOver(g.gen, kind)
}

// runSpawned runs the put-backs started so far and concludes them.
func (g *rig) runSpawned() {
	for len(g.spawned) > 0 {
		f := g.spawned[0]
		g.spawned = g.spawned[1:]
		f()
		g.r.PutBackDone(<-g.r.PutBacks())
	}
}
