package state

import "time"

// PruneAfter is how long a target must be missing from full passes before
// its entry is dropped: one empty or short snapshot (a glitch, a restart)
// must never wipe our memory, or our own names would later look human.
const PruneAfter = time.Minute

// pruneStep is the one rule for forgetting targets: one missing from a
// full pass is marked, one seen again is unmarked, and one missing for
// PruneAfter is dropped (keep false).
func pruneStep(e Entry, present bool, now time.Time) (next Entry, keep, changed bool) {
	since := e.MissingSince
	switch {
	case present && since != nil:
		e.MissingSince = nil
		return e, true, true
	case present:
		return e, true, false
	case since == nil:
		t := now.UTC()
		e.MissingSince = &t
		return e, true, true
	case now.Sub(*since) >= PruneAfter:
		return e, false, true
	}
	return e, true, false
}

// prune applies pruneStep to every entry and reports whether anything
// changed.
func prune(entries map[string]Entry, present map[string]bool, now time.Time) bool {
	changed := false
	for id, e := range entries {
		next, keep, c := pruneStep(e, present[id], now)
		switch {
		case !keep:
			delete(entries, id)
		case c:
			entries[id] = next
		}
		changed = changed || c
	}
	return changed
}

// NeedsPrune reports whether pruning kind against present would change
// anything, without changing it: an idle pass must not touch the disk.
func (s *State) NeedsPrune(kind Kind, present map[string]bool, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, e := range s.entries[kind] {
		if _, _, c := pruneStep(e, present[id], now); c {
			return true
		}
	}
	return false
}
