package renamer

import (
	"context"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/owner"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// Herdr is what the renamer asks of herdr: *herdr.Client.
type Herdr interface {
	RenameTab(ctx context.Context, id, label string) (herdr.Tab, error)
	RenameWorkspace(ctx context.Context, id, label string) (herdr.Workspace, error)
	RenamePane(ctx context.Context, id, label string) (herdr.Pane, error)
	Tab(ctx context.Context, id string) (herdr.Tab, error)
	Pane(ctx context.Context, id string) (herdr.Pane, error)
	Workspaces(ctx context.Context) ([]herdr.Workspace, error)
	Protocol() int
}

// Memory is where the renamer records and reads: *state.State.
type Memory interface {
	Entry(t state.Target) state.Entry
	IDs(kind state.Kind) []string
	Update(fn func(*state.Tx)) error
	Refresh() error
}

// Kind is what a rename sets, and so what the memory records of it.
type Kind uint8

const (
	// OurName is a name of ours: pending while on its way, ours once set.
	OurName Kind = iota
	// PersonPrefix is a person's label with its position put in front:
	// still theirs.
	PersonPrefix
	// GiveBack is a label not ours (a put-back, restore's number): only
	// its flight is recorded.
	GiveBack
)

// Outcome is what came of one rename: the one account of a target's fate
// in a pass.
type Outcome uint8

const (
	NotSent  Outcome = iota // kept at the re-read, deferred, or not sent
	Refused                 // herdr answered no
	InFlight                // sent, no answer: it may still land
	Done
	// Landed: not sent, because the re-read found the target already
	// showing the label wanted, ours to set (a killed daemon's rename of
	// it, still pending, landed meanwhile).
	Landed
	// LockedBack: sent and applied, but a lock came while it was on its
	// way, and the label the lock kept was put back.
	LockedBack
	// Deferred: not sent, the caller's time being nearly up; the next
	// pass decides again.
	Deferred
	// Held: not sent, a person's label being on its way back to the
	// target (a put-back): a rename of ours now could land after it and
	// take the person's name again. The pass after it decides again.
	Held
)

// Rename is one rename on its way through the renamer: what the caller
// asks, then what came of it.
type Rename struct {
	Kind   Kind
	Target state.Target
	Seen   string // the label the last look saw
	Want   string
	Text   string // PersonPrefix: the person's text in Want
	// After is a label whose echo decided this rename (see state.Flight).
	After string
	// Case, for OurName, is what the caller knew of the label's fate
	// (the name wanted, the template's variants, --force): the re-read
	// asks the target kind's rule (package owner) with the label it finds
	// and the memory as it is then, a lock since the pass began included.
	Case owner.Case
	// Over, for GiveBack, says whether a label the re-read finds may be
	// replaced, given the memory as it is then; nil: only Seen may.
	Over func(label string, m owner.Memory) bool
	Why  string // for the log

	// What came of it.
	Out Outcome
	// Now is the label the re-read found when it differs from Seen, and
	// Verdict whose it is (judged when Judged).
	Now     string
	Verdict owner.Verdict
	Judged  bool
	// Shows is a label the target shows after the rename besides Want
	// (one found at the re-read, or a lock's label put back).
	Shows string
	// Err says why a rename failed or was not sent (nil when it was):
	// herdr's error, ErrHeld, ErrDeferred, the memory's.
	Err error
	// sent is when its record was written, recorded the label its look
	// saw then (Seen may change at the re-read).
	sent     time.Time
	recorded string
	// over: recorded was our last label, which our rename to it had
	// replaced over (state.Flight.Over).
	over string
	// backs are the put-backs of a lock's label that followed it, and
	// what came of each: renames of ours too, followed to their echoes.
	backs []lockBack
}

// lockBack is one put-back of a lock's label after a rename of ours.
type lockBack struct {
	state.Flight
	out Outcome
}

// A Label is a label a target shows after a rename of ours.
type Label struct {
	Target state.Target
	Label  string
}

// Showing lists, in order, what renames leave their targets showing: a
// label found at the re-read or a lock's put back (Shows), then the label
// a rename set. The caller's view of the session takes them in: their
// echoes are old news.
func Showing(rs ...*Rename) []Label {
	var out []Label
	for _, x := range rs {
		if x.Shows != "" {
			out = append(out, Label{x.Target, x.Shows})
		}
		if x.Out == Done {
			out = append(out, Label{x.Target, x.Want})
		}
	}
	return out
}

// RenamedKinds are the rename events whose replay's end the renamer needs
// to hear of (herdr.Feed's replayed kinds).
var RenamedKinds = []herdr.EventKind{herdr.TabRenamed, herdr.WorkspaceRenamed}
