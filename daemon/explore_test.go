package daemon

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/renamer"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// The search of interleavings. Each schedule is one world: a herdr
// (herdrsim, offline, every request reaching it in process in the order
// it is made), the memory on disk, the daemons that run one after the
// other over it, and a person. Between the daemon's steps, and inside
// the window of every rename of ours (before herdr applies it, and after
// but before its answer), the schedule picks what happens: a person
// renames a tab or workspace, locks, releases, restores; herdr's events
// reach the daemon, or its replay ends (truly or seemingly); a put-back
// runs; the daemon is killed (its rename landing later, or never),
// stopped or started; herdr restarts with or without its session; the
// state file is damaged or removed; time passes. After every step the one
// rule is checked: no label a person set is ever replaced by ours unless
// they released it, and no locked label changes (intent.go). rapid draws
// the schedules from a seed and shrinks a failing one before printing it.

// explorer is one schedule's world.
type explorer struct {
	t *rapid.T
	world
	srv   *herdrsim.Server
	life  int // herdr's server life; a restart without its session starts the next
	now   time.Time
	path  string // the state file
	ws    string
	tabs  []string
	panes []string
	progs map[string]string // the program in front of each pane's shell
	// firstPane is the pane herdr's server started with: never closed.
	firstPane string
	gen       uint64
	d         *proc // the daemon running now, nil when none
	lock      *proc // a lock command waiting for renames on their way, nil when none
	late      []lateRename
	who       *intents
	log       []string
	bad       []string // violations found off the test goroutine
	depth     int      // nesting of actions inside renames' windows
	// windows are the renames whose windows are open, innermost last;
	// overLock the targets a lock returned on while one was open.
	windows  []window
	overLock map[state.Target]bool
	// deadOverLock: a process died in such a step; a daemon that starts
	// puts the locked label back.
	deadOverLock map[state.Target]bool
	// sends counts the renames sent; putBackFrom is, while a put-back of
	// the daemon runs, how many had been sent when it was decided (-1
	// when none runs).
	sends, putBackFrom int
	calm               bool      // the schedule ended: nothing happens inside windows
	started            time.Time // when the last daemon started
	// everyday: no process dies, herdr never restarts, the memory stays
	// sound (TestEverydayInterleavings).
	everyday bool
	// pw is the panes' world, when the daemons name panes
	// (explore_panes_test.go).
	pw *paneWorld
}

// proc is a process of ours: a daemon's run or a command.
type proc struct {
	name    string
	d       *Daemon
	rn      *renamer.Renamer
	mem     *killable
	dead    bool
	sub     cursor
	spawned []func()
	// running counts its put-backs that ran and wait for its loop to
	// take in what they did; spawnedAt is, for each of spawned, how many
	// renames had been sent when it was decided.
	running   int
	spawnedAt []int
	// applied are its renames herdr applied: one whose echo it had not
	// heard when killed is heard by no one on 0.9.
	applied []applied
	// A lock command's goroutine hands control back to the search at
	// every wait (wake), and says on done when it returned; a panic of
	// it (rapid's end of data) goes on on the search's goroutine.
	wake, yielded chan struct{}
	done          bool
	panicked      any
	label         string // the label a lock locked
	tab           string
}

// killable is a process's memory, which a killed process no longer
// writes.
type killable struct {
	*state.State
	dead *bool
	// wrote is told of every write, to learn what was recorded.
	wrote func(*state.State)
}

func (k *killable) Update(fn func(*state.Tx)) error {
	if *k.dead {
		return fmt.Errorf("the process was killed")
	}
	err := k.State.Update(fn)
	if k.wrote != nil {
		k.wrote(k.State)
	}
	return err
}

// cursor is where a subscription stands in herdr's ring.
type cursor struct {
	gen      uint64
	seen     uint64 // the last event delivered
	replayTo uint64 // events up to this one are the replay
	live     bool
}

var exploreHome = "/home/u"

// dirs are the folders panes move between: their names are the names we
// give. labels are what a person types; alpha and beta are also names of
// ours.
var (
	dirs   = []string{"alpha", "beta", "gamma"}
	labels = []string{"mine", "notes", "alpha", "beta", "2"}
)

func newExplorer(t *rapid.T, dir string) *explorer {
	x := &explorer{t: t, world: drawWorld(t), progs: map[string]string{},
		now: time.Date(2026, 12, 5, 9, 0, 0, 0, time.UTC), path: filepath.Join(dir, "state.json"), who: newIntents(),
		overLock: map[state.Target]bool{}, deadOverLock: map[state.Target]bool{}, putBackFrom: -1}
	x.startHerdr()
	x.note("%s", x.world)
	return x
}

