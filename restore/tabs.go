package restore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/owner"
	"github.com/herdrtabrenamer/herdrtabrenamer/pass"
	"github.com/herdrtabrenamer/herdrtabrenamer/renamer"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// restoreTabs gives each reported tab its label back (with --apply) and
// prints what it does. It returns the tabs to forget and how many renames
// failed.
func (c *restorer) restoreTabs(ctx context.Context, reps []pass.Report, pos map[string]int) (forget []state.Target, failed int) {
	forgot := c.forgotWord()
	for _, r := range reps {
		if r.PaneID != "" {
			continue // restorePanes' to give back
		}
		back, keep := owner.Restore(r.Label, r.Judged, c.d.State().Tab(r.TabID), time.Now(), pos[r.TabID])
		switch {
		case back == "" && keep == "locked":
			fmt.Fprintf(c.out, "left     %s %q: locked, a person chose to keep it\n", r.TabID, r.Label)
			continue
		case back == "":
			fmt.Fprintf(c.out, "left     %s %q: %s\n", r.TabID, r.Label, keep)
			// What we remember of it (our old label) is moot now.
		case r.Label == back:
			fmt.Fprintf(c.out, "%s %s %q: already its number\n", forgot, r.TabID, r.Label)
		case !c.opt.Apply:
			fmt.Fprintf(c.out, "would restore %s %q -> %q\n", r.TabID, r.Label, back)
		default:
			err := c.d.Renamer().GiveBack(ctx, state.TabTarget(r.TabID), r.Label, back)
			if errors.Is(err, renamer.ErrRenamedSince) {
				// Someone named it as restore read the session: theirs
				// stays, and our memory of it is moot.
				fmt.Fprintf(c.out, "left     %s %q: %v\n", r.TabID, r.Label, err)
				break
			}
			if err != nil {
				failed++
				fmt.Fprintf(c.errs, "herdrtabrenamer: restore %s to %q: %v\n", r.TabID, back, err)
				continue
			}
			fmt.Fprintf(c.out, "restored %s %q -> %q\n", r.TabID, r.Label, back)
		}
		forget = append(forget, state.TabTarget(r.TabID))
	}
	return forget, failed
}

// listGone prints and returns the remembered tabs that are gone. Their
// entries hold nothing to give back; an undo leaves no memory of them
// either.
func (c *restorer) listGone(pos map[string]int) []state.Target {
	var gone []state.Target
	for _, id := range goneTabs(c.d.State(), pos, c.opt.Daemon.Naming.Workspace) {
		fmt.Fprintf(c.out, "%s %s: the tab is gone\n", c.forgotWord(), id)
		gone = append(gone, state.TabTarget(id))
	}
	return gone
}

// goneTabs are the remembered tabs missing from the session (in
// workspace ws, when given), without a lock a person set, sorted.
func goneTabs(st *state.State, present map[string]int, ws string) []string {
	var out []string
	for _, id := range st.IDs(state.Tab) {
		w, _, err := herdr.ParseTabID(id)
		if _, ok := present[id]; ok || st.Tab(id).Locked || err != nil || (ws != "" && w != ws) {
			continue
		}
		out = append(out, id)
	}
	return out
}
