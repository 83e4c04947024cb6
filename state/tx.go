package state

import (
	"slices"
	"time"
)

// Tx is one change of the memory, inside Update, Edit or InMemory: its
// verbs are the only way the memory changes. A Tx is valid only during
// the function it is handed to.
type Tx struct {
	s *State
}

func (tx *Tx) get(t Target) Entry { return tx.s.entries[t.Kind][t.ID] }

// Entry is what the memory holds of t inside the change, as it stands.
func (tx *Tx) Entry(t Target) Entry { return tx.get(t) }

func (tx *Tx) put(t Target, e Entry) { tx.s.entries[t.Kind][t.ID] = e }

// edit changes t's entry when there is one.
func (tx *Tx) edit(t Target, fn func(*Entry)) {
	if e, ok := tx.s.entries[t.Kind][t.ID]; ok {
		fn(&e)
		tx.put(t, e)
	}
}

// change changes t's entry, making one when there is none.
func (tx *Tx) change(t Target, fn func(*Entry)) {
	e := tx.get(t)
	fn(&e)
	tx.put(t, e)
}

// Pend records a rename of ours about to be sent: its label reads as ours
// until PendingTTL after f.Sent, and its flight is followed.
func (tx *Tx) Pend(t Target, f Flight) {
	tx.change(t, func(e *Entry) {
		e.Pending = addPending(e.Pending, Pending{Label: f.Want, Until: f.Sent.Add(PendingTTL).UTC()})
		e.Flights = addFlight(e.Flights, f)
	})
}

// Follow records a rename about to be sent whose label is not ours (a
// label given back, a person's label with its position in front): only
// its flight, so its echo is followed.
func (tx *Tx) Follow(t Target, f Flight) {
	tx.change(t, func(e *Entry) { e.Flights = addFlight(e.Flights, f) })
}

// PersonPrefix records the text a person gave a tab and the label we make
// of it by putting its position in front, before that rename is sent.
func (tx *Tx) PersonPrefix(t Target, text, prefixedAs string, f Flight) {
	tx.change(t, func(e *Entry) {
		e.PersonText, e.PrefixedAs = text, prefixedAs
		e.Flights = addFlight(e.Flights, f)
	})
}

// Named records a label of ours that herdr set: ours, no release, no
// longer missing, and no person's text it was made of.
func (tx *Tx) Named(t Target, label string) { tx.NamedOver(t, label, "") }

// NamedOver is Named for a rename that replaced over ("" when not
// known): a rename event to label right after another is a person's.
func (tx *Tx) NamedOver(t Target, label, over string) {
	tx.change(t, func(e *Entry) {
		e.Label, e.Over, e.MissingSince = label, over, nil
		e.Released, e.ReleasedFrom = false, nil
		e.PersonText, e.PrefixedAs = "", ""
	})
}

// Ours records label, which replaced over ("" when not known: what is
// known of the last label we set stays when it is label), as ours and
// ends a release: a rename of ours landed, or the target carries our
// name already.
func (tx *Tx) Ours(t Target, label, over string) {
	tx.change(t, func(e *Entry) {
		if over == "" && label == e.Label {
			over = e.Over
		}
		e.Label, e.Over, e.Released, e.ReleasedFrom = label, over, false, nil
	})
}

// Disown forgets the last label we set: a person's label shows now, and a
// person choosing that text later must keep it. Pending labels stay until
// they expire.
func (tx *Tx) Disown(t Target) {
	tx.edit(t, func(e *Entry) { e.Label, e.Over = "", "" })
}

// EndRelease ends a release: a person named the target since.
func (tx *Tx) EndRelease(t Target) {
	tx.edit(t, func(e *Entry) { e.Released, e.ReleasedFrom = false, nil })
}

// Unpend forgets a rename that was not sent or that herdr refused: its
// label is not ours, its flight (asked for at sent) ends.
func (tx *Tx) Unpend(t Target, label string, sent time.Time) {
	tx.edit(t, func(e *Entry) {
		e.Pending = slices.DeleteFunc(slices.Clone(e.Pending), func(p Pending) bool { return p.Label == label })
		if len(e.Pending) == 0 {
			e.Pending = nil
		}
		e.Flights = dropFlight(e.Flights, label, sent)
	})
}

// Settle ends the flight that asked for want at sent: its fate is known.
func (tx *Tx) Settle(t Target, want string, sent time.Time) {
	tx.edit(t, func(e *Entry) { e.Flights = dropFlight(e.Flights, want, sent) })
}

// Answer marks the flight that asked for want at sent as answered by
// herdr: it can no longer land later.
func (tx *Tx) Answer(t Target, want string, sent time.Time) {
	tx.edit(t, func(e *Entry) {
		e.Flights = slices.Clone(e.Flights)
		for i, f := range e.Flights {
			if f.Want == want && f.Sent.Equal(sent) {
				e.Flights[i].Answered = true
			}
		}
	})
}

// Decide marks the flight that asked for want at sent as decided (see
// Flight.Decided).
func (tx *Tx) Decide(t Target, want string, sent time.Time) {
	tx.edit(t, func(e *Entry) {
		e.Flights = slices.Clone(e.Flights)
		for i, f := range e.Flights {
			if f.Want == want && f.Sent.Equal(sent) {
				e.Flights[i].Decided = true
			}
		}
	})
}

// Lock freezes the target's label as it shows now.
func (tx *Tx) Lock(t Target, label string) {
	tx.change(t, func(e *Entry) { e.Locked, e.Released, e.ReleasedFrom, e.LockedLabel = true, false, nil, label })
}

