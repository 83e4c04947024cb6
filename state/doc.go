// Package state is herdrtabrenamer's memory of one herdr server, kept in
// a JSON file: for every tab, workspace and pane it names, the label it
// set last, the labels it asked for that may still land (each for
// PendingTTL), its renames whose fate is not known yet (flights), and what
// a person said of it (a lock and the label locked, a release, the text a
// person gave a tab whose position we put in front).
//
// Only this package changes the memory, through the verbs of Tx (Pend,
// Named, Lock, Release, Forget, ...) inside Update or Edit; everyone else
// reads copies (Entry). The daemon and the lock, release and restore
// commands share the file through an flock; writes are atomic (renameio)
// with their temporary files beside the state. A State is safe for
// concurrent use: the daemon's loop and its rename workers share one.
//
// A file that cannot be read as a state (cut short, a wrong type, too
// large, not a regular file) or that a newer herdrtabrenamer wrote is
// never overwritten: the State is read-only (Damaged says why), a copy of
// a damaged file is kept beside it, and nothing is renamed until a person
// fixes or removes the file (Refresh notices either).
package state
