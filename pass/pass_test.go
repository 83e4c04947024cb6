package pass

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// asker answers process_info from a table of programs by pane, and
// counts what it was asked; a pass asks about its panes at once.
type asker struct {
	progs map[string]string
	mu    sync.Mutex
	asked []string
}

func (a *asker) ProcessInfo(_ context.Context, pane string) (herdr.ProcessInfo, error) {
	a.mu.Lock()
	a.asked = append(a.asked, pane)
	a.mu.Unlock()
	name, ok := a.progs[pane]
	if !ok {
		return herdr.ProcessInfo{}, errors.New("no such pane")
	}
	if name == "" { // at its prompt: the shell in front
		return herdr.ProcessInfo{PaneID: pane, ShellPID: 10, ForegroundPGID: 10,
			ForegroundProcesses: []herdr.Process{{PID: 10, Name: "bash", Argv: []string{"bash"}}}}, nil
	}
	return herdr.ProcessInfo{PaneID: pane, ShellPID: 10, ForegroundPGID: 11,
		ForegroundProcesses: []herdr.Process{{PID: 11, Name: name, Argv: []string{name}}}}, nil
}

func planner(t *testing.T, format string, a *asker) *Planner {
	t.Helper()
	n, err := namer.New(namer.Config{Format: format})
	if err != nil {
		t.Fatal(err)
	}
	procs, err := procinfo.New(procinfo.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_700_000_000, 0)
	return New(Config{Namer: n, Procs: procs, Apply: true}, a, nil, nil, func() time.Time { return now }, nil)
}

