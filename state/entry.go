package state

import (
	"encoding/json"
	"slices"
	"time"
)

// Kind is what a target is: a tab, a workspace or a pane.
type Kind uint8

// The kinds of target, each with its own map in the file.
const (
	Tab Kind = iota
	Workspace
	Pane
)

// Kinds lists every kind, in the file's order.
var Kinds = [...]Kind{Tab, Workspace, Pane}

// String is the kind's name in log records: "tab", "workspace", "pane".
func (k Kind) String() string {
	switch k {
	case Workspace:
		return "workspace"
	case Pane:
		return "pane"
	}
	return "tab"
}

// Target is a tab, workspace or pane, by herdr's id.
type Target struct {
	Kind Kind
	ID   string
}

// TabTarget, WorkspaceTarget and PaneTarget name a target of each kind.
func TabTarget(id string) Target       { return Target{Tab, id} }
func WorkspaceTarget(id string) Target { return Target{Workspace, id} }
func PaneTarget(id string) Target      { return Target{Pane, id} }

// PendingTTL is how long a label we asked for reads as ours after the
// request: long enough for a killed daemon's request that herdr had not
// read yet to land, far shorter than a person takes to choose the label.
// Each label has its own: a rename every few seconds must not keep a
// label asked for long ago ours.
const PendingTTL = 30 * time.Second

// MaxPending bounds the labels remembered as possibly in flight per
// target, and MaxFlights the renames followed at once. Only requests sent
// in the last moments of a killed daemon can land late, and each sends at
// most one per target and pass, so a handful is plenty.
const (
	MaxPending = 8
	MaxFlights = 8
)

// Entry is what the memory holds of one target. Callers outside this
// package read copies; only Tx changes the memory.
type Entry struct {
	// Label is the last label we set, and Over the label that rename
	// replaced (what the target showed right before ours; "" when not
	// known). A rename event to Label right after another label than
	// Over is not that rename's: a person chose Label again.
	Label string
	Over  string
	// Pending are the labels we recently asked herdr for, oldest first,
	// each read as ours until its own Until: a killed daemon's rename can
	// land after the next daemon's own, so one slot is not enough.
	Pending []Pending
	// Flights are our renames whose fate is not known yet: saved before
	// each request, so whichever daemon reads the echo can tell whether a
	// person's rename landed inside ours.
	Flights []Flight
	// Locked: a person froze the label. LockedLabel is the label it
	// showed then: a rename of ours on its way then, landing after the
	// lock, is put back to it.
	Locked      bool
	LockedLabel string
	// PersonText and PrefixedAs: under --index-prefix-all, the label a
	// person gave a tab and the label we made of it by putting its
	// position in front. While the tab shows PrefixedAs, its person's
	// text is PersonText.
	PersonText string
	PrefixedAs string
	// Released: a person handed the name back to us, even a person's.
	// ReleasedFrom, when known, is the label the target showed when it
	// was released: the release holds while it shows that label, and a
	// person who names it anything else since ends it (herdr tells no one
	// of a pane's rename, so for a pane this is the only way to see it).
	Released     bool
	ReleasedFrom *string
	// Terminal is herdr's terminal id of a pane as last seen: herdr
	// keeps it when a pane moves and its id changes, so the memory
	// follows the pane.
	Terminal string
	// MissingSince is when a full pass first did not see the target.
	MissingSince *time.Time
}

// Pending is one label we asked for and when it stops being one that may
// still land.
type Pending struct {
	Label string
	Until time.Time
}

// Flight is one rename of ours on its way: what it asked for, what the
// last look before it saw, and when it was sent. Answered: herdr answered
// the request (it landed or was refused), so it can no longer land later.
type Flight struct {
	Want     string    `json:"want"`
	Seen     string    `json:"seen"`
	Sent     time.Time `json:"sent"`
	Answered bool      `json:"answered,omitempty"`
	// After is a label whose echo was heard before this rename was
	// decided (a put-back follows the echo of ours it undoes): in a
	// replay of herdr's history its own echo comes after that one.
	After string `json:"after,omitempty"`
	// Decided: a daemon heard its echo live and put back what a person
	// set inside it, or found nothing to. On a 0.7/0.8 replay its echo
	// looks the same as a person's later rename to its label: whoever
	// adopts it only learns from it.
	Decided bool `json:"decided,omitempty"`
	// Over: Seen was the last label we set, and that rename had replaced
	// Over. Right before this rename's echo, Seen after another label
	// than Over is a person's choice of it since (Entry.Over).
	Over string `json:"over,omitempty"`
}

// MayLand says whether a rename of ours asked for at sent may still land
// at now: herdr may read a killed process's request late, but not
// PendingTTL late.
func MayLand(sent, now time.Time) bool { return now.Before(sent.Add(PendingTTL)) }

