package namer

import "fmt"

// A label's fate: the one answer, for a tab or a workspace as it stands,
// to whether the daemon may replace its label, must give a label back, or
// keeps its hands off, and why. The pass, the re-read before a rename,
// the event triage, the echo of a rename, lock, restore, explain and the
// dry run all ask Fate; nothing else restates any part of the rule.

// Outcome is what becomes of a label.
type Outcome uint8

// Outcomes, from Fate.
const (
	Keep    Outcome = iota // leave it
	Rename                 // give it our name, Fate.To
	PutBack                // give back the label it had when locked, Fate.To
)

// Case is one label as it stands and what is known of it.
type Case struct {
	Label string // the label now
	Want  string // the name we would give it; "" for none
	// Memory is what the state file says: for a workspace only its
	// labels count (workspaces have no lock, release or --force).
	Memory    Memory
	Workspace bool
	// Pane: the label is a pane's, whose only label of herdr's is "".
	Pane bool
	// Auto lists what herdr would call the workspace now (its automatic
	// labels, computed by the caller); a tab's are its bare numbers.
	Auto  []string
	Force bool // --force
}

// Fate is a label's fate.
type Fate struct {
	Verdict Verdict // whose the label is
	Do      Outcome
	To      string // the label Rename or PutBack sets
	Why     string // what explain prints
}

// FateOf is the fate of a label with no template decision behind it: no
// variants, no skip rule.
func FateOf(c Case) Fate { return Decision{}.Fate(c) }

// Fate is the label's fate under this decision: its variants count as
// ours, its skip rule outranks everything, its Want is the name given
// unless c names one.
func (d Decision) Fate(c Case) Fate {
	v := d.verdict(c)
	f := Fate{Verdict: v, Why: "label is " + v.String()}
	switch {
	case v == Locked && lockOvertaken(c):
		f.Do, f.To = PutBack, c.Memory.LockedLabel
		f.Why = fmt.Sprintf("locked as %q; a rename of ours landed after the lock", c.Memory.LockedLabel)
	case v.MayRename() && c.Want != "" && c.Want != c.Label:
		f.Do, f.To = Rename, c.Want
	}
	return f
}

// verdict is whose the label is.
func (d Decision) verdict(c Case) Verdict {
	if d.Skip {
		return Skipped
	}
	if c.Workspace {
		herdrs := c.Label == ""
		for _, a := range c.Auto {
			herdrs = herdrs || a == c.Label
		}
		return judge(c.Label, Memory{Labels: c.Memory.Labels}, d.Variants, false, herdrs)
	}
	herdrs := IsHerdrLabel(c.Label)
	if c.Pane {
		herdrs = isHerdrPaneLabel(c.Label)
	}
	return judge(c.Label, c.Memory, d.Variants, c.Force, herdrs)
}

// lockOvertaken: a locked tab shows a label of ours still landing, other
// than the one it was locked with, so a rename of ours landed after the
// lock. An older label of ours there is a person's choice since. A tab
// locked with no label known has nothing to go back to; a pane locked
// with none has: no label.
func lockOvertaken(c Case) bool {
	m := c.Memory
	if m.LockedLabel == "" && !c.Pane || c.Label == m.LockedLabel {
		return false
	}
	for _, l := range m.Landing {
		if l == c.Label {
			return true
		}
	}
	return false
}

// Foreign says whether label, reported right before the echo of a rename
// of ours, was set by someone else, so that it goes back: not one of
// ours, not herdr's own, not what our look before the rename saw.
func Foreign(label string, ours []string, workspace bool) bool {
	return FateOf(Case{Label: label, Memory: Memory{Labels: ours}, Workspace: workspace}).Verdict == Human
}
