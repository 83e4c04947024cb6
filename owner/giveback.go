package owner

import (
	"strconv"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// The rules of labels given back: a person's label that landed inside a
// rename of ours (a put-back), the label a lock kept, what restore gives
// back. Each says whether the label the target shows when it is looked
// at, right before the request, may be replaced.

// Foreign says whether label, reported right before the echo of a rename
// of ours on a target of kind k, was set by someone else, so that it goes
// back: not one of ours, not herdr's own, not what our look before the
// rename saw (the caller counts that among ours).
func Foreign(k state.Kind, label string, ours []string) bool {
	return For(k)(Case{Label: label, Memory: Labels(ours...)}).Verdict == Human
}

// A Return is a person's label, Back, set inside a rename of ours to
// Want, on its way back to the target.
type Return struct {
	Back, Want string
	// Ours: Want was a name of ours (not a label given back itself).
	Ours bool
	// Then are the labels of ours when the put-back began (a flight
	// that ended meanwhile set them).
	Then []string
}

// ReturnOver says whether the put-back ret may replace label, which the
// target shows when it is looked at, with the memory m then: only a label
// of ours, then or now, may go; a locked label never changes, nor does
// our name once a person locked it.
func ReturnOver(k state.Kind, label string, ret Return, m Memory) bool {
	switch {
	case m.Locked && label == m.LockedLabel:
		return false // a locked label never changes
	case ret.Ours && m.Locked && m.LockedLabel == ret.Want:
		return false // a person locked our name once it showed: they keep it
	}
	ours := Labels(m.Labels...).With(ret.Want).With(ret.Then...)
	return label != ret.Back && For(k)(Case{Label: label, Memory: ours}).Verdict == Ours
}

// LockKept says whether the label a lock kept, lockedWith, goes back
// over label, which the target shows after the lock: the lock still
// stands as it was written, and a rename of ours landed over it. m is the
// memory then, with the renames of ours on their way when the lock was
// written among what may still land.
func LockKept(k state.Kind, label, lockedWith string, m Memory) bool {
	if !m.Locked || m.LockedLabel != lockedWith {
		return false // released or locked anew since: not this lock's to keep
	}
	return For(k)(Case{Label: label, Memory: m}).Do == PutBack
}

// GiveBackOver says whether restore may give a label back over label,
// which the target shows when it is looked at, having read from before:
// a label changed since is someone's, and a person's lock wins.
func GiveBackOver(label, from string, m Memory) bool { return label == from && !m.Locked }

// Restore is what restore gives a tab back: its position number when its
// label is ours (by the pass's verdict, judged, or by the memory's
// labels alone), the person's own text when the label is that text with
// our position in front (--index-prefix-all). Else back is "" and keep
// says why the label stays: "locked", or whose it is.
func Restore(label string, judged Verdict, e state.Entry, now time.Time, position int) (back, keep string) {
	switch {
	case judged == Locked:
		return "", "locked"
	case e.PrefixedAs != "" && label == e.PrefixedAs:
		return e.PersonText, ""
	case judged == Ours || Tab(Case{Label: label, Memory: Labels(e.OurLabels(now)...)}).Verdict == Ours:
		return strconv.Itoa(position), ""
	case judged == Herdrs:
		return "", "herdr's own label"
	}
	return "", "a person's name"
}

// RestorePane says why restore keeps a pane's label, "" when it clears
// it: a locked pane keeps it ("locked"), a pane with none has nothing to
// clear ("no label"), and only a label of ours goes, by the pass's
// verdict (judged: a render of the pane template) or by the memory's
// labels alone ("a person's name" otherwise).
func RestorePane(label string, judged Verdict, e state.Entry, now time.Time) (keep string) {
	switch {
	case e.Locked:
		return "locked"
	case label == "":
		return "no label"
	case judged == Ours || Pane(Case{Label: label, Memory: Labels(e.OurLabels(now)...)}).Verdict == Ours:
		return ""
	}
	return "a person's name"
}

// Shows is the label every tab, workspace and pane of snap shows.
func Shows(snap *herdr.Snapshot) map[state.Target]string {
	out := make(map[state.Target]string, len(snap.Tabs)+len(snap.Workspaces)+len(snap.Panes))
	for _, t := range snap.Tabs {
		out[state.TabTarget(t.ID)] = t.Label
	}
	for _, w := range snap.Workspaces {
		out[state.WorkspaceTarget(w.ID)] = w.Label
	}
	for _, p := range snap.Panes {
		out[state.PaneTarget(p.ID)] = p.Label
	}
	return out
}
