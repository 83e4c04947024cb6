package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"path"
	"regexp"
	"slices"
	"sync"

	"pgregory.net/rapid"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/pass"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// The world around the daemon's names: herdr's protocol, the daemons'
// flags, and what people do besides renaming: tabs created, closed,
// moved and focused, programs and agents starting, agents' statuses, and
// once --apply run beside a running daemon.

// world is how a schedule's herdr and daemons are set up.
type world struct {
	proto int
	// icons: tabs are named "{icon} {agent|proc|dir}", else "{dir}".
	icons bool
	// force and prefix: --force, --index-prefix-all.
	force, prefix bool
}

// protocols are the ones herdr releases speak: 0.7 (17), 0.8.0 (19),
// 0.8.1-0.8.2 (20), 0.9 (22).
var protocols = []int{17, 19, 20, 22}

func drawWorld(t *rapid.T) world {
	return world{
		proto: rapid.SampledFrom(protocols).Draw(t, "protocol"),
		icons: rapid.Bool().Draw(t, "icons, programs and agents in names"),
		// --force lets the daemon rename people's names: only locks are
		// theirs then, so it is drawn less often.
		force:  rapid.IntRange(0, 7).Draw(t, "--force") == 0,
		prefix: rapid.IntRange(0, 3).Draw(t, "--index-prefix-all") == 0,
	}
}

func (w world) String() string {
	format := "{dir}"
	if w.icons {
		format = iconFormat
	}
	return fmt.Sprintf("herdr speaks protocol %d; --format %q, --force %v, --index-prefix-all %v", w.proto, format, w.force, w.prefix)
}

const iconFormat = "{icon} {agent|proc|dir}"

// namings are the daemons' naming configurations, by world: each is made
// once (its namers compile their globs).
var namings sync.Map

// namingConfig is how w's daemons name: tabs as w says, workspaces after
// their active tab's folder with a prefix.
func namingConfig(w world) pass.Config {
	key := world{icons: w.icons, force: w.force, prefix: w.prefix}
	if c, ok := namings.Load(key); ok {
		return c.(pass.Config)
	}
	format := "{dir}"
	if w.icons {
		format = iconFormat
	}
	nm, err1 := namer.New(namer.Config{Format: format, MaxLen: 24, Home: exploreHome})
	wn, err2 := namer.New(namer.Config{Format: "ws-{dir}", MaxLen: 24, Home: exploreHome})
	procs, err3 := procinfo.New(procinfo.Options{}, nil)
	if err1 != nil || err2 != nil || err3 != nil {
		panic(fmt.Sprint(err1, err2, err3))
	}
	c := pass.Config{Namer: nm, WorkspaceNamer: wn, Procs: procs, Apply: true, Force: w.force, IndexPrefixAll: w.prefix}
	namings.Store(key, c)
	return c
}

// programs are what people run in a pane; agents what herdr detects.
var (
	programs = []string{"vim", "btop"}
	statuses = []herdr.AgentStatus{herdr.StatusWorking, herdr.StatusBlocked, herdr.StatusDone, herdr.StatusIdle}
	icons    = []string{"⚪", "🟡", "🔴", "🟢"}
)

// maxTabs bounds the tabs of a schedule's workspace.
const maxTabs = 4

// worldSteps adds to steps what people do in herdr besides renaming, in
// few steps so that the ones about names stay as likely.
func (x *explorer) worldSteps(steps map[string]func(*rapid.T)) {
	steps["a tab is created, closed, moved or focused"] = func(t *rapid.T) {
		switch rapid.IntRange(0, 3).Draw(t, "what becomes of tabs") {
		case 0:
			if len(x.tabs) < maxTabs {
				tab, pane := x.srv.NewTab(x.ws, exploreHome+"/"+rapid.SampledFrom(dirs).Draw(t, "dir"))
				x.tabs, x.panes = append(x.tabs, tab), append(x.panes, pane)
				x.note("tab %s created", tab)
			}
		case 1:
			// Not the session's first tab: a pane herdr's server had all
			// along tells the daemons it is the same server (a forwarded
			// socket that tells nothing is docs/names.md's limit, not searched).
			if i := x.tab(t); x.panes[i] != x.firstPane {
				x.closeTab(i)
			}
		case 2:
			i, to := x.tab(t), rapid.IntRange(0, len(x.tabs)-1).Draw(t, "to")
			x.srv.MoveTab(x.tabs[i], to)
			x.note("tab %s moved to position %d", x.tabs[i], to+1)
		case 3:
			i := x.tab(t)
			x.srv.Focus(x.panes[i])
			x.note("tab %s focused", x.tabs[i])
			x.autoLabelMoved()
		}
	}
	steps["a program or an agent starts or ends"] = func(t *rapid.T) {
		i := x.tab(t)
		if x.draw("an agent") {
			x.agent(i, rapid.SampledFrom(append([]herdr.AgentStatus{""}, statuses...)).Draw(t, "status"))
			return
		}
		x.program(i, rapid.SampledFrom(append([]string{""}, programs...)).Draw(t, "program"))
	}
	steps["once --apply"] = func(*rapid.T) { x.once() }
}