// startHerdr starts herdr anew without a session: ids from 1, two tabs.
func (x *explorer) startHerdr() {
	srv, err := offlineHerdr(x.proto)
	if err != nil {
		x.t.Fatal(err)
	}
	x.srv, x.life = srv, x.life+1
	var t1, p1 string
	x.ws, t1, p1 = srv.NewWorkspace("", exploreHome+"/alpha")
	t2, p2 := srv.NewTab(x.ws, exploreHome+"/beta")
	x.tabs, x.panes, x.firstPane = []string{t1, t2}, []string{p1, p2}, p1
	clear(x.progs)
	x.who.newLife(x.life)
}

func (x *explorer) note(format string, args ...any) {
	x.log = append(x.log, strings.Repeat("  ", x.depth)+fmt.Sprintf(format, args...))
}

func (x *explorer) draw(what string) bool { return rapid.Bool().Draw(x.t, what) }

func (x *explorer) clock() time.Time { return x.now }

// newProc makes a process over the memory on disk whose requests the
// search schedules.
func (x *explorer) newProc(name string) *proc {
	p := &proc{name: name}
	p.mem = &killable{dead: &p.dead, wrote: x.noteRecorded}
	st, _ := state.Load(x.path, "")
	p.mem.State = st
	p.rn = renamer.New(renamer.Options{Herdr: schedAPI{x, p}, Memory: p.mem, Now: x.clock, Follow: true,
		Gen: func() uint64 { return p.sub.gen }, Inline: true, Log: slog.New(slog.DiscardHandler),
		Spawn: func(f func()) { p.spawned, p.spawnedAt = append(p.spawned, f), append(p.spawnedAt, x.sends) }, Sleep: x.sleep(p)})
	return p
}

// startDaemon starts a daemon over the memory on disk: it adopts the
// renames a killed one left, and subscribes.
func (x *explorer) startDaemon() {
	p := x.newProc("daemon")
	x.started = x.now
	p.d = x.newDaemon(p, x.naming())
	p.rn.Adopt()
	x.d = p
	x.note("daemon started")
	x.subscribe(p)
}

// subscribe gives p a new subscription: on 0.7/0.8 it replays the ring.
func (x *explorer) subscribe(p *proc) {
	x.gen++
	p.sub = cursor{gen: x.gen, live: x.proto >= 22}
	p.rn.Take(herdr.FeedItem{Note: herdr.NoteSubscribed, Gen: x.gen})
	ring := x.srv.Ring()
	if len(ring) > 0 {
		p.sub.replayTo = ring[len(ring)-1].Seq
		if x.proto >= 22 {
			p.sub.seen = p.sub.replayTo
		}
	}
	if p.d != nil {
		p.d.gen, p.d.subscribed = x.gen, true
		p.d.instance.checked = false
	}
	if p.sub.live {
		x.replayOver(p)
	}
	if p.d != nil {
		// The daemon's full pass runs before it takes the events.
		x.note("full pass")
		_, _, _ = p.d.pass(context.Background(), passInput{})
	}
}

// deliver hands p the next n rename events of its subscription.
func (x *explorer) deliver(p *proc, n int) int {
	got := 0
	for _, e := range x.srv.Ring() {
		if got == n {
			break
		}
		if e.Seq <= p.sub.seen {
			continue
		}
		p.sub.seen = e.Seq
		if e.Event.Kind == herdr.TabRenamed || e.Event.Kind == herdr.WorkspaceRenamed {
			x.note("%s hears %s %s%s -> %q", p.name, e.Event.Kind, e.Event.TabID, e.Event.WorkspaceID, e.Event.Label)
			p.rn.Take(herdr.FeedItem{Note: herdr.NoteEvent, Event: e.Event, Gen: p.sub.gen})
			got++
		}
	}
	return got
}

// replayOver tells p its entries' replays ended.
func (x *explorer) replayOver(p *proc) {
	for _, k := range renamer.RenamedKinds {
		p.rn.Take(herdr.FeedItem{Note: herdr.NoteReplayOver, Gen: p.sub.gen, ReplayOver: k})
	}
	x.note("%s: replay over", p.name)
}

// runPutBack runs the oldest put-back p started, if any, and concludes
// the ones that ran.
func (x *explorer) runPutBack(p *proc) {
	if len(p.spawned) > 0 {
		x.runPutBackWork(p)
	}
	for ; p.running > 0; p.running-- {
		select {
		case b := <-p.rn.PutBacks():
			if !p.dead {
				p.rn.PutBackDone(b)
			}
		default:
		}
	}
}

// drain brings p to rest: every event delivered, its replay over, every
// put-back run, until nothing more comes.
func (x *explorer) drain(p *proc) {
	for i := 0; i < 50 && p != nil && !p.dead; i++ {
		n := x.deliver(p, -1)
		if !p.sub.live {
			p.sub.live = true
			x.replayOver(p)
			n++
		}
		if len(p.spawned) > 0 || p.running > 0 {
			x.runPutBack(p)
			n++
		}
		if n == 0 {
			return
		}
	}
}

