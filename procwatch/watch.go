package procwatch

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
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
	// Output asks for reports of writes to the shell's terminal (Linux
	// only), spaced as output.go says: a new terminal title comes that
	// way.
	Output bool
}

// Report is what came of one key since the last Take.
type Report struct {
	Key string
	// Changed: the program in front, its directory or the shell's
	// changed, or the shell is gone.
	Changed bool
	// Input: its terminal was read from (Shell.Input only).
	Input bool
	// Output: a program wrote to its terminal (Shell.Output only).
	Output bool
	// Gone: the shell has ended (or can be read no more); the next Set
	// drops it.
	Gone bool
	// Front is the last look at the shell when the report was made: what
	// changed, as the look that saw it read it. Zero for a shell gone.
	Front procinfo.Front
}

// Stats count a watcher's work since it started.
type Stats struct {
	Looks  uint64 // looks at a shell, quick or deep
	Deep   uint64 // of them, deep looks (command lines and directories)
	Events uint64 // kernel events that started a run of looks
	Wakes  uint64 // times the watcher woke, for events or for looks due
}

// Watcher watches local shells and reports those whose foreground program
// or directory changed, with what it read. It is safe for concurrent use.
type Watcher struct {
	k      kernel
	notify chan struct{}
	mu     sync.Mutex
	// pending are the reports not taken yet; next is the set of shells
	// Set asked for, not taken by the loop yet (nil: none); inputs are
	// the keys whose terminal input is watched; fronts are the last
	// looks, by key; blind is why some shells go without events.
	pending  map[string]Report
	next     []Shell
	inputs   map[string]bool
	fronts   map[string]procinfo.Front
	blind    error
	closed   bool
	done     chan struct{}
	retryGap time.Duration // how often refused events are asked for again
	looks    atomic.Uint64
	deep     atomic.Uint64
	events   atomic.Uint64
	wakes    atomic.Uint64
}

// New starts a watcher with no shells. On platforms without one it
// returns ErrUnsupported.
func New() (*Watcher, error) { return newWith(newKernel, retryEvery) }

// newWith starts a watcher on the kernel newKernel makes, asking every
// retry for the events it refused.
func newWith(newKernel func() (kernel, error), retry time.Duration) (*Watcher, error) {
	k, err := newKernel()
	if err != nil {
		return nil, err
	}
	w := &Watcher{k: k, notify: make(chan struct{}, 1), pending: map[string]Report{}, inputs: map[string]bool{},
		fronts: map[string]procinfo.Front{}, done: make(chan struct{}), retryGap: retry}
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

// Changed fires when reports are waiting to be taken, or when which
// shells' input is watched (InputWatched) or Blind changed.
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

// Front is the last look at the shell watched under key: at most a
// second old (slowEvery), and any change since reported. false when key
// is not watched, its shell is gone, or the watcher has not taken up the
// Set that added it yet.
func (w *Watcher) Front(key string) (procinfo.Front, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f, ok := w.fronts[key]
	return f, ok
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

// Blind is nil while the kernel's events work for every watched shell;
// else it says, as one *BlindError per cause (joined), what is missing,
// for how many shells, and which limit to raise. Shells without events
// are still watched, by looking at them a few times a second.
func (w *Watcher) Blind() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.blind
}

// Stats says how much the watcher has looked.
func (w *Watcher) Stats() Stats {
	return Stats{Looks: w.looks.Load(), Deep: w.deep.Load(), Events: w.events.Load(), Wakes: w.wakes.Load()}
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

// report adds r to the key's pending report.
func (w *Watcher) report(r Report) {
	w.mu.Lock()
	p := w.pending[r.Key]
	p.Key, p.Front = r.Key, r.Front
	p.Changed, p.Input, p.Gone = p.Changed || r.Changed, p.Input || r.Input, p.Gone || r.Gone
	p.Output = p.Output || r.Output
	w.pending[r.Key] = p
	w.mu.Unlock()
	w.signal()
}

// signal fires Changed unless it is already pending.
func (w *Watcher) signal() {
	select {
	case w.notify <- struct{}{}:
	default:
	}
}

// setFront records the last look at key; gone: it is no more.
func (w *Watcher) setFront(key string, f procinfo.Front, gone bool) {
	w.mu.Lock()
	if gone {
		delete(w.fronts, key)
	} else {
		w.fronts[key] = f
	}
	w.mu.Unlock()
}
