package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// LabelBack is a label restore gives a tab back, one that is not ours:
// its position number, or a person's own text.
type LabelBack struct {
	TabID string
	From  string // the label restore read; one changed since stays
	To    string
}

// ErrRenamedSince says a tab's label changed after it was read: someone
// renamed it, and their name stays.
var ErrRenamedSince = errors.New("renamed since it was read")

// GiveBack gives a tab a label back through the renamer: the tab is looked
// at right before the request, and a label that changed since b.From was
// read stays (ErrRenamedSince, with the label it shows now).
func (d *Daemon) GiveBack(ctx context.Context, b LabelBack) error {
	rep := &TabReport{TabID: b.TabID, Label: b.From}
	r := &rename{kind: giveBack, t: target{tabTarget, b.TabID}, seen: b.From, want: b.To, rep: rep, why: "restore"}
	var w stateWrites
	d.sendRenames(ctx, []*rename{r}, false, &w, &PassStats{})
	switch {
	case r.out == renameDone:
		return nil
	case rep.Error != "":
		return errors.New(rep.Error)
	case rep.Label != b.From:
		return fmt.Errorf("%w: it shows %q now", ErrRenamedSince, rep.Label)
	}
	return fmt.Errorf("tab %s is gone", b.TabID)
}

// PutBackLock looks at a tab once more after lock saved the lock: a
// rename of ours that was on its way when lock read the label, and landed
// since, goes back to the label the tab was locked with. A rename that
// lands after this look finds the lock on disk when herdr answers the
// daemon (renamer.putBackLock).
func PutBackLock(ctx context.Context, client *herdr.Client, st *state.State, tabID, label string) error {
	d := &Daemon{client: client, state: st, clock: time.Now, log: slog.New(slog.DiscardHandler)}
	mem := st.Tabs[tabID]
	r := &rename{kind: giveBack, t: target{tabTarget, tabID}, want: label, rep: &TabReport{},
		why: "a rename of ours landed as the tab was locked", over: func(now string) bool {
			at := time.Now()
			m := namer.Memory{Locked: true, LockedLabel: label, Labels: mem.OurLabels(at), Landing: mem.Landing(at)}
			return namer.FateOf(namer.Case{Label: now, Memory: m}).Do == namer.PutBack
		}}
	d.sendRenames(ctx, []*rename{r}, false, &stateWrites{}, &PassStats{})
	if r.rep.Error != "" {
		return fmt.Errorf("a rename of ours may have landed as it was locked, and putting %q back failed: %s", label, r.rep.Error)
	}
	return nil
}
