package pass

import (
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/owner"
	"github.com/herdrtabrenamer/herdrtabrenamer/renamer"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// judge decides whose each label is and what to do with it, and notes
// what the memory learns from the labels alone.
func (p *Planner) judge(v *view, pl *Plan, mem *state.State) {
	apply := p.cfg.Apply && !v.ReadOnly
	now := p.now()
	for _, r := range pl.Rows {
		t := state.TabTarget(r.Tab.ID)
		e := mem.Entry(t)
		label, want := r.Tab.Label, r.decision.Want
		f := owner.Tab(p.caseOf(r.decision, label, want, e, now))
		r.Report.judge(f.Verdict)
		r.Report.Action = ActionKeep
		if !v.ReadOnly {
			pl.Edits.Add(learnt(t, e, label, want, f.Verdict, now)...)
		}
		x := p.rename(r, f, e, pl.positions)
		if x == nil {
			continue
		}
		r.Report.Want, r.Report.Action = x.Want, ActionWouldRename
		x.Why = r.Report.Why()
		if apply {
			r.Rename = x
			pl.Renames = append(pl.Renames, x)
		}
	}
}

// ruling is the ownership rule's input for the name want under decision
// dec, less the label and its memory (the re-read before a rename finds
// them): dec's variants are ours, its skip rule outranks everything,
// --force as configured.
func (p *Planner) ruling(dec namer.Decision, want string) owner.Case {
	return owner.Case{Want: want, Force: p.cfg.Force, Variants: dec.Variants, Skip: dec.Skip}
}

// caseOf is ruling for label, with what the memory holds of its target,
// e, at now.
func (p *Planner) caseOf(dec namer.Decision, label, want string, e state.Entry, now time.Time) owner.Case {
	c := p.ruling(dec, want)
	c.Label, c.Memory = label, owner.Of(e, now)
	return c
}

// learnt is what the memory learns of a tab from its label alone.
func learnt(t state.Target, e state.Entry, label, want string, v owner.Verdict, now time.Time) []func(*state.Tx) {
	var out []func(*state.Tx)
	if e.PendingLanded(label, now) {
		// A rename whose reply was lost (or a killed daemon's late one)
		// did land: the label is ours.
		over := e.SeenBefore(label)
		out = append(out, func(tx *state.Tx) { tx.Ours(t, label, over) })
	}
	if e.Released && !owner.ReleaseHolds(label, owner.Of(e, now)) {
		// A person named it since it was released: the release is over,
		// and their later labels are theirs, the released one too.
		out = append(out, func(tx *state.Tx) { tx.EndRelease(t) })
	}
	if v == owner.Human && e.Label != "" && label != e.PrefixedAs {
		// A person's label now: what we set before is no longer ours,
		// or the person choosing that text later would lose it.
		out = append(out, func(tx *state.Tx) { tx.Disown(t) })
	}
	if v == owner.Released && want != "" && want == label {
		// A release ends as soon as the tab carries our name, even when
		// no rename was needed: left set, it would hand the next name a
		// person types to us.
		out = append(out, func(tx *state.Tx) { tx.Ours(t, want, "") })
	}
	return out
}

// rename is the rename a tab's fate asks for, nil for none.
func (p *Planner) rename(r *Row, f owner.Fate, e state.Entry, positions map[string]int) *renamer.Rename {
	x := &renamer.Rename{Target: state.TabTarget(r.Tab.ID), Seen: r.Tab.Label}
	switch {
	case f.Do == owner.PutBack:
		x.Kind, x.Want = renamer.GiveBack, f.To
		x.Why = "a rename of ours landed after the tab was locked"
	case f.Do == owner.Rename:
		x.Kind, x.Want, x.Case = renamer.OurName, f.To, p.ruling(r.decision, f.To)
	default:
		prefixed, ok := p.personPrefix(r.Tab.ID, r.Tab.Label, f.Verdict, e, positions)
		if !ok {
			return nil
		}
		x.Kind, x.Want, x.Text = renamer.PersonPrefix, prefixed, personText(e, r.Tab.Label)
		x.Why = "position prefix on a person's label (--index-prefix-all)"
	}
	return x
}

// personPrefix is the label a person's tab gets under --index-prefix-all,
// and whether that differs from its label now.
func (p *Planner) personPrefix(id, label string, v owner.Verdict, e state.Entry, pos map[string]int) (string, bool) {
	if !p.cfg.IndexPrefixAll || v != owner.Human {
		return "", false
	}
	want := namer.IndexPrefix(personText(e, label), pos[id])
	return want, want != label
}

// personText is the text a person gave a tab showing label: the label
// itself, unless it is the one we made of their text with a prefix.
func personText(e state.Entry, label string) string {
	if e.PrefixedAs != "" && label == e.PrefixedAs {
		return e.PersonText
	}
	return label
}

// prune forgets, on a full pass, the tabs and workspaces missing from the
// session for state.PruneAfter: one empty or short snapshot must never
// wipe the memory. An idle pass touches nothing.
func (p *Planner) prune(v *view, pl *Plan, mem *state.State) {
	if v.ReadOnly || v.OnlyTab != "" || p.cfg.Workspace != "" {
		return
	}
	now := p.now()
	if mem.NeedsPrune(state.Tab, v.present, now) {
		present := v.present
		pl.Edits.Add(func(tx *state.Tx) { tx.Prune(state.Tab, present, now) })
	}
	if p.cfg.WorkspaceNamer == nil {
		return
	}
	wss := make(map[string]bool, len(v.Snap.Workspaces))
	for _, w := range v.Snap.Workspaces {
		wss[w.ID] = true
	}
	if mem.NeedsPrune(state.Workspace, wss, now) {
		pl.Edits.Add(func(tx *state.Tx) { tx.Prune(state.Workspace, wss, now) })
	}
}

// Conclude takes what the renamer did into the rows' reports and the
// pass's counters, once it sent the plan's renames.
func (pl *Plan) Conclude() {
	for _, x := range pl.Renames {
		if x.Out == renamer.Done {
			pl.Stats.Renames++
		}
	}
	for _, r := range pl.Rows {
		if r.Rename != nil {
			r.Report.conclude(r.Rename)
		}
	}
	for _, pr := range pl.Panes {
		if pr.Rename != nil {
			pr.Report.conclude(pr.Rename)
		}
	}
}