// Release hands the target, showing label now, back to automatic naming,
// even a person's label: the release holds while it shows label.
func (tx *Tx) Release(t Target, label string) {
	tx.change(t, func(e *Entry) { e.Locked, e.Released, e.ReleasedFrom, e.LockedLabel = false, true, &label, "" })
}

// Seat records the terminal herdr runs a pane in (Entry.Terminal), making
// an entry when there is none.
func (tx *Tx) Seat(t Target, terminal string) {
	tx.change(t, func(e *Entry) { e.Terminal = terminal })
}

// Move hands what the memory holds of from to to: herdr gave a pane a new
// id (it moved to another workspace) and it is the same pane. An entry
// to already has stays.
func (tx *Tx) Move(from, to Target) {
	e, ok := tx.s.entries[from.Kind][from.ID]
	if _, taken := tx.s.entries[to.Kind][to.ID]; !ok || taken || from.Kind != to.Kind {
		return
	}
	e.MissingSince = nil
	tx.put(to, e)
	delete(tx.s.entries[from.Kind], from.ID)
}

// Forget drops everything remembered of the target.
func (tx *Tx) Forget(t Target) { delete(tx.s.entries[t.Kind], t.ID) }

// Undo forgets what we remember of a target unless a person locked it:
// restore's end, which must not take a lock taken meanwhile with it. A
// rename of ours herdr has not answered yet (a killed daemon's) that may
// still land at now stays followed, its label ours while it may; one
// that can no longer land is forgotten. A label given back (no pending
// label of ours) is no one's to recognise if it lands.
func (tx *Tx) Undo(t Target, now time.Time) {
	e := tx.get(t)
	if e.Locked {
		return
	}
	var left Entry
	for _, f := range e.Flights {
		i := slices.IndexFunc(e.Pending, func(p Pending) bool { return p.Label == f.Want })
		if f.Answered || i < 0 || !MayLand(f.Sent, now) {
			continue
		}
		left.Flights = append(left.Flights, f)
		left.Pending = addPending(left.Pending, e.Pending[i])
	}
	if len(left.Flights) == 0 {
		tx.Forget(t)
		return
	}
	tx.put(t, left)
}

// SetServer records the herdr server the memory describes.
func (tx *Tx) SetServer(id Server) { tx.s.server = id.clone() }

// Prune forgets the targets of kind missing from present for PruneAfter
// (see pruneStep) and reports whether anything changed.
func (tx *Tx) Prune(kind Kind, present map[string]bool, now time.Time) bool {
	return prune(tx.s.entries[kind], present, now)
}

// Revalidate keeps what is remembered of each target that shows one of
// its remembered labels (a session herdr restored) and forgets the rest:
// the memory of a server that restarted without its session would
// otherwise apply to other tabs that reuse its ids. A rename of ours
// sent to the server that is gone never lands now: a kept target's
// flights end, and a label of ours that was pending at now and shows is
// ours. same says whether a target of a kind shows a label remembered
// (herdr's own tab labels are their positions, which move). It returns
// how many targets it kept and forgot.
func (tx *Tx) Revalidate(shows map[Target]string, now time.Time, same func(k Kind, shown, remembered string) bool) (kept, forgot int) {
	for _, kind := range Kinds {
		for id, e := range tx.s.entries[kind] {
			l, ok := shows[Target{kind, id}]
			landed := slices.Contains(e.Landing(now), l)
			locked := e.Locked && same(kind, l, e.LockedLabel)
			if ok && l != "" && (landed || locked || l == e.Label || l == e.PrefixedAs || l == e.PersonText) {
				if landed {
					e.Label = l
				}
				e.Pending, e.Flights = nil, nil
				tx.s.entries[kind][id] = e
				kept++
				continue
			}
			delete(tx.s.entries[kind], id)
			forgot++
		}
	}
	return kept, forgot
}

// addPending puts p last, dropping an earlier copy of its label and the
// oldest beyond MaxPending.
func addPending(ps []Pending, p Pending) []Pending {
	out := slices.DeleteFunc(slices.Clone(ps), func(q Pending) bool { return q.Label == p.Label })
	out = append(out, p)
	if len(out) > MaxPending {
		out = out[len(out)-MaxPending:]
	}
	return out
}

// addFlight adds f, keeping the newest MaxFlights.
func addFlight(fs []Flight, f Flight) []Flight {
	fs = append(slices.Clone(fs), f)
	if len(fs) > MaxFlights {
		fs = fs[len(fs)-MaxFlights:]
	}
	return fs
}

// dropFlight forgets the flight that asked for want at sent.
func dropFlight(fs []Flight, want string, sent time.Time) []Flight {
	i := slices.IndexFunc(fs, func(f Flight) bool { return f.Want == want && f.Sent.Equal(sent) })
	if i < 0 {
		return fs
	}
	fs = slices.Delete(slices.Clone(fs), i, i+1)
	if len(fs) == 0 {
		return nil
	}
	return fs
}

// Edits are changes of the memory gathered before they are written
// together: a pass's, with its renames' records.
type Edits []func(*Tx)

// Add gathers more changes.
func (e *Edits) Add(fns ...func(*Tx)) { *e = append(*e, fns...) }

// Apply makes the changes.
func (e Edits) Apply(tx *Tx) {
	for _, fn := range e {
		fn(tx)
	}
}
