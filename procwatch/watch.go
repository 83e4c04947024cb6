package procwatch

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ErrUnsupported: this platform has no watch; the caller polls instead.
var ErrUnsupported = errors.New("no local process watch on this platform")

// Supported says whether this platform has a watch (New may still fail
// for want of the kernel's resources).
func Supported() bool { return supported }

// Shell is a shell to watch, under the key its reports carry (the
// daemon's pane id).
type Shell struct {
	Key string
	PID int
	// Input asks for a report of input read from the shell's terminal
	// even when nothing else changes: an agent in front reads the prompt
	// typed or sent to it, and its status changes next.
	Input bool
}

// Report is what came of one key since the last Take.
type Report struct {
	Key string
	// Changed: the program in front or the shell's directory may have
	// changed.
	Changed bool
	// Input: its terminal was read from (Shell.Input only).
	Input bool
}

// Timings of the looks.
const (
	// slowEvery is how often a shell whose changes come with an event is
	// looked at anyway: what no event precedes (Ctrl-Z, the tail of a
	// pipeline ending) waits at most this long.
	slowEvery = time.Second
	// fastEvery is how often a shell is looked at while some change of
	// it would come with no event (no terminal to watch, no pidfd, or a
	// directory change on macOS).
	fastEvery = 100 * time.Millisecond
	// cdEvery is how often a shell at its prompt is looked at where no
	// event comes before a cd (macOS, where a cd forks nothing and
	// terminal input is told to no one).
	cdEvery = 250 * time.Millisecond
)

// followUps are the looks after an event, from the event: a program
// starts (fork, then exec) within a few ms of the Enter that asks for it
// on an idle machine and within hundreds on a loaded one; a shell takes
// its terminal back a moment after its program exits.
var followUps = []time.Duration{0, 5 * time.Millisecond, 15 * time.Millisecond, 40 * time.Millisecond,
	100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond}

// minGap spaces a shell's looks however fast its events come (a paste
// read from its terminal a byte at a time): at most 200 looks a second.
const minGap = 5 * time.Millisecond

// inputGap spaces a shell's input reports: a person types several keys
// a second, and one report per burst is what the reader needs.
const inputGap = 100 * time.Millisecond

// Stats count a watcher's work since it started.
type Stats struct {
	Looks  uint64 // looks at a shell
	Events uint64 // kernel events that started a run of looks
}

// Watcher watches local shells and reports those whose foreground program
// or directory may have changed. It is safe for concurrent use.
type Watcher struct {
	k      kernel
	notify chan struct{}
	mu     sync.Mutex
	// pending are the reports not taken yet; next is the set of shells
	// Set asked for, not taken by the loop yet (nil: none); inputs are
	// the keys whose terminal input is watched.
	pending map[string]Report
	next    []Shell
	inputs  map[string]bool
	closed  bool
	done    chan struct{}
	looks   atomic.Uint64
	events  atomic.Uint64
}

// New starts a watcher with no shells. On platforms without one it
// returns ErrUnsupported.
func New() (*Watcher, error) { return newWith(newKernel) }

func newWith(newKernel func() (kernel, error)) (*Watcher, error) {
	k, err := newKernel()
	if err != nil {
		return nil, err
	}
	w := &Watcher{k: k, notify: make(chan struct{}, 1), pending: map[string]Report{}, inputs: map[string]bool{}, done: make(chan struct{})}
	go w.run()
	return w, nil
}

// Set replaces the shells watched. Shells kept from the last set keep
// their state; a new one is looked at once, reporting nothing.
func (w *Watcher) Set(shells []Shell) {
	w.mu.Lock()
	w.next = append([]Shell{}, shells...)
	w.mu.Unlock()
	w.k.wake()
}

// Changed fires when reports are waiting to be taken.
func (w *Watcher) Changed() <-chan struct{} { return w.notify }

