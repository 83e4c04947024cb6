package daemon

import (
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// stateWrites are a pass's changes to the state file. They are written at
// most twice, and the order is a safety rule: the records of the renames
// about to be sent go on disk before any is sent (recordBefore), so a
// rename herdr applies but whose reply is lost (herdr stopped, we were
// killed, the reply came late) still reads as ours later, instead of as a
// person's forever; what the renames did follows (saveAfterRenames). A
// pass with no rename writes only the second, and only when something
// changed.
type stateWrites struct {
	tabs       []func(map[string]state.TabMemory)
	workspaces []func(map[string]state.WorkspaceMemory)
	// presentWorkspaces, when set, are every workspace of a full pass
	// that named workspaces: the others may be pruned.
	presentWorkspaces map[string]bool
}

func (w *stateWrites) add(fns ...func(map[string]state.TabMemory)) {
	w.tabs = append(w.tabs, fns...)
}

func (w *stateWrites) addWorkspace(fns ...func(map[string]state.WorkspaceMemory)) {
	w.workspaces = append(w.workspaces, fns...)
}

func (w *stateWrites) empty() bool { return len(w.tabs) == 0 && len(w.workspaces) == 0 }

// recordBefore saves the changes so far with the record of every rename
// about to be sent. No rename may go out unless it returned nil
// (TestPendingLabelIsOnDiskBeforeTheRename).
func (d *Daemon) recordBefore(w *stateWrites, rs []*rename) error {
	now := d.now()
	for _, r := range rs {
		f := state.Flight{Want: r.want, Seen: r.seen, Sent: now}
		switch r.kind {
		case ourTabName:
			w.add(func(tabs map[string]state.TabMemory) {
				m := tabs[r.t.id]
				pend(&m.Pending, &m.PendingUntil, &m.Flights, f)
				tabs[r.t.id] = m
			})
		case personPrefix:
			// The person's text goes on disk before the rename: a label
			// of ours whose text is lost would take a person's leading
			// digit for our prefix, or the prefix for their text. No
			// pending label: the label stays a person's, so the next
			// pass prefixes it again rather than naming the tab.
			w.add(func(tabs map[string]state.TabMemory) {
				m := tabs[r.t.id]
				m.PersonText, m.PrefixedAs = r.text, r.want
				m.Flights = appendFlight(m.Flights, f)
				tabs[r.t.id] = m
			})
		case ourWorkspaceName:
			w.addWorkspace(func(wss map[string]state.WorkspaceMemory) {
				e := wss[r.t.id]
				pend(&e.Pending, &e.PendingUntil, &e.Flights, f)
				wss[r.t.id] = e
			})
		}
		// giveBack: the label is not ours; nothing to record.
	}
	if w.empty() {
		return nil
	}
	if err := d.update(w.apply(d.state)); err != nil {
		return err
	}
	w.tabs, w.workspaces = nil, nil
	return nil
}

// pend records a rename about to be sent: its label pending, its flight
// saved.
func pend(pending *state.LabelSet, until **time.Time, flights *[]state.Flight, f state.Flight) {
	*pending = state.AddPending(*pending, until, f.Want, f.Sent)
	*flights = appendFlight(*flights, f)
}

// apply is one update of the state's tabs and workspaces.
func (w *stateWrites) apply(st *state.State) func(map[string]state.TabMemory) {
	tabs, wss := w.tabs, w.workspaces
	return func(m map[string]state.TabMemory) {
		for _, fn := range tabs {
			fn(m)
		}
		// state.Load makes Workspaces, and every reload keeps it made.
		for _, fn := range wss {
			fn(st.Workspaces)
		}
	}
}

// recordAfter turns what each rename did into state changes, settles it
// and logs it: a label herdr set is ours; one herdr refused, or that was
// never sent, is not.
func (d *Daemon) recordAfter(rs []*rename, w *stateWrites, stats *PassStats) {
	for _, r := range rs {
		if r.out == renameDone {
			stats.Renames++
		}
		if r.shows != "" {
			d.note(r.t, r.shows)
		}
		if r.kind != giveBack {
			d.settle(r.t, r.want, r.seen, r.out)
		}
		switch r.kind {
		case ourTabName:
			d.tabOutcome(r, w)
		case personPrefix:
			if r.out == renameDone {
				d.log.Info("renamed", "tab", r.t.id, "old", r.seen, "new", r.want,
					"why", "position prefix on a person's label (--index-prefix-all)")
			} else if r.out != renameInFlight {
				w.add(dropSavedFlight(r.t.id, r.want))
			}
		case giveBack:
			if r.out == renameDone {
				d.note(r.t, r.want)
				r.rep.Action, r.rep.Label = ActionKeep, r.want
				d.log.Info("gave a label back", r.t.key(), r.t.id, "label", r.want, "why", r.why)
			}
		case ourWorkspaceName:
			d.workspaceOutcome(r, w)
		}
	}
}

// tabOutcome records what a rename of a tab to our name did.
func (d *Daemon) tabOutcome(r *rename, w *stateWrites) {
	switch r.out {
	case renameDone:
		// Pending keeps the label: other requests (a killed daemon's)
		// may still land after this one.
		w.add(setNamed(r.t.id, r.want))
		d.log.Info("renamed", "tab", r.t.id, "old", r.seen, "new", r.want,
			"lead", r.rep.Lead, "why", whyLine(*r.rep))
	case renameLanded:
		w.add(setNamed(r.t.id, r.want), dropSavedFlight(r.t.id, r.want))
	case renameInFlight:
		// Sent but unanswered: herdr may still apply it, so the pending
		// label stays, and its echo is watched for.
	case renameLockedBack:
		// Put back for a lock: the pending label stays, for the echo of
		// the rename, and the lock decides its fate.
		w.add(dropSavedFlight(r.t.id, r.want))
	default:
		// Not sent, or herdr answered no: the label is not ours.
		w.add(dropPending(r.t.id, r.want))
	}
}

// workspaceOutcome records what a rename of a workspace to our name did.
func (d *Daemon) workspaceOutcome(r *rename, w *stateWrites) {
	switch r.out {
	case renameDone:
		// Pending keeps the label, as for tabs.
		w.addWorkspace(func(m map[string]state.WorkspaceMemory) {
			e := m[r.t.id]
			e.Label, e.MissingSince = r.want, nil
			m[r.t.id] = e
		})
		d.log.Info("renamed workspace", "workspace", r.t.id, "old", r.seen, "new", r.want, "why", r.why)
	case renameInFlight:
	default:
		w.addWorkspace(dropWorkspaceRename(r.t.id, r.want, true))
	}
}

// dropWorkspaceRename forgets a workspace rename's saved flight and, with
// pending, its pending label: what dropPending and dropSavedFlight do for
// tabs.
func dropWorkspaceRename(id, label string, pending bool) func(map[string]state.WorkspaceMemory) {
	return func(m map[string]state.WorkspaceMemory) {
		if e, ok := m[id]; ok {
			if pending {
				e.Pending = e.Pending.Remove(label)
			}
			e.Flights = dropFlight(e.Flights, label)
			m[id] = e
		}
	}
}

// saveAfterRenames saves what the renames did and prunes tabs and
// workspaces that left the session (present nil: no pruning); it writes
// only when something changed.
func (d *Daemon) saveAfterRenames(w *stateWrites, present map[string]bool) {
	now := d.now()
	pruneTabs := present != nil && d.opt.Workspace == "" && state.NeedsPrune(d.state.Tabs, present, now)
	wsPresent := w.presentWorkspaces
	pruneWS := present != nil && wsPresent != nil && state.NeedsPrune(d.state.Workspaces, wsPresent, now)
	if w.empty() && !pruneTabs && !pruneWS {
		return
	}
	changes := w.apply(d.state)
	err := d.update(func(tabs map[string]state.TabMemory) {
		changes(tabs)
		if pruneTabs {
			state.Prune(tabs, present, now)
		}
		if pruneWS {
			state.Prune(d.state.Workspaces, wsPresent, now)
		}
	})
	if err != nil {
		d.log.Warn("could not save state; keeping it in memory", "err", err)
	}
	w.tabs, w.workspaces = nil, nil
}

// forgetOurLabel drops the last label we set on a tab that a person has
// named since; pending labels stay until they expire.
func forgetOurLabel(id string) func(map[string]state.TabMemory) {
	return func(tabs map[string]state.TabMemory) {
		if m, ok := tabs[id]; ok {
			m.Label = ""
			tabs[id] = m
		}
	}
}

// forgetOurWorkspaceLabel: as for tabs, a label we set before is no
// longer ours once a person's label shows.
func forgetOurWorkspaceLabel(id string) func(map[string]state.WorkspaceMemory) {
	return func(m map[string]state.WorkspaceMemory) {
		if e, ok := m[id]; ok {
			e.Label = ""
			m[id] = e
		}
	}
}

// setOurs records label as the tab's, ours, and ends a release.
func setOurs(id, label string) func(map[string]state.TabMemory) {
	return func(tabs map[string]state.TabMemory) {
		m := tabs[id]
		m.Label, m.Released = label, false
		tabs[id] = m
	}
}

// setNamed records a label of ours that herdr set: the tab's, no release,
// no longer missing, and no person's text it was made of.
func setNamed(id, label string) func(map[string]state.TabMemory) {
	return func(tabs map[string]state.TabMemory) {
		m := tabs[id]
		m.Label, m.Released, m.MissingSince = label, false, nil
		m.PersonText, m.PrefixedAs = "", ""
		tabs[id] = m
	}
}

// dropPending forgets a rename that was not sent or that herdr refused.
func dropPending(id, label string) func(map[string]state.TabMemory) {
	return func(tabs map[string]state.TabMemory) {
		if m, ok := tabs[id]; ok {
			m.Pending = m.Pending.Remove(label)
			m.Flights = dropFlight(m.Flights, label)
			tabs[id] = m
		}
	}
}

// dropSavedFlight forgets a rename's saved flight, its fate known.
func dropSavedFlight(id, label string) func(map[string]state.TabMemory) {
	return func(tabs map[string]state.TabMemory) {
		if m, ok := tabs[id]; ok {
			m.Flights = dropFlight(m.Flights, label)
			tabs[id] = m
		}
	}
}
