package namer

import (
	"strconv"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// MaxIndex is the last tab position {index} shows: herdr's alt+1..9 keys
// reach the first nine tabs of a workspace.
const MaxIndex = 9

// IndexPrefix is a person's text with its tab position in front, for
// --index-prefix-all: "notes" at position 2 is "2 notes", "3 amigos" at 1
// is "1 3 amigos". From position 10 on (no jump key) and for "" the text
// is given back as it is. The caller keeps the text: a label cannot tell
// a prefix of ours from a person's own leading digit.
func IndexPrefix(text string, index int) string {
	if text == "" || index < 1 || index > MaxIndex {
		return text
	}
	return strconv.Itoa(index) + " " + text
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