// Take returns the reports since the last Take, by key.
func (w *Watcher) Take() []Report {
	w.mu.Lock()
	defer w.mu.Unlock()
	reps := slices.Collect(maps.Values(w.pending))
	clear(w.pending)
	slices.SortFunc(reps, func(a, b Report) int { return strings.Compare(a.Key, b.Key) })
	return reps
}

// InputWatched says whether input reports can come for key: the shell
// was asked for them and its terminal's input is watched (Linux, while
// inotify has watches to spare). It is true only once the watcher has
// taken up the last Set.
func (w *Watcher) InputWatched(key string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.inputs[key]
}

// Stats says how much the watcher has looked.
func (w *Watcher) Stats() Stats {
	return Stats{Looks: w.looks.Load(), Events: w.events.Load()}
}

// Close stops the watcher and releases what it holds of the kernel.
func (w *Watcher) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	w.mu.Unlock()
	w.k.wake()
	<-w.done
	return w.k.close()
}

func (w *Watcher) report(key string, changed, input bool) {
	w.mu.Lock()
	r := w.pending[key]
	r.Key, r.Changed, r.Input = key, r.Changed || changed, r.Input || input
	w.pending[key] = r
	w.mu.Unlock()
	select {
	case w.notify <- struct{}{}:
	default:
	}
}

// run is the watcher's goroutine: it waits for the kernel's events or the
// next look due, whichever comes first.
func (w *Watcher) run() {
	defer close(w.done)
	shells := map[string]*shell{}
	for {
		now := time.Now()
		wait := time.Hour
		for _, sh := range shells {
			wait = min(wait, max(0, sh.due().Sub(now)))
		}
		evs := w.k.wait(wait)
		w.mu.Lock()
		next, closed := w.next, w.closed
		w.next = nil
		w.mu.Unlock()
		if closed {
			for _, sh := range shells {
				w.drop(sh)
			}
			return
		}
		if next != nil {
			w.reset(shells, next)
		}
		now = time.Now()
		for _, ev := range evs {
			if sh := ev.sh; shells[sh.key] == sh {
				w.events.Add(1)
				sh.trigger(now)
				if ev.input && sh.input && now.Sub(sh.inputAt) >= inputGap {
					sh.inputAt = now
					w.report(sh.key, false, true)
				}
			}
		}
		for _, sh := range shells {
			if !sh.due().After(now) {
				w.look(sh, now)
			}
		}
	}
}

// reset makes shells hold the set asked for.
func (w *Watcher) reset(shells map[string]*shell, want []Shell) {
	keep := map[string]bool{}
	for _, s := range want {
		keep[s.Key] = true
		if old := shells[s.Key]; old != nil && old.pid == s.PID {
			old.input = s.Input
			continue
		} else if old != nil {
			w.drop(old)
		}
		sh := &shell{key: s.Key, pid: s.PID, input: s.Input}
		shells[s.Key] = sh
		w.start(sh)
	}
	for key, sh := range shells {
		if !keep[key] {
			w.drop(sh)
			delete(shells, key)
		}
	}
	inputs := map[string]bool{}
	for key, sh := range shells {
		inputs[key] = sh.input && sh.ttyEvents && !sh.gone
	}
	w.mu.Lock()
	w.inputs = inputs
	w.mu.Unlock()
}

// start takes a shell's first look and arms its events.
func (w *Watcher) start(sh *shell) {
	fp, err := w.k.read(sh)
	w.looks.Add(1)
	if err != nil {
		sh.gone = true
		return
	}
	sh.fp = fp
	sh.shellEvents = w.k.watchShell(sh)
	w.follow(sh)
	sh.lookedAt = time.Now()
}

func (w *Watcher) drop(sh *shell) {
	w.k.unwatchExit(sh)
	w.k.unwatchShell(sh)
	w.k.forget(sh)
	sh.gone = true
}

