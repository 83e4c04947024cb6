package namer

import "slices"

// Memory is what the daemon's state file says about one tab.
type Memory struct {
	Labels   []string // labels of ours on this tab: the last we set, and any that may still land
	Locked   bool     // the user froze the current name: never change it
	Released bool     // the user handed the tab back to us: rename it even if a person named it
	// LockedLabel is the label the tab showed when it was locked.
	LockedLabel string
	// Landing are the labels of ours asked for so recently that the
	// request may still land (a subset of Labels).
	Landing []string
}

// Verdict says who a tab's label belongs to, and so whether we may rename.
// The zero value is Human: when in doubt, keep hands off.
type Verdict int

// Verdicts, from Judge and Decision.Judge.
const (
	Human    Verdict = iota // a person named it: leave it
	Ours                    // we named it
	Herdrs                  // herdr's own label: "" or a bare position number
	Locked                  // the user locked the tab
	Released                // the user released the tab to us
	Forced                  // a person's label, overridden by --force
	Skipped                 // a skip rule matched
)

var verdictNames = [...]string{
	Human: "person's", Ours: "ours", Herdrs: "herdr's", Locked: "locked",
	Released: "released", Forced: "person's, forced", Skipped: "skipped by rule",
}

func (v Verdict) String() string {
	if v < 0 || int(v) >= len(verdictNames) {
		return "verdict(?)"
	}
	return verdictNames[v]
}

// MayRename reports whether a tab with this verdict may get a new name.
func (v Verdict) MayRename() bool {
	return v == Ours || v == Herdrs || v == Released || v == Forced
}

// Judge decides who label belongs to. Precedence: Locked, then Released,
// then force (a person's label becomes Forced), then ours (remembered or a
// variant render), herdr's ("" or a bare decimal without leading zero), and
// a person's for anything else.
func Judge(label string, m Memory, variants []string, force bool) Verdict {
	return judge(label, m, variants, force, IsHerdrLabel(label))
}

// judge is the one ownership rule for tabs and workspaces; only what
// herdr's own label looks like differs between them.
func judge(label string, m Memory, variants []string, force, herdrs bool) Verdict {
	switch {
	case m.Locked:
		return Locked
	case m.Released:
		return Released
	case slices.Contains(m.Labels, label) || slices.Contains(variants, label):
		return Ours
	case herdrs:
		return Herdrs
	case force:
		return Forced
	}
	return Human
}

// Judge is Judge with the decision's variants, and Skipped when a skip rule
// matched: a skip rule outranks everything, even a lock.
func (d Decision) Judge(label string, m Memory, force bool) Verdict {
	if d.Skip {
		return Skipped
	}
	return Judge(label, m, d.Variants, force)
}

// IsHerdrLabel reports whether a tab label is herdr's own: herdr labels
// an unnamed tab with its 1-based position. "" counts too: it is what a
// rename to "" leaves, never a chosen name.
func IsHerdrLabel(s string) bool {
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