// agent sets the agent status of tab i's pane; "" is the agent gone.
func (x *explorer) agent(i int, st herdr.AgentStatus) {
	agent := "claude"
	if st == "" {
		agent = ""
	}
	x.srv.SetAgent(x.panes[i], agent, st)
	x.note("pane %s: agent %q %s", x.panes[i], agent, st)
}

// tab draws one of the tabs.
func (x *explorer) tab(t *rapid.T) int { return rapid.IntRange(0, len(x.tabs)-1).Draw(t, "tab") }

// closeTab closes tab i: nothing is left of it to keep.
func (x *explorer) closeTab(i int) {
	t := state.TabTarget(x.tabs[i])
	x.srv.CloseTab(t.ID)
	x.note("tab %s closed", t.ID)
	x.who.forget(t)
	delete(x.progs, x.panes[i])
	x.tabs, x.panes = slices.Delete(x.tabs, i, i+1), slices.Delete(x.panes, i, i+1)
	if x.pw != nil {
		x.pw.tabClosed(i)
	}
	x.autoLabelMoved()
}

// program makes prog the program in front of tab i's shell ("" for its
// prompt), and its shell hook nudges the daemon: a pass asks herdr what
// runs there. A program starts where the shell is, and the shell moves
// on only once it is back at its prompt.
func (x *explorer) program(i int, prog string) {
	pane := x.panes[i]
	if prog == "" {
		x.srv.SetForeground(pane)
		delete(x.progs, pane)
	} else {
		x.srv.SetForeground(pane, herdrsim.Proc{Argv: []string{prog}})
		x.progs[pane] = prog
	}
	x.note("pane %s runs %q", pane, prog)
	x.ifDaemon(func(p *proc) {
		x.note("nudged pass")
		_, _, _ = p.d.pass(context.Background(), passInput{Input: pass.Input{Forced: map[string]bool{pane: true}, Urgent: true}})
	})
}

// once runs once --apply beside the running daemon: one pass of a
// process of its own, which records its renames for the daemon to
// follow to their echoes (it follows none itself: docs/names.md).
func (x *explorer) once() {
	if x.d == nil {
		return
	}
	p := x.newProc("once")
	if p.mem.Damaged() != nil {
		x.note("once refused: the state file is damaged")
		return
	}
	od := x.newDaemon(p, namingConfig(x.world))
	x.note("once --apply")
	_, _, _ = od.pass(context.Background(), passInput{})
	p.dead = true
	if x.d != nil {
		// Their echoes are the daemon's to hear.
		x.d.applied = append(x.d.applied, p.applied...)
	}
}

// newDaemon is a Daemon of process p over the memory on disk, its
// requests scheduled by the search.
func (x *explorer) newDaemon(p *proc, naming pass.Config) *Daemon {
	d, err := New(Options{StatePath: x.path, Naming: naming, Now: x.clock, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		x.t.Fatal(err)
	}
	d.api, d.state, d.renamer = schedAPI{x, p}, p.mem.State, p.rn
	d.planner = pass.New(d.opt.Naming, d.api, nil, d.shells, x.clock, d.log)
	return d
}

// tabNames are what we would name tab t now, every status and icon with
// and without its program or agent (docs/names.md's renders), restated: the
// lead pane's folder, program and agent.
func (x *explorer) tabNames(t state.Target, snap herdr.Snapshot) []string {
	var panes []herdr.Pane
	for _, p := range snap.Panes {
		if p.TabID == t.ID {
			panes = append(panes, p)
		}
	}
	lead, _, _ := namer.Lead(panes)
	dir := path.Base(lead.Cwd)
	if lead.Cwd == exploreHome {
		dir = "~"
	}
	if !x.icons {
		return []string{dir}
	}
	names := []string{dir}
	switch {
	case lead.Agent != "":
		names = append(names, lead.Agent)
	case x.progs[lead.ID] != "":
		names = append(names, x.progs[lead.ID])
	}
	out := slices.Clone(names)
	for _, n := range names {
		for _, ic := range icons {
			out = append(out, ic+" "+n)
		}
	}
	return out
}

// kept says whether a target showing now keeps the person's label:
// itself, or under --index-prefix-all with a tab position in front.
func (x *explorer) kept(t state.Target, label, now string) bool {
	if now == label || t.Kind == state.Tab && bareNumber(label) && bareNumber(now) {
		// herdr's own tab label is its position, which moves.
		return true
	}
	if !x.prefix || t.Kind != state.Tab {
		return false
	}
	m := prefixed.FindStringSubmatch(now)
	return m != nil && m[1] == label
}

var prefixed = regexp.MustCompile(`^[1-9] (.*)$`)