func memory(t *testing.T) *state.State {
	t.Helper()
	st, err := state.Load(filepath.Join(t.TempDir(), "state.json"), "/tmp/herdr.sock")
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// session is one workspace whose tabs each hold the panes given, the
// first pane of each tab focused.
func session(tabs map[string][]herdr.Pane, labels map[string]string) *herdr.Snapshot {
	snap := &herdr.Snapshot{Protocol: 20, Workspaces: []herdr.Workspace{{ID: "w1", Number: 1, Label: "main"}}}
	for i, id := range slices.Sorted(mapKeys(tabs)) {
		label := labels[id]
		if label == "" {
			label = string(rune('1' + i))
		}
		snap.Tabs = append(snap.Tabs, herdr.Tab{ID: id, WorkspaceID: "w1", Number: i + 1, Label: label, PaneCount: len(tabs[id])})
		for j, p := range tabs[id] {
			p.TabID, p.WorkspaceID, p.Focused = id, "w1", j == 0
			snap.Panes = append(snap.Panes, p)
		}
	}
	return snap
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// A pass is a value in and a plan out: each tab's name from its lead
// pane, a rename where the label differs and is not a person's, and
// herdr asked only about the panes whose program a name needs.
func TestPlan(t *testing.T) {
	tests := []struct {
		name        string
		format      string
		tabs        map[string][]herdr.Pane
		labels      map[string]string
		progs       map[string]string
		wantRenames map[string]string // tab id -> label
		wantAsked   []string
	}{
		{
			name:        "a program names its tab, a directory the other",
			format:      "{proc|dir}",
			tabs:        map[string][]herdr.Pane{"w1:t1": {{ID: "w1:p1", Cwd: "/src/rmk"}}, "w1:t2": {{ID: "w1:p2", Cwd: "/src/shop"}}},
			progs:       map[string]string{"w1:p1": "btop", "w1:p2": ""},
			wantRenames: map[string]string{"w1:t1": "btop", "w1:t2": "shop"},
			wantAsked:   []string{"w1:p1", "w1:p2"},
		},
		{
			name:        "a person's label stays",
			format:      "{proc|dir}",
			tabs:        map[string][]herdr.Pane{"w1:t1": {{ID: "w1:p1", Cwd: "/src/rmk"}}},
			labels:      map[string]string{"w1:t1": "my notes"},
			progs:       map[string]string{"w1:p1": "btop"},
			wantRenames: map[string]string{},
			wantAsked:   []string{"w1:p1"},
		},
		{
			name:        "a name of directories alone asks herdr nothing",
			format:      "{dir}",
			tabs:        map[string][]herdr.Pane{"w1:t1": {{ID: "w1:p1", Cwd: "/src/rmk"}, {ID: "w1:p2", Cwd: "/src/x"}}},
			progs:       map[string]string{},
			wantRenames: map[string]string{"w1:t1": "rmk"},
		},
		{
			name:        "the label shown already is no rename",
			format:      "{dir}",
			tabs:        map[string][]herdr.Pane{"w1:t1": {{ID: "w1:p1", Cwd: "/src/rmk"}}},
			labels:      map[string]string{"w1:t1": "rmk"},
			wantRenames: map[string]string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := &asker{progs: tt.progs}
			p := planner(t, tt.format, a)
			pl := p.Plan(context.Background(), Input{Snap: session(tt.tabs, tt.labels), SnapAt: p.now(), First: true}, memory(t))
			got := map[string]string{}
			for _, r := range pl.Renames {
				got[r.Target.ID] = r.Want
			}
			if !mapsEqual(got, tt.wantRenames) {
				t.Errorf("renames %v, want %v", got, tt.wantRenames)
			}
			slices.Sort(a.asked)
			if !slices.Equal(a.asked, tt.wantAsked) {
				t.Errorf("asked herdr about %v, want %v", a.asked, tt.wantAsked)
			}
			if len(pl.Rows) != len(tt.tabs) {
				t.Errorf("%d rows for %d tabs", len(pl.Rows), len(tt.tabs))
			}
		})
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// For the local watch every agent's pane is offered, not only the lead's:
// an agent the watch does not see keeps the status poll going.
func TestEveryAgentPaneIsOfferedToTheLocalWatch(t *testing.T) {
	a := &asker{progs: map[string]string{"w1:p1": "claude", "w1:p2": "codex", "w1:p3": ""}}
	p := planner(t, "{dir}", a)
	p.cfg.LocalWatch = true
	tabs := map[string][]herdr.Pane{"w1:t1": {
		{ID: "w1:p1", Cwd: "/src/rmk", Agent: "claude", AgentStatus: herdr.StatusIdle},
		{ID: "w1:p2", Cwd: "/src/rmk", Agent: "codex", AgentStatus: herdr.StatusIdle},
		{ID: "w1:p3", Cwd: "/src/rmk"},
	}}
	p.Plan(context.Background(), Input{Snap: session(tabs, nil), SnapAt: p.now(), First: true}, memory(t))
	slices.Sort(a.asked)
	if want := []string{"w1:p1", "w1:p2"}; !slices.Equal(a.asked, want) {
		t.Fatalf("asked herdr about %v, want the agents' panes %v", a.asked, want)
	}
}

// With the local watch, a name of directories alone asks herdr once
// about each lead pane, to learn whether its shell runs here and may be
// watched for a cd; not again once that is known.
func TestLeadPanesAreAskedOnceForTheLocalWatch(t *testing.T) {
	a := &asker{progs: map[string]string{"w1:p1": "", "w1:p2": ""}}
	p := planner(t, "{dir}", a)
	p.cfg.LocalWatch = true
	tabs := map[string][]herdr.Pane{"w1:t1": {{ID: "w1:p1", Cwd: "/src/rmk"}, {ID: "w1:p2", Cwd: "/src/x"}}}
	mem := memory(t)
	for range 2 {
		p.Plan(context.Background(), Input{Snap: session(tabs, nil), SnapAt: p.now(), First: true}, mem)
	}
	if want := []string{"w1:p1"}; !slices.Equal(a.asked, want) {
		t.Fatalf("asked herdr about %v over two passes, want the lead pane once: %v", a.asked, want)
	}
}

// explain --pane: one pane is decided, and herdr asked about it alone,
// whichever tab holds it; a pane not in the session leaves no row.
func TestOnlyPane(t *testing.T) {
	a := &asker{progs: map[string]string{"w1:p1": "btop", "w1:p2": "vim", "w1:p3": "top"}}
	p := planner(t, "{proc}", a)
	panes, err := namer.New(namer.Config{Format: "{proc}", Panes: true})
	if err != nil {
		t.Fatal(err)
	}
	p.cfg.PaneNamer = panes
	snap := session(map[string][]herdr.Pane{"w1:t1": {{ID: "w1:p1"}}, "w1:t2": {{ID: "w1:p2"}, {ID: "w1:p3"}}}, nil)
	pl := p.Plan(context.Background(), Input{Snap: snap, SnapAt: p.now(), OnlyPane: "w1:p3", ReadOnly: true}, memory(t))
	if len(pl.Rows) != 1 || pl.Rows[0].Tab.ID != "w1:t2" || len(pl.Panes) != 1 || pl.Panes[0].Report.Want != "top" {
		t.Fatalf("rows %d, panes %+v", len(pl.Rows), pl.Panes)
	}
	pl = p.Plan(context.Background(), Input{Snap: snap, SnapAt: p.now(), OnlyPane: "w1:p9", ReadOnly: true}, memory(t))
	if len(pl.Rows) != 0 || len(pl.Panes) != 0 {
		t.Fatalf("a missing pane left %d rows and %d panes", len(pl.Rows), len(pl.Panes))
	}
}

// PaneNames, what event triage weighs a pane.updated by, gives a tab's
// panes the names a pass would, told apart alike, and asks herdr
// nothing; with pane names off, none.
func TestPaneNamesAsAPassGivesThem(t *testing.T) {
	a := &asker{progs: map[string]string{}}
	p := planner(t, "{dir}", a)
	panes := []herdr.Pane{
		{ID: "w1:p1", Cwd: "/src/api", Agent: "claude"},
		{ID: "w1:p2", Cwd: "/src/web", Agent: "claude", Title: "fix the login"},
		{ID: "w1:p3", Cwd: "/src/doc"},
	}
	snap := session(map[string][]herdr.Pane{"w1:t1": panes}, nil)
	tab, ws := snap.Tabs[0], snap.Workspaces[0]
	if got := p.PaneNames(tab, ws, snap.Panes); got != nil {
		t.Fatalf("pane names off: %q, want none", got)
	}
	nm, err := namer.New(namer.Config{Format: "{agent|dir}", Panes: true})
	if err != nil {
		t.Fatal(err)
	}
	p.cfg.PaneNamer = nm
	got := p.PaneNames(tab, ws, snap.Panes)
	if len(a.asked) != 0 {
		t.Fatalf("PaneNames asked herdr about %q", a.asked)
	}
	pl := p.Plan(context.Background(), Input{Snap: snap, SnapAt: p.now()}, memory(t))
	var want []string
	for _, pr := range pl.Panes {
		want = append(want, pr.Report.Want)
	}
	if !slices.Equal(got, want) || got[0] == got[1] {
		t.Fatalf("PaneNames %q, a pass's %q, want the same, told apart", got, want)
	}
}
