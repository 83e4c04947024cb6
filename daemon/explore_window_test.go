package daemon

import (
	"fmt"
	"slices"

	"pgregory.net/rapid"

	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// What happens inside the window of a rename of ours, between the look
// before it and herdr applying it, and after herdr applied it, before
// its answer: a person acts, lock runs, a put-back runs on its own
// goroutine, the process dies.

// act is one thing that may happen inside a window; do says whether it
// ended the window's process (a kill).
type act struct {
	name string
	do   func(who *proc, t state.Target) (ended bool)
}

// insideActs are what may happen before herdr applies who's rename of t.
func (x *explorer) insideActs(who *proc, t state.Target) []act {
	return []act{
		{"a person renames it", func(_ *proc, t state.Target) bool {
			x.personRename(t, rapid.SampledFrom(labels).Draw(x.t, "label"))
			return false
		}},
		{"lock it", func(who *proc, t state.Target) bool {
			// A tab a herdr restart or a move closed inside the window
			// is gone.
			if t.Kind == state.Tab && x.depth < 3 && who != x.lock && slices.Contains(x.tabs, t.ID) {
				x.lockTab(slices.Index(x.tabs, t.ID))
			}
			return false
		}},
		{"lock another tab", func(who *proc, _ state.Target) bool {
			if x.depth < 3 && who != x.lock {
				x.lockTab(rapid.IntRange(0, len(x.tabs)-1).Draw(x.t, "tab"))
			}
			return false
		}},
		x.lockGoesOn(), x.lockEnds(), x.putBackRuns(),
		{"the process dies", func(who *proc, _ state.Target) bool { x.killInside(who); return true }},
	}
}

// afterActs are what may happen after herdr applied who's rename of t,
// before its answer reaches who.
func (x *explorer) afterActs(who *proc, t state.Target) []act {
	return []act{
		{"a person renames it", func(_ *proc, t state.Target) bool {
			x.personRename(t, rapid.SampledFrom(labels).Draw(x.t, "label"))
			return false
		}},
		x.lockGoesOn(), x.lockEnds(), x.putBackRuns(),
		{"the process dies", func(who *proc, _ state.Target) bool { x.killInside(who); return true }},
	}
}

// lockGoesOn lets a lock command waiting for renames of ours on their way
// take one more step.
func (x *explorer) lockGoesOn() act {
	return act{"lock goes on", func(who *proc, _ state.Target) bool {
		if x.depth < 3 && who != x.lock {
			x.stepLock()
		}
		return false
	}}
}

// lockEnds lets a lock command run to its end: it stops waiting for the
// renames of ours on their way after its bound, looks, and returns.
func (x *explorer) lockEnds() act {
	return act{"lock runs to its end", func(who *proc, _ state.Target) bool {
		if x.depth < 3 && who != x.lock {
			x.finishLock()
		}
		return false
	}}
}

// putBackRuns runs a put-back the daemon started, on its own goroutine:
// its look and its rename; the daemon takes in what it did later, when
// its loop is free again.
func (x *explorer) putBackRuns() act {
	return act{"a put-back runs", func(who *proc, _ state.Target) bool {
		if p := x.d; p != nil && x.depth < 3 && len(p.spawned) > 0 {
			x.runPutBackWork(p)
		}
		return false
	}}
}

// runPutBackWork runs the oldest put-back p started, without concluding
// it: p's loop takes its result in later (runPutBack, drain).
func (x *explorer) runPutBackWork(p *proc) {
	f, from := p.spawned[0], p.spawnedAt[0]
	p.spawned, p.spawnedAt = p.spawned[1:], p.spawnedAt[1:]
	p.running++
	x.note("%s's put-back runs", p.name)
	was := x.putBackFrom
	x.putBackFrom = from
	defer func() { x.putBackFrom = was }()
	f()
}

// open opens the window of who's rename of t to want, just sent.
func (x *explorer) open(who *proc, t state.Target, want string) {
	mem, _ := state.Load(x.path, "")
	ours := who == x.d && x.putBackFrom < 0 && slices.ContainsFunc(mem.Entry(t).Pending, func(p state.Pending) bool { return p.Label == want })
	x.windows = append(x.windows, window{t: t, want: want, sendNo: x.sends, ours: ours})
}

// applied notes that herdr applied the rename of the innermost window.
// A person's label given back by the daemon's put-back must not be taken
// again by a rename of ours sent after that put-back was decided
// (docs/names.md: passes send no rename of a tab while a put-back is on its
// way to it): herdr applies renames in order, and one sent then may land
// after it.
func (x *explorer) applied(who *proc, t state.Target) {
	w := &x.windows[len(x.windows)-1]
	w.applied = true
	if w.overPutBack {
		x.bad = append(x.bad, fmt.Sprintf("%s %s: a rename of ours to %q, sent while a person's label was on its way back, took it again",
			t.Kind, t.ID, w.want))
	}
	if who != x.d || x.putBackFrom < 0 {
		return
	}
	for i := range x.windows[:len(x.windows)-1] {
		if o := &x.windows[i]; o.t == t && o.ours && !o.applied && o.sendNo > x.putBackFrom {
			o.overPutBack = true
		}
	}
}
