// Package restore undoes our names: every tab whose label is ours gets
// herdr's default back (its position number), every pane label of ours
// is cleared, our sidebar tokens are cleared, and names people chose
// stay. Whose a label is, and what it gets back, is package owner's rule
// (owner.Restore, owner.RestorePane); this room runs the undo: it stops a
// running daemon (it would name the tabs again at once) and holds the
// server's claims meanwhile, gives each label back through the renamer
// (looked at right before, followed to its echo), forgets what it undid,
// and says what it did.
//
// # Who calls what
//
// Run belongs to the goroutine that calls it, a command; the daemon it
// makes for the undo is that goroutine's too.
package restore
