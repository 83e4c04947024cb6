package localwatch

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/herdrtabrenamer/herdrtabrenamer/procwatch"
)

// Watch is the kernel's watch of the local shells: what it reports is
// handled as a nudge for the pane, so the quick-command rules, --settle
// and whose a label is apply unchanged. A nil Watch is one that does not
// run: it watches nothing and reports nothing.
type Watch struct {
	shells *Shells
	w      *procwatch.Watcher
	// given are the shells given to the watch, by pane id.
	given map[string]procwatch.Shell
	// blind is the last Blind reported ("<nil>" when none).
	blind string
}

// Start starts the kernel's watch of the shells; an error wrapping
// procwatch.ErrUnsupported where the platform has none. While it runs,
// its last looks at the shells' terminals are Shells.Front's.
func (s *Shells) Start() (*Watch, error) {
	w, err := procwatch.New()
	if err != nil {
		return nil, err
	}
	s.watcher.Store(w)
	return &Watch{shells: s, w: w, given: map[string]procwatch.Shell{}, blind: fmt.Sprint(nil)}, nil
}

// Stop ends the watch.
func (w *Watch) Stop() {
	if w != nil {
		w.shells.watcher.Store(nil)
		_ = w.w.Close()
	}
}

// Changed fires when the watch has panes to report; nil (never) when off.
func (w *Watch) Changed() <-chan struct{} {
	if w == nil {
		return nil
	}
	return w.w.Changed()
}

// Take hands over what the watch saw since it last did.
func (w *Watch) Take() []procwatch.Report { return w.w.Take() }

// Watched says whether the watch looks at pane's shell.
func (w *Watch) Watched(pane string) bool {
	if w == nil {
		return false
	}
	_, ok := w.given[pane]
	return ok
}

// InputWatched says whether the watch sees pane's terminal read input.
func (w *Watch) InputWatched(pane string) bool { return w != nil && w.w.InputWatched(pane) }

// Rewatch gives the watch the shells the last pass found local, asking
// for their terminal input where agent says an agent runs, and for the
// writes to their terminals with output (a new terminal title comes that
// way, while herdr's events of it lag), and says whether every lead pane
// listed is among them.
func (w *Watch) Rewatch(agent func(paneID string) bool, leads []string, output bool) (allWatched bool) {
	if w == nil {
		return false
	}
	want := map[string]procwatch.Shell{}
	for id, sh := range w.shells.known {
		want[id] = procwatch.Shell{Key: id, PID: sh.PID, Input: agent(id), Output: output}
	}
	if !maps.Equal(want, w.given) {
		w.given = want
		w.w.Set(slices.SortedFunc(maps.Values(want), func(a, b procwatch.Shell) int { return strings.Compare(a.Key, b.Key) }))
	}
	for _, id := range leads {
		if !w.Watched(id) {
			return false
		}
	}
	return len(leads) > 0
}

// Blind says, when it changed since the last call, that shells are
// watched by looking at them for want of the kernel's events (and which
// limit to raise), or that the events are back (err nil).
func (w *Watch) Blind() (changed bool, err error) {
	blind := w.w.Blind()
	if text := fmt.Sprint(blind); text != w.blind {
		w.blind = text
		return true, blind
	}
	return false, nil
}