// kill kills p: it writes nothing more, its put-backs do not run.
func (x *explorer) kill(p *proc) {
	p.dead, p.spawned, p.spawnedAt, p.running = true, nil, nil, 0
	for t := range x.overLock {
		x.deadOverLock[t] = true
	}
	for _, a := range p.applied {
		if a.seq > p.sub.seen {
			x.unheard(a.t)
		}
	}
	// What it decided to put back and had not yet is lost with it too,
	// and a person's choice of our last label it had not heard yet.
	for t, in := range x.who.m {
		if x.label(t) != in.label || in.again && in.seq > p.sub.seen {
			x.unheard(t)
		}
	}
	if x.d == p {
		x.d = nil
	}
	x.note("%s killed", p.name)
}

// TestInterleavings runs the search over the whole world, kills,
// restarts and damaged memory included: thousands of schedules in CI,
// each a few dozen steps. The same ones every run unless -rapid.seed
// says otherwise, so that a run is repeatable; -rapid.seed and
// -rapid.checks search further.
func TestInterleavings(t *testing.T) { search(t, false, 1500) }

// TestEverydayInterleavings searches a daemon's everyday life alone: no
// process dies, no herdr restarts, the memory stays sound. Fewer kinds of
// step reach deeper into the ones left (passes, echoes, a person's
// renames, put-backs, locks, releases, restore, time).
func TestEverydayInterleavings(t *testing.T) { search(t, true, 1000) }

// searchFlags are -rapid.checks and -rapid.seed as given on the command
// line, read once: each search then sets its own defaults.
var searchFlags = sync.OnceValues(func() (checks, seed bool) {
	given := func(name string) bool {
		f := flag.Lookup(name)
		return f != nil && f.Value.String() != f.DefValue
	}
	return given("rapid.checks"), given("rapid.seed")
})

// searchEnv sizes the search: "nightly" searches ten times CI's budget.
const searchEnv = "HERDRTABRENAMER_SEARCH"

func search(t *testing.T, everyday bool, checks int) {
	searchWith(t, checks, func(x *explorer) { x.everyday = everyday })
}

// searchWith runs checks schedules (a fifth under -short), each world
// made by newExplorer and then setup.
func searchWith(t *testing.T, checks int, setup func(*explorer)) {
	checksGiven, seedGiven := searchFlags()
	switch env := os.Getenv(searchEnv); {
	case checksGiven:
	case env == "nightly":
		checks *= 10
	case env != "":
		t.Fatalf("%s=%q: want nightly, or unset for CI's budget", searchEnv, env)
	case testing.Short():
		checks /= 5
	}
	if !checksGiven {
		_ = flag.Set("rapid.checks", strconv.Itoa(checks))
	}
	if !seedGiven {
		_ = flag.Set("rapid.seed", "1")
	}
	// The memory is written at every rename, each write synced: in
	// memory (tmpfs) where there is one, thousands of schedules take
	// seconds, not minutes.
	dir := t.TempDir()
	if shm, err := os.MkdirTemp("/dev/shm", "explore"); err == nil {
		dir = shm
		t.Cleanup(func() { os.RemoveAll(shm) })
	}
	rapid.Check(t, func(rt *rapid.T) {
		sub, err := os.MkdirTemp(dir, "s")
		if err != nil {
			rt.Fatal(err)
		}
		defer os.RemoveAll(sub)
		x := newExplorer(rt, sub)
		setup(x)
		rt.Repeat(x.actions())
		x.settle()
		x.check(true)
	})
}

// settle ends a schedule calmly: no lock left waiting, a daemon that has
// heard everything, its next pass made and heard.
func (x *explorer) settle() {
	x.calm = true
	x.finishLock()
	if x.d == nil {
		x.startDaemon()
	}
	x.drain(x.d)
	x.pass()
	x.drain(x.d)
}

func (x *explorer) fail(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	x.t.Fatalf("%s\nwhat happened:\n  %s\nthe memory then:\n  %s", msg, strings.Join(x.log, "\n  "), x.memoryDump())
}

// memoryDump is the memory on disk, an entry a line, for a failure.
func (x *explorer) memoryDump() string {
	mem, err := state.Load(x.path, "")
	if err != nil {
		return err.Error()
	}
	var lines []string
	for _, id := range append([]string{x.ws}, x.tabs...) {
		t := state.TabTarget(id)
		if id == x.ws {
			t = state.WorkspaceTarget(id)
		}
		lines = append(lines, fmt.Sprintf("%s %s: %+v", t.Kind, id, mem.Entry(t)))
	}
	return strings.Join(lines, "\n  ")
}

var _ = context.Background
