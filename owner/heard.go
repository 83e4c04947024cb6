package owner

import (
	"slices"

	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// The rules of what herdr's rename events, in the order herdr applied
// them, tell of a tab's or a workspace's labels. herdr's events carry no
// time and, on 0.7/0.8, a new subscription first replays old ones with
// nothing marking where the replay ends: only the order tells.

// Shown says whether a rename event's label, reported, shows the label a
// look saw, seen: the same text, or "" where the look saw herdr's own
// label (a rename to "" shows a tab's position; a workspace's automatic
// label, which only the disk tells, is taken to be any).
func Shown(k state.Kind, reported, seen string) bool {
	switch {
	case reported == seen:
		return true
	case reported != "":
		return false
	case k == state.Workspace:
		return true
	}
	return tabNumber(seen)
}

// ChosenAgain says whether the label our look saw, which was the last
// label we set and which herdr reported right before the echo of our
// rename over it, was a person's choice of that label since: the label
// reported before it, prior, is neither what our rename to it had
// replaced (over, "" when not known) nor a label of ours. Our own rename
// to it comes right after over, so a person renamed the target away and
// back to it, and their label goes back.
func ChosenAgain(k state.Kind, prior, over string, ours []string) bool {
	return over != "" && !Shown(k, prior, over) && !Shown(k, over, prior) && !slices.Contains(ours, prior)
}

// Same says whether a target of kind k that shows shown shows the label
// remembered of it: the same text, or for a tab herdr's own label both,
// its position, which moves as tabs are created, moved and closed.
func Same(k state.Kind, shown, remembered string) bool {
	return shown == remembered || k == state.Tab && shown != "" && remembered != "" && tabNumber(shown) && tabNumber(remembered)
}
