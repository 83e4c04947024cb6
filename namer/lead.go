package namer

import "github.com/herdrtabrenamer/herdrtabrenamer/herdr"

// Lead picks the pane a tab is named after: a pane with a detected agent
// (the focused one if several, else the lowest id), else the focused pane,
// else the lowest pane id. Ids compare by their decoded number, so w1:pA
// (10) comes after w1:p9. why says which rule chose it: "agent claude",
// "focused", "lowest id"; ok is false for a tab without panes.
func Lead(panes []herdr.Pane) (lead herdr.Pane, why string, ok bool) {
	if len(panes) == 0 {
		return herdr.Pane{}, "no panes", false
	}
	best := -1
	for i := range panes {
		if best < 0 || better(&panes[i], &panes[best]) {
			best = i
		}
	}
	p := panes[best]
	switch {
	case p.Agent != "":
		why = "agent " + p.Agent
	case p.Focused:
		why = "focused"
	default:
		why = "lowest id"
	}
	return p, why, true
}

// better reports whether a ranks before b as lead pane.
func better(a, b *herdr.Pane) bool {
	if (a.Agent != "") != (b.Agent != "") {
		return a.Agent != ""
	}
	if a.Focused != b.Focused {
		return a.Focused
	}
	return paneLess(a.ID, b.ID)
}

// paneLess orders pane ids by number; ids that do not parse come last, in
// string order, so the choice stays deterministic.
func paneLess(a, b string) bool {
	_, na, ea := herdr.ParsePaneID(a)
	_, nb, eb := herdr.ParsePaneID(b)
	switch {
	case ea == nil && eb == nil:
		if na != nb {
			return na < nb
		}
		return a < b
	case ea == nil:
		return true
	case eb == nil:
		return false
	}
	return a < b
}
