package daemon

// edge decides when event news runs a pass. The first news after a quiet
// spell runs one at once: a trailing-only debounce made every change wait
// the whole window. News inside the window that follows
// is coalesced into one pass at its end, and that pass opens a new window,
// so a storm costs at most one pass per window however long it lasts.
//
// edge holds no clock: the loop owns the one timer and tells edge when it
// fired, which keeps the rule testable without sleeping.
type edge struct {
	open    bool // a window is running: news waits for its end
	pending bool // news came inside the window
}

// news reports whether news that just arrived runs a pass now. When it
// does, the caller runs the pass and starts the window timer.
func (e *edge) news() (runNow bool) {
	if e.open {
		e.pending = true
		return false
	}
	e.open = true
	return true
}

// fired is the window's end. runNow: news came inside it, so the caller
// runs one pass and starts the timer again (the window stays open). Else
// the spell is quiet again and the next news runs at once.
func (e *edge) fired() (runNow bool) {
	if e.pending {
		e.pending = false
		return true
	}
	e.open = false
	return false
}

// covered is called when a pass that reads everything ran for another
// reason (a poll tick, a nudge) after the news: it saw what the news was
// about, so the trailing pass is no longer needed.
func (e *edge) covered() { e.pending = false }
