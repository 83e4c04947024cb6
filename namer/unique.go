package namer

import (
	"strings"
)

// UniqueItem is one tab's decided name, for Namer.Unique.
type UniqueItem struct {
	TabID     string // "w1:t3"
	Workspace string // tabs of the same workspace are compared; "" = taken from TabID
	Name      string // Decision.Want
	Dir       string // Plan.Dir
}

// Unique tells apart tabs of one workspace that would get the same name by
// adding the shortest run of parent directories that makes each different:
// two "src" tabs in ~/api/src and ~/web/src become "api/src" and "web/src".
// When the name ends with the dir's basename the parents go right before it
// ("🟡 api/src"), otherwise before the whole name ("api/btop"). Each tab gets
// the fewest parents that set it apart from every other tab of its group at
// that depth; a tab no path can set apart (same dir) keeps its name. The
// result depends only on the set of items, not their order, so it is stable
// across passes. Results are cut to MaxLen. out[i] belongs to items[i].
func (n *Namer) Unique(items []UniqueItem) []string {
	out := make([]string, len(items))
	groups := map[string][]int{}
	for i, it := range items {
		out[i] = it.Name
		if it.Name == "" {
			continue
		}
		ws := it.Workspace
		if ws == "" {
			ws, _, _ = strings.Cut(it.TabID, ":")
		}
		key := ws + "\x00" + it.Name
		groups[key] = append(groups[key], i)
	}
	for _, g := range groups {
		if len(g) < 2 {
			continue
		}
		cands := make([]uniqueCand, len(g))
		for j, i := range g {
			cands[j] = n.uniqueCand(items[i])
		}
		for j, i := range g {
			c := &cands[j]
			for k := 1; k <= len(c.parents); k++ {
				mine := c.at(k)
				clash := false
				for o := range cands {
					if o != j && cands[o].at(k) == mine {
						clash = true
						break
					}
				}
				if !clash {
					out[i] = Truncate(mine, n.cfg.MaxLen)
					break
				}
			}
		}
	}
	return out
}

// uniqueCand renders one item with k parent directories.
type uniqueCand struct {
	head, tail string   // text before and after the parents
	parents    []string // directory names, outermost first
}

func (n *Namer) uniqueCand(it UniqueItem) uniqueCand {
	var comps []string
	for c := range strings.SplitSeq(n.tildePath(it.Dir), "/") {
		if c = Sanitize(c); c != "" {
			comps = append(comps, c)
		}
	}
	if len(comps) > 0 {
		base := comps[len(comps)-1]
		if head, ok := strings.CutSuffix(it.Name, base); ok {
			return uniqueCand{head: head, tail: base, parents: comps[:len(comps)-1]}
		}
	}
	return uniqueCand{tail: it.Name, parents: comps}
}

// at renders the candidate with the k innermost parents (fewer if it has
// fewer).
func (c *uniqueCand) at(k int) string {
	k = min(k, len(c.parents))
	if k == 0 {
		return c.head + c.tail
	}
	return c.head + strings.Join(c.parents[len(c.parents)-k:], "/") + "/" + c.tail
}
