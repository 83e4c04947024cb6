// Package triage keeps what the daemon has seen of herdr's session (a
// View: the last snapshot, kept current with our own renames and the
// panes events told of, and the history beyond it) and says of each event
// whether it may change a name that view would give (Triage.Judge): only
// news costs a pass. A pass never builds a model from event payloads;
// events only say when to look.
//
// # Who calls what
//
// A View and the Triage over it belong to one goroutine, the daemon's
// loop: it sets the View from each pass's snapshot, takes in what its
// renames left showing (View.Shows), and judges, then learns, each event.
// Nothing here does I/O.
package triage
