package owner

// Verdict says whose a label is, and so whether we may replace it. The
// zero value is Human: when in doubt, keep hands off.
type Verdict int

// Verdicts, from a rule's Fate.
const (
	Human    Verdict = iota // a person named it: leave it
	Ours                    // we named it
	Herdrs                  // herdr's own label
	Locked                  // a person locked the target
	Released                // a person released the target to us
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

// MayRename reports whether a label with this verdict may get a new name.
func (v Verdict) MayRename() bool {
	return v == Ours || v == Herdrs || v == Released || v == Forced
}
