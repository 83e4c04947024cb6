package procwatch

import (
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// run is the watcher's goroutine: it waits for the kernel's events or the
// next look due, whichever comes first.
func (w *Watcher) run() {
	defer close(w.done)
	shells := map[string]*shell{}
	for {
		now := time.Now()
		wait := time.Hour
		for _, sh := range shells {
			wait = min(wait, max(0, sh.due().Sub(now)), max(0, sh.outputDue(now).Sub(now)))
		}
		evs := w.k.wait(wait)
		w.wakes.Add(1)
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
		changed := false
		if next != nil {
			w.reset(shells, next)
			changed = true
		}
		now = time.Now()
		w.handle(shells, evs, now)
		for _, sh := range shells {
			w.owed(sh, now)
			if !sh.gone && !sh.due().After(now) {
				changed = w.look(sh, now) || changed
			}
		}
		changed = w.retry(shells, now) || changed
		if changed {
			w.noteEvents(shells)
		}
	}
}

// handle starts a run of looks for each event's shell, and reports input
// where it was asked for.
func (w *Watcher) handle(shells map[string]*shell, evs []event, now time.Time) {
	for _, ev := range evs {
		sh := ev.sh
		if shells[sh.key] != sh || sh.gone {
			continue
		}
		if ev.output {
			// A program printing changes no program: no look, only
			// the report asked for, once due.
			sh.wrote(now)
			continue
		}
		w.events.Add(1)
		sh.trigger(now)
		if ev.input && sh.input && now.Sub(sh.inputAt) >= inputGap {
			sh.inputAt = now
			w.report(Report{Key: sh.key, Input: true, Front: sh.front})
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
			if old.output != s.Output {
				w.rearm(old, s.Output)
			}
			continue
		} else if old != nil {
			w.drop(old)
		}
		sh := &shell{key: s.Key, pid: s.PID, input: s.Input, output: s.Output}
		shells[s.Key] = sh
		w.start(sh)
	}
	for key, sh := range shells {
		if !keep[key] {
			w.drop(sh)
			delete(shells, key)
		}
	}
}

// noteEvents publishes which shells' input is watched and why some go
// without events, and signals Changed when either changed: the daemon
// plans its status poll on the one and shows the other.
func (w *Watcher) noteEvents(shells map[string]*shell) {
	inputs := map[string]bool{}
	for key, sh := range shells {
		inputs[key] = sh.input && sh.ttyEvents && !sh.gone
	}
	blind := blindness(shells)
	w.mu.Lock()
	changed := !maps.Equal(inputs, w.inputs) || errText(blind) != errText(w.blind)
	w.inputs, w.blind = inputs, blind
	w.mu.Unlock()
	if changed {
		w.signal()
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// start takes a shell's first look and arms its events.
func (w *Watcher) start(sh *shell) {
	now := time.Now()
	r, err := procinfo.NewFrontReader(sh.pid)
	if err == nil {
		sh.reader = r
		sh.front, err = r.Look(true)
	}
	w.looks.Add(1)
	w.deep.Add(1)
	if err != nil {
		w.drop(sh)
		return
	}
	sh.watchErr = w.k.watchShell(sh)
	sh.shellEvents = sh.watchErr == nil
	sh.retryAt = now.Add(w.retryGap)
	w.follow(sh)
	sh.lookedAt, sh.deepAt = now, now
	w.setFront(sh.key, sh.front, false)
}

func (w *Watcher) drop(sh *shell) {
	w.k.unwatchExits(sh)
	w.k.unwatchShell(sh)
	if sh.reader != nil {
		sh.reader.Close()
	}
	sh.gone = true
	w.setFront(sh.key, procinfo.Front{}, true)
}

// look reads the shell again and reports it when anything changed. It
// says whether the shell's events changed.
func (w *Watcher) look(sh *shell, now time.Time) bool {
	deep := sh.deepNow(now)
	w.looks.Add(1)
	if deep {
		w.deep.Add(1)
	}
	sh.looked(now, deep)
	f, err := sh.reader.Look(deep)
	if err != nil {
		// The shell is gone (its pane closed, or it exited): one report,
		// and the next Set drops it.
		w.drop(sh)
		w.report(Report{Key: sh.key, Changed: true, Gone: true})
		return true
	}
	if f.Equal(sh.front) {
		return false
	}
	sh.front = f
	w.setFront(sh.key, f, false)
	if !deep {
		// A quick look found a change: deep looks follow it while the
		// program settles (a fork execs, a shell takes its terminal).
		sh.trigger(now)
	}
	w.report(Report{Key: sh.key, Changed: true, Front: f})
	return w.follow(sh)
}

// follow arms the exit events of the processes now in front, if they
// changed, and says whether the shell's events did.
func (w *Watcher) follow(sh *shell) bool {
	var pids []int
	if l := sh.front.Leader.PID; l > 0 && l != sh.pid {
		pids = append(pids, l)
	}
	if c := sh.front.Child.PID; c > 0 {
		pids = append(pids, c)
	}
	if slices.Equal(pids, sh.exits) && (sh.exitEvents || len(pids) == 0) {
		return false
	}
	was := sh.exitErr
	w.k.unwatchExits(sh)
	sh.exits, sh.exitEvents, sh.exitErr = pids, true, nil
	if len(pids) > 0 {
		if err := w.k.watchExits(sh, pids); err != nil {
			sh.exitEvents = false
			var l *lack
			if errors.As(err, &l) {
				sh.exitErr = err
			}
		}
	}
	return was != sh.exitErr
}

// retry asks again for the events the kernel refused for want of a
// resource, every w.retryGap, and says whether any came back.
func (w *Watcher) retry(shells map[string]*shell, now time.Time) bool {
	back := false
	for _, sh := range shells {
		var l *lack
		if sh.gone || sh.shellEvents || !errors.As(sh.watchErr, &l) || now.Before(sh.retryAt) {
			continue
		}
		sh.retryAt = now.Add(w.retryGap)
		if err := w.k.watchShell(sh); err != nil {
			sh.watchErr = err
			continue
		}
		sh.watchErr, sh.shellEvents, back = nil, true, true
	}
	return back
}
