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
	"github.com/herdrtabrenamer/herdrtabrenamer/sidebar"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// restorePanes clears every pane label of ours in scope (--pane, else
// --workspace, else all), with --apply, and prints what it does; a pane
// label is cleared with pane.rename "", herdr's own "no label". Pane
// labels are judged whether or not pane names are on now: a daemon run
// with --pane-format before left its labels in the memory. It returns
// the panes to forget and how many clears failed.
func (c *restorer) restorePanes(ctx context.Context, snap *herdr.Snapshot, reps []pass.Report) (forget []state.Target, failed int, err error) {
	judged := map[string]owner.Verdict{}
	for _, r := range reps {
		if r.PaneID != "" {
			judged[r.PaneID] = r.Judged
		}
	}
	live := map[string]bool{}
	for _, p := range snap.Panes {
		live[p.ID] = true
		if !c.paneInScope(p) {
			continue
		}
		t := state.PaneTarget(p.ID)
		keep, ok := c.restorePane(ctx, p, judged)
		switch {
		case !ok:
			failed++
		case keep != "locked" && c.d.State().Has(t):
			forget = append(forget, t)
		}
	}
	if c.opt.Pane != "" && !live[c.opt.Pane] {
		return nil, 0, fmt.Errorf("restore --pane: herdr at %s has no pane %s (herdr pane list shows the panes)", c.d.Client().SocketPath(), c.opt.Pane)
	}
	for _, id := range c.d.State().IDs(state.Pane) {
		t := state.PaneTarget(id)
		if !live[id] && !c.d.State().Entry(t).Locked && (c.opt.Pane == "" || c.opt.Pane == id) && c.inWorkspace(id) {
			fmt.Fprintf(c.out, "%s pane %s: the pane is gone\n", c.forgotWord(), id)
			forget = append(forget, t)
		}
	}
	return forget, failed, nil
}

// paneInScope reports whether restore looks at pane p.
func (c *restorer) paneInScope(p herdr.Pane) bool {
	if c.opt.Pane != "" {
		return p.ID == c.opt.Pane
	}
	return c.opt.Daemon.Naming.Workspace == "" || p.WorkspaceID == c.opt.Daemon.Naming.Workspace
}

// inWorkspace reports whether pane id is in --workspace (every pane
// without it).
func (c *restorer) inWorkspace(id string) bool {
	ws, _, err := herdr.ParsePaneID(id)
	return err == nil && (c.opt.Daemon.Naming.Workspace == "" || ws == c.opt.Daemon.Naming.Workspace)
}

// restorePane clears pane p's label when it is ours and prints what it
// does; a pane with no label and no memory goes unmentioned. keep is
// "locked" for a pane a person locked; ok is false when the clear failed.
func (c *restorer) restorePane(ctx context.Context, p herdr.Pane, judged map[string]owner.Verdict) (keep string, ok bool) {
	t := state.PaneTarget(p.ID)
	switch keep := owner.RestorePane(p.Label, judged[p.ID], c.d.State().Entry(t), time.Now()); {
	case keep == "locked":
		fmt.Fprintf(c.out, "left     pane %s %q: locked, a person chose to keep it\n", p.ID, p.Label)
		return "locked", true
	case keep == "no label":
		if c.d.State().Has(t) {
			fmt.Fprintf(c.out, "%s pane %s: no label\n", c.forgotWord(), p.ID)
		}
	case keep != "":
		fmt.Fprintf(c.out, "left     pane %s %q: %s\n", p.ID, p.Label, keep)
	case !c.opt.Apply:
		fmt.Fprintf(c.out, "would clear pane %s %q\n", p.ID, p.Label)
	default:
		err := c.d.Renamer().GiveBack(ctx, t, p.Label, "")
		switch {
		case errors.Is(err, renamer.ErrRenamedSince):
			// Someone named it as restore read the session: theirs stays.
			fmt.Fprintf(c.out, "left     pane %s %q: %v\n", p.ID, p.Label, err)
		case err != nil:
			fmt.Fprintf(c.errs, "herdrtabrenamer: restore: clear pane %s: %v\n", p.ID, err)
			return "", false
		default:
			fmt.Fprintf(c.out, "cleared  pane %s %q\n", p.ID, p.Label)
		}
	}
	return "", true
}

// restoreSidebar clears every sidebar token of ours on the panes in
// scope, with --apply, and prints what it does: herdr keeps a token until
// its server stops, and a sidebar row would show ours meanwhile. It
// returns how many clears failed.
func (c *restorer) restoreSidebar(ctx context.Context, snap *herdr.Snapshot) (failed int) {
	var panes []herdr.Pane
	for _, p := range snap.Panes {
		if c.paneInScope(p) {
			panes = append(panes, p)
		}
	}
	rep := sidebar.New(c.d.Client())
	for _, r := range sidebar.Clear(panes) {
		if !c.opt.Apply {
			fmt.Fprintf(c.out, "would clear sidebar tokens %s\n", r)
			continue
		}
		if _, err := rep.Send(ctx, []sidebar.Report{r}); err != nil {
			fmt.Fprintf(c.errs, "herdrtabrenamer: restore: clear %v\n", err)
			failed++
			continue
		}
		fmt.Fprintf(c.out, "cleared  sidebar tokens %s\n", r)
	}
	return failed
}
