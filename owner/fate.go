package owner

import (
	"fmt"
	"slices"

	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// Outcome is what becomes of a label.
type Outcome uint8

// Outcomes, from a rule's Fate.
const (
	Keep    Outcome = iota // leave it
	Rename                 // give it our name, Fate.To
	PutBack                // give back the label it had when locked, Fate.To
)

// Case is one label as it stands and what is known of it.
type Case struct {
	Label string // the label now
	Want  string // the name we would give it; "" for none
	// Memory is what the memory holds of the target (Of, Labels).
	Memory Memory
	Force  bool // --force
	// Variants are the template's renders of the target under other
	// statuses, with and without its program or agent (namer's): each
	// reads as ours. Skip: a skip rule matched, which outranks
	// everything.
	Variants []string
	Skip     bool
	// Auto lists what herdr would call a workspace now (its automatic
	// labels, which the caller computes); a tab's are its bare numbers,
	// a pane has none but "".
	Auto []string
}

// Fate is a label's fate: whose it is, and what to do with it.
type Fate struct {
	Verdict Verdict
	Do      Outcome
	To      string // the label Rename or PutBack sets
	Why     string // what explain prints
}

// Tab is the fate of a tab's label. herdr labels an unnamed tab with its
// 1-based position, and "" is what a rename to "" leaves: both are
// herdr's own. A release holds while the tab shows the label it was
// released with (ReleaseHolds).
func Tab(c Case) Fate {
	m := c.Memory
	if m.Locked {
		// A locked tab showing a rename of ours the memory still follows
		// was overtaken by it, however long ago: no rename of a locked
		// tab is recorded after the lock but the lock's own label's, and
		// a daemon killed as one landed leaves it to the next.
		m = m.WithLanding(m.Recorded...)
	}
	return fate(c, tabNumber(c.Label), m, c.Force, false)
}

// ReleaseHolds says whether a tab's release still stands as it shows
// label: a person released it showing m.ReleasedFrom, and a person who
// names it anything else since ends the release. A label of ours there
// (we named it, ending the release already, or a rename of ours still
// landing) or herdr's own is no one's naming it. A release whose label
// is not known (a memory written before it was kept) holds.
func ReleaseHolds(label string, m Memory) bool {
	return !m.Released || m.ReleasedFrom == nil || label == *m.ReleasedFrom || tabNumber(label) ||
		slices.Contains(m.Labels, label)
}

// Pane is the fate of a pane's label, by a rule of its own. herdr gives
// a pane no label of its own (docs/herdr.md §13): only "" is herdr's, a
// bare number is someone's choice, and a label is ours only by the memory
// (the last we set, or one of ours that may still land), never by a
// render: a person naming a pane after its folder chose what we would
// render, and it is theirs. A release ends once a person names the pane
// (PaneRenamedSince). A pane locked with no label has one to go back to:
// none.
func Pane(c Case) Fate {
	c.Variants = nil
	return fate(c, c.Label == "", c.Memory, c.Force, true)
}

// PaneRenamedSince says whether a released pane showing label was named by
// a person since its release: it shows a label, not the one it showed
// when released nor one of ours. herdr tells no one of a pane's rename,
// so this is how a pane's release ends as a tab's does when a person
// names it; the label is theirs from then on.
func PaneRenamedSince(label string, m Memory) bool {
	return m.Released && m.ReleasedFrom != nil && label != "" && label != *m.ReleasedFrom && !slices.Contains(m.Labels, label)
}

// Workspace is the fate of a workspace's label. herdr labels a workspace
// nobody named from its first tab's directory and git repository
// (docs/herdr.md §6), a label that moves with the directory: Case.Auto
// lists what herdr would call it now, and those, and "", are herdr's.
// Workspaces have no lock, release or --force: only the memory's labels
// count, and a person's label is always kept.
func Workspace(c Case) Fate {
	return fate(c, c.Label == "" || slices.Contains(c.Auto, c.Label), c.Memory.labelsOnly(), false, false)
}

// For is the rule of a target's kind.
func For(k state.Kind) func(Case) Fate {
	switch k {
	case state.Workspace:
		return Workspace
	case state.Pane:
		return Pane
	}
	return Tab
}

// fate is the one rule; the kinds differ in what herdr's own label looks
// like (herdrs), in what of the memory counts and whether --force does,
// and in what a lock gives back.
func fate(c Case, herdrs bool, m Memory, force, pane bool) Fate {
	v := verdict(c, herdrs, m, force, pane)
	f := Fate{Verdict: v, Why: "label is " + v.String()}
	switch {
	case v == Locked && lockOvertaken(c.Label, m, pane):
		f.Do, f.To = PutBack, m.LockedLabel
		f.Why = fmt.Sprintf("locked as %q; a rename of ours landed after the lock", m.LockedLabel)
	case v.MayRename() && c.Want != "" && c.Want != c.Label:
		f.Do, f.To = Rename, c.Want
	}
	return f
}

// verdict is whose the label is. Precedence: a skip rule, a lock, a
// release, ours (remembered or a variant render), herdr's, then --force
// makes a person's label Forced; anything else is a person's. A release
// stands until a person names the target: for a tab while it shows the
// label it was released with (ReleaseHolds), for a pane until
// PaneRenamedSince.
func verdict(c Case, herdrs bool, m Memory, force, pane bool) Verdict {
	released := m.Released && ReleaseHolds(c.Label, m)
	if pane {
		released = !PaneRenamedSince(c.Label, m) && m.Released
	}
	switch {
	case c.Skip:
		return Skipped
	case m.Locked:
		return Locked
	case released:
		return Released
	case slices.Contains(m.Labels, c.Label) || slices.Contains(c.Variants, c.Label):
		return Ours
	case herdrs:
		return Herdrs
	case force:
		return Forced
	}
	return Human
}

// lockOvertaken: a locked target shows a label of ours still landing,
// other than the one it was locked with, so a rename of ours landed after
// the lock. An older label of ours there is a person's choice since. A
// tab locked with no label known has nothing to go back to; a pane
// locked with none has: no label.
func lockOvertaken(label string, m Memory, pane bool) bool {
	if m.LockedLabel == "" && !pane || label == m.LockedLabel {
		return false
	}
	return slices.Contains(m.Landing, label)
}

// tabNumber reports whether a tab label is herdr's own: "" or a bare
// decimal position without a leading zero.
func tabNumber(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == '0' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
