package namer

import (
	"fmt"
	"strings"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// statuses are the agent statuses in a fixed order; icons and variants are
// indexed by it.
var statuses = [...]herdr.AgentStatus{
	herdr.StatusIdle, herdr.StatusWorking, herdr.StatusBlocked, herdr.StatusDone, herdr.StatusUnknown,
}

func statusIndex(s herdr.AgentStatus) int {
	for i, x := range statuses {
		if x == s {
			return i
		}
	}
	return len(statuses) - 1 // anything else reads as unknown
}

// Icons maps agent statuses to the {icon} value.
type Icons struct {
	icon [len(statuses)]string
}

// DefaultIcons: 🔴 blocked, 🟡 working, 🟢 done, ⚪ idle, nothing for unknown.
var DefaultIcons = Icons{icon: [len(statuses)]string{"⚪", "🟡", "🔴", "🟢", ""}}

// Icon returns the icon of status s ("" when it has none). A status herdr
// may add later counts as unknown.
func (ic Icons) Icon(s herdr.AgentStatus) string { return ic.icon[statusIndex(s)] }

// ParseIcons reads an icon spec such as "blocked=🟥,idle=": comma-separated
// status=icon entries over the defaults; an empty icon removes it. Icons are
// sanitised. "" gives the defaults.
func ParseIcons(spec string) (Icons, error) {
	ic := DefaultIcons
	if strings.TrimSpace(spec) == "" {
		return ic, nil
	}
	var seen [len(statuses)]bool
	for entry := range strings.SplitSeq(spec, ",") {
		name, icon, ok := strings.Cut(entry, "=")
		name = strings.TrimSpace(name)
		if !ok {
			return Icons{}, fmt.Errorf("icons %q: entry %q has no '=' (want status=icon)", spec, strings.TrimSpace(entry))
		}
		i := -1
		for j, s := range statuses {
			if string(s) == name {
				i = j
			}
		}
		if i < 0 {
			return Icons{}, fmt.Errorf("icons %q: unknown status %q (known: idle working blocked done unknown)", spec, name)
		}
		if seen[i] {
			return Icons{}, fmt.Errorf("icons %q: status %q given twice", spec, name)
		}
		seen[i] = true
		ic.icon[i] = Sanitize(icon)
	}
	return ic, nil
}
