package pass

import (
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// A pane's memory follows the pane. herdr numbers panes per workspace, so
// a pane moved to another workspace gets a new id there, and keeps its
// terminal (terminal_id), its label and its process (docs/herdr.md §13).
// The memory records each remembered pane's terminal; a pane the memory
// has nothing of, whose terminal is the one a pane gone from the session
// ran in, is that pane: its memory (the labels we set, a lock, a release)
// moves to its new id. Without this our old name on it would read as a
// person's for good, and a lock would be lost.

// followPanes finds the panes that herdr gave a new id and plans their
// memory's move (judgePanes and explain read it under the new id this
// pass already), and plans recording the terminal of every remembered
// pane whose terminal changed (a herdr restart with its session gives
// each pane a new one).
func (p *Planner) followPanes(v *view, pl *Plan, mem *state.State) {
	v.movedFrom = nil
	if mem.Len(state.Pane) == 0 {
		return
	}
	gone := goneByTerminal(v.Snap.Panes, mem)
	for _, pn := range v.Snap.Panes {
		t := state.PaneTarget(pn.ID)
		if !mem.Has(t) {
			ids := gone[pn.TerminalID]
			if pn.TerminalID == "" || len(ids) != 1 {
				continue
			}
			from := state.PaneTarget(ids[0])
			if v.movedFrom == nil {
				v.movedFrom = map[string]string{}
			}
			v.movedFrom[pn.ID] = ids[0]
			p.log.Info("a pane got a new id; its memory follows it", "pane", pn.ID, "was", ids[0], "terminal", pn.TerminalID)
			if !v.ReadOnly {
				pl.Edits.Add(func(tx *state.Tx) { tx.Move(from, t) })
			}
			continue
		}
		if term := pn.TerminalID; term != "" && !v.ReadOnly && mem.Entry(t).Terminal != term {
			pl.Edits.Add(func(tx *state.Tx) { tx.Seat(t, term) })
		}
	}
}

// goneByTerminal lists the remembered panes that are not in the session,
// by the terminal they last ran in.
func goneByTerminal(panes []herdr.Pane, mem *state.State) map[string][]string {
	live := make(map[string]bool, len(panes))
	for _, pn := range panes {
		live[pn.ID] = true
	}
	var gone map[string][]string
	for _, id := range mem.IDs(state.Pane) {
		if live[id] {
			continue
		}
		if term := mem.Entry(state.PaneTarget(id)).Terminal; term != "" {
			if gone == nil {
				gone = map[string][]string{}
			}
			gone[term] = append(gone[term], id)
		}
	}
	return gone
}

// paneEntry is what the memory holds of a pane in this pass: a pane that
// got a new id has its old id's.
func (v *view) paneEntry(mem *state.State, id string) state.Entry {
	if from, ok := v.movedFrom[id]; ok {
		return mem.Entry(state.PaneTarget(from))
	}
	return mem.Entry(state.PaneTarget(id))
}