// look reads the shell again and reports it when anything changed.
func (w *Watcher) look(sh *shell, now time.Time) {
	w.looks.Add(1)
	sh.looked(now)
	fp, err := w.k.read(sh)
	if err != nil {
		// The shell is gone (its pane closed, or it exited): one report,
		// and the next Set drops it.
		w.drop(sh)
		w.report(sh.key, true, false)
		return
	}
	if fp == sh.fp {
		return
	}
	group := fp.pgid != sh.fp.pgid
	sh.fp = fp
	if group {
		w.follow(sh)
	}
	w.report(sh.key, true, false)
}

// follow arms the exit event of the program now in front, if any.
func (w *Watcher) follow(sh *shell) {
	w.k.unwatchExit(sh)
	sh.exitEvents = false
	if sh.fp.pgid > 0 && sh.fp.pgid != sh.pid {
		sh.exitEvents = w.k.watchExit(sh, sh.fp.pgid)
	}
}

// event is one of the kernel's events for a shell: input read from its
// terminal, or another (a fork, the exit of its program).
type event struct {
	sh    *shell
	input bool
}

// fingerprint is what a look reads of a shell: a change in it is a change
// a tab name may follow.
type fingerprint struct {
	pgid   int    // the terminal's foreground process group
	leader string // its leader's command name ("" when gone or the shell's)
	cwd    string // the shell's directory
}

// shell is one watched shell: its last look, and when it is looked at
// next.
type shell struct {
	key string
	pid int
	fp  fingerprint
	// shellEvents: events come before a program starts in it (Linux:
	// input from its terminal; macOS: its forks). exitEvents: the
	// program in front announces its exit.
	shellEvents, exitEvents bool
	// ttyEvents: the events are input read from its terminal, which
	// comes before a cd too (set by the kernel).
	ttyEvents bool
	// input: report terminal input (Shell.Input); inputAt: the last
	// such report.
	input    bool
	inputAt  time.Time
	gone     bool
	lookedAt time.Time
	// A run of looks: started at runAt, next is followUps[run].
	runAt time.Time
	run   int
	// os is the kernel's own state of the shell (open files).
	os any
}

// trigger starts a run of looks now.
func (sh *shell) trigger(now time.Time) { sh.runAt, sh.run = now, 0 }

// looked moves the shell's schedule past a look at now.
func (sh *shell) looked(now time.Time) {
	sh.lookedAt = now
	for !sh.runAt.IsZero() && sh.run < len(followUps) && !sh.runAt.Add(followUps[sh.run]).After(now) {
		sh.run++
	}
	if sh.run >= len(followUps) {
		sh.runAt = time.Time{}
	}
}

// due is when the shell is looked at next.
func (sh *shell) due() time.Time {
	if sh.gone {
		return time.Now().Add(time.Hour)
	}
	every := slowEvery
	front := sh.fp.pgid == sh.pid
	switch {
	case !sh.shellEvents, !front && !sh.exitEvents:
		every = fastEvery
	case front && !sh.ttyEvents:
		every = cdEvery
	}
	// Slow looks fall on whole seconds, so that one wake-up serves every
	// shell.
	next := sh.lookedAt.Add(every)
	if every == slowEvery {
		next = sh.lookedAt.Truncate(slowEvery).Add(slowEvery)
	}
	if !sh.runAt.IsZero() && sh.run < len(followUps) {
		next = earlier(next, sh.runAt.Add(followUps[sh.run]))
	}
	return later(next, sh.lookedAt.Add(minGap))
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// kernel is what a platform offers the watcher. All but wake run on the
// watcher's goroutine.
type kernel interface {
	// read looks at a shell.
	read(sh *shell) (fingerprint, error)
	// watchShell arms the events that come before a program starts in
	// the shell (and sets sh.ttyEvents); false when there are none.
	watchShell(sh *shell) bool
	unwatchShell(sh *shell)
	// watchExit arms the exit event of process pid, the leader in front
	// of sh; false when there is none.
	watchExit(sh *shell, pid int) bool
	unwatchExit(sh *shell)
	// forget releases anything else held for sh.
	forget(sh *shell)
	// wait returns the events that came within timeout, or sooner when
	// woken.
	wait(timeout time.Duration) []event
	wake()
	close() error
}
