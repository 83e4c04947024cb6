package procwatch

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"
)

// InputWatch tells when processes read their terminals, and when they
// end: a watch of herdr's clients, which read the person's keys, and the
// focus-in a terminal sends when the person comes back to it, from the
// terminal they run in. Unlike a Watcher it looks at no process: it only
// arms the kernel's events (Linux: inotify IN_ACCESS on the terminal, a
// pidfd for the exit), so that between two reads it costs nothing. It is
// safe for concurrent use.
type InputWatch struct {
	k      kernel
	notify chan struct{}
	done   chan struct{}
	mu     sync.Mutex
	// ops are the Watch and Unwatch calls the goroutine has not taken up
	// yet; pending the reports not taken yet.
	ops     []inputOp
	pending map[int]InputReport
	closed  bool
}

// InputReport is what came of a process since the last Take.
type InputReport struct {
	PID int
	// Input: its terminal was read from.
	Input bool
	// Gone: it ended, or its terminal did; it is watched no more.
	Gone bool
}

// inputOp is a call to Watch (add) or Unwatch, answered on done.
type inputOp struct {
	pid  int
	add  bool
	done chan error
}

// NewInputWatch starts a watch of no process. Where the kernel tells no
// one of terminal input (not Linux) it returns ErrUnsupported.
func NewInputWatch() (*InputWatch, error) {
	if !inputEvents {
		return nil, ErrUnsupported
	}
	k, err := newKernel()
	if err != nil {
		return nil, err
	}
	w := &InputWatch{k: k, notify: make(chan struct{}, 1), done: make(chan struct{}), pending: map[int]InputReport{}}
	go w.run()
	return w, nil
}

// Watch arms the events of pid: its controlling terminal's reads and its
// exit. It returns once they are armed, or why they cannot be (no
// terminal among fds 0-2, the process gone, inotify's limits).
func (w *InputWatch) Watch(pid int) error { return w.call(inputOp{pid: pid, add: true}) }

// Unwatch disarms the events of pid.
func (w *InputWatch) Unwatch(pid int) { _ = w.call(inputOp{pid: pid}) }

// call hands op to the goroutine, which alone touches the kernel, and
// waits for its answer.
func (w *InputWatch) call(op inputOp) error {
	op.done = make(chan error, 1)
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return errors.New("procwatch: the input watch is closed")
	}
	w.ops = append(w.ops, op)
	w.mu.Unlock()
	w.k.wake()
	return <-op.done
}

// Changed fires when reports are waiting to be taken.
func (w *InputWatch) Changed() <-chan struct{} { return w.notify }

// Take returns the reports since the last Take, by pid.
func (w *InputWatch) Take() []InputReport {
	w.mu.Lock()
	defer w.mu.Unlock()
	reps := slices.Collect(maps.Values(w.pending))
	clear(w.pending)
	slices.SortFunc(reps, func(a, b InputReport) int { return a.PID - b.PID })
	return reps
}

// Close disarms every event and stops the watch.
func (w *InputWatch) Close() error {
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

// run is the watch's goroutine: it waits for the kernel's events, and
// takes up the calls that woke it.
func (w *InputWatch) run() {
	defer close(w.done)
	procs := map[int]*shell{}
	for {
		evs := w.k.wait(time.Hour)
		w.mu.Lock()
		ops, closed := w.ops, w.closed
		w.ops = nil
		w.mu.Unlock()
		for _, op := range ops {
			op.done <- w.apply(procs, op)
		}
		if closed {
			for _, sh := range procs {
				w.disarm(sh)
			}
			return
		}
		for _, ev := range evs {
			if procs[ev.sh.pid] != ev.sh {
				continue // unwatched meanwhile
			}
			if !ev.input {
				w.disarm(ev.sh)
				delete(procs, ev.sh.pid)
			}
			w.report(InputReport{PID: ev.sh.pid, Input: ev.input, Gone: !ev.input})
		}
	}
}

// apply takes up one call.
func (w *InputWatch) apply(procs map[int]*shell, op inputOp) error {
	if !op.add {
		if sh := procs[op.pid]; sh != nil {
			w.disarm(sh)
			delete(procs, op.pid)
		}
		return nil
	}
	if procs[op.pid] != nil {
		return nil
	}
	sh := &shell{key: strconv.Itoa(op.pid), pid: op.pid}
	if err := w.k.watchShell(sh); err != nil {
		w.k.unwatchShell(sh)
		return fmt.Errorf("watch the terminal of pid %d: %w", op.pid, err)
	}
	if err := w.k.watchExits(sh, []int{op.pid}); err != nil {
		w.disarm(sh)
		return fmt.Errorf("watch the exit of pid %d: %w", op.pid, err)
	}
	procs[op.pid] = sh
	return nil
}

func (w *InputWatch) disarm(sh *shell) {
	w.k.unwatchExits(sh)
	w.k.unwatchShell(sh)
}

// report adds r to the pid's pending report.
func (w *InputWatch) report(r InputReport) {
	w.mu.Lock()
	p := w.pending[r.PID]
	p.PID, p.Input, p.Gone = r.PID, p.Input || r.Input, p.Gone || r.Gone
	w.pending[r.PID] = p
	w.mu.Unlock()
	select {
	case w.notify <- struct{}{}:
	default:
	}
}
