package namer

import (
	"strconv"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// MaxIndex is the last tab position {index} shows: herdr's alt+1..9 keys
// reach the first nine tabs of a workspace.
const MaxIndex = 9

// IndexPrefix is a person's label with its tab position in front, for
// --index-prefix-all: "notes" at position 2 is "2 notes". A prefix of ours
// already there ("3 notes" after a move) is replaced, and from position 10
// on the bare label is given back. A label a person starts with a digit 1-9
// and a space reads as carrying our prefix.
func IndexPrefix(label string, index int) string {
	base := label
	if len(base) >= 2 && base[0] >= '1' && base[0] <= '9' && base[1] == ' ' {
		base = base[2:]
	}
	if base == "" || index < 1 || index > MaxIndex {
		return base
	}
	return strconv.Itoa(index) + " " + base
}

// Positions gives each tab its 1-based position in its workspace from the
// order of tabs (session.snapshot lists them by workspace, then position:
// docs/herdr.md §5). herdr renumbers positions when tabs are created,
// moved or closed without renaming anything, so a pass computes them
// afresh from every snapshot.
func Positions(tabs []herdr.Tab) map[string]int {
	pos := make(map[string]int, len(tabs))
	count := make(map[string]int, 4)
	for _, t := range tabs {
		count[t.WorkspaceID]++
		pos[t.ID] = count[t.WorkspaceID]
	}
	return pos
}