// Landing are the pending labels that may still land at now.
func (e Entry) Landing(now time.Time) []string {
	var out []string
	for _, p := range e.Pending {
		if now.Before(p.Until) {
			out = append(out, p.Label)
		}
	}
	return out
}

// OurLabels are the labels of the target that are ours at now: the last
// one we set, and the pending ones that may still land.
func (e Entry) OurLabels(now time.Time) []string {
	var out []string
	if e.Label != "" {
		out = append(out, e.Label)
	}
	return append(out, e.Landing(now)...)
}

// PendingLanded says whether label is a pending one of ours other than
// the last we set: a rename whose reply was lost, or a killed daemon's
// late one, landed.
func (e Entry) PendingLanded(label string, now time.Time) bool {
	return label != e.Label && slices.Contains(e.Landing(now), label)
}

// SeenBefore is what the look before our newest rename to want saw, ""
// when no flight of it is remembered.
func (e Entry) SeenBefore(want string) string {
	for i := len(e.Flights) - 1; i >= 0; i-- {
		if e.Flights[i].Want == want {
			return e.Flights[i].Seen
		}
	}
	return ""
}

// Unanswered are the flights sent at or after since that herdr has not
// answered yet: they may still land.
func (e Entry) Unanswered(since time.Time) []Flight {
	var out []Flight
	for _, f := range e.Flights {
		if !f.Answered && !f.Sent.Before(since) {
			out = append(out, f)
		}
	}
	return out
}

// entryJSON is an entry as the file holds it. The pending labels are
// written both as a plain list with the newest expiry (what older
// versions read) and with each label's own expiry.
type entryJSON struct {
	Label        string               `json:"label,omitempty"`
	Over         string               `json:"over,omitempty"`
	Pending      LabelSet             `json:"pending,omitempty"`
	PendingUntil *time.Time           `json:"pending_until,omitempty"`
	PendingTimes map[string]time.Time `json:"pending_times,omitempty"`
	Flights      []Flight             `json:"flights,omitempty"`
	Locked       bool                 `json:"locked,omitempty"`
	LockedLabel  string               `json:"locked_label,omitempty"`
	PersonText   string               `json:"person_text,omitempty"`
	PrefixedAs   string               `json:"prefixed_as,omitempty"`
	Released     bool                 `json:"released,omitempty"`
	ReleasedFrom *string              `json:"released_from,omitempty"`
	Terminal     string               `json:"terminal,omitempty"`
	MissingSince *time.Time           `json:"missing_since,omitempty"`
}

// MarshalJSON writes the file's form of the entry.
func (e Entry) MarshalJSON() ([]byte, error) {
	j := entryJSON{Label: e.Label, Over: e.Over, Flights: e.Flights, Locked: e.Locked, LockedLabel: e.LockedLabel,
		PersonText: e.PersonText, PrefixedAs: e.PrefixedAs, Released: e.Released, ReleasedFrom: e.ReleasedFrom,
		MissingSince: e.MissingSince, Terminal: e.Terminal}
	for _, p := range e.Pending {
		j.Pending = append(j.Pending, p.Label)
		if j.PendingTimes == nil {
			j.PendingTimes = map[string]time.Time{}
		}
		j.PendingTimes[p.Label] = p.Until
		if j.PendingUntil == nil || p.Until.After(*j.PendingUntil) {
			u := p.Until
			j.PendingUntil = &u
		}
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads the file's form. A pending label without its own
// expiry (an older version wrote it) takes the entry's pending_until, or
// none at all: readFile then gives it PendingTTL from the read.
func (e *Entry) UnmarshalJSON(b []byte) error {
	var j entryJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*e = Entry{Label: j.Label, Over: j.Over, Flights: j.Flights, Locked: j.Locked, LockedLabel: j.LockedLabel,
		PersonText: j.PersonText, PrefixedAs: j.PrefixedAs, Released: j.Released, ReleasedFrom: j.ReleasedFrom,
		MissingSince: j.MissingSince, Terminal: j.Terminal}
	for _, l := range j.Pending {
		p := Pending{Label: l}
		if u, ok := j.PendingTimes[l]; ok {
			p.Until = u
		} else if j.PendingUntil != nil {
			p.Until = *j.PendingUntil
		}
		e.Pending = append(e.Pending, p)
	}
	return nil
}

// LabelSet is a small ordered set of labels, oldest first: the plain form
// of the pending labels in the file.
type LabelSet []string

// UnmarshalJSON also reads the single string older versions wrote.
func (l *LabelSet) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*l = nil
		if one != "" {
			*l = LabelSet{one}
		}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*l = LabelSet(many)
	return nil
}
