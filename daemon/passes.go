package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/claim"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/owner"
	"github.com/herdrtabrenamer/herdrtabrenamer/pass"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
	"github.com/herdrtabrenamer/herdrtabrenamer/renamer"
	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
	"github.com/herdrtabrenamer/herdrtabrenamer/sidebar"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// passInput is what a pass starts from: pass.Input without the snapshot,
// and, when one was read ahead (a preexec nudge's wait), that snapshot.
type passInput struct {
	pass.Input
	snap   *herdr.Snapshot
	snapAt time.Time
}

// pass reads the session once, plans every tab in scope, has the renamer
// send the plan's renames, and returns the reports.
func (d *Daemon) pass(ctx context.Context, in passInput) ([]pass.Report, pass.Stats, error) {
	if !in.Urgent {
		ctx = herdr.WithoutHedge(ctx)
	}
	before := d.client.HedgeStats().Hedged
	reps, stats, err := d.runPass(ctx, in)
	stats.Hedges = int(d.client.HedgeStats().Hedged - before)
	return reps, stats, err
}

func (d *Daemon) runPass(ctx context.Context, in passInput) ([]pass.Report, pass.Stats, error) {
	d.renamer.Expire()
	switch err := d.state.Refresh(); {
	case err == nil && d.state.Damaged() == nil:
		d.renamer.RetryPutBacks()
	case err != nil && !state.IsDamaged(err):
		d.log.Warn("state file", "err", err)
	}
	snap, at := in.snap, in.snapAt
	if snap == nil {
		at = d.now()
		var err error
		if snap, err = d.api.Snapshot(ctx); err != nil {
			return nil, pass.Stats{}, err
		}
	}
	d.checkInstance(ctx, snap, !in.ReadOnly)
	if d.subscribed {
		d.renamer.Saw(owner.Shows(snap))
	}
	in.Snap, in.SnapAt, in.First = snap, at, d.view.None()
	d.passes.Add(1)
	d.view.Set(snap)
	plan := d.planner.Plan(ctx, in.Input, d.state)
	d.shells.Found(plan.Shells)
	var err error
	if !in.ReadOnly {
		// A snapshot this young, with the stream watching for the echo,
		// needs no re-read before each tab's rename: a person's rename
		// since shows on the stream before our echo, and the renamer
		// puts it back.
		young := d.now().Sub(at) < youngSnapshot && d.renamer.EchoWatched(d.subscribed)
		_, err = d.renamer.Send(ctx, plan.Renames, plan.Edits, young)
		d.shows(renamer.Showing(plan.Renames...))
		plan.Conclude()
	}
	n, serr := d.sidebar.Pass(ctx, snap, plan.Sidebar, d.opt.Naming.Apply, d.opt.Out)
	if refused := (*sidebar.RefusedError)(nil); errors.As(serr, &refused) {
		// Said once: a refused report is not sent again until the pane
		// or what we would report changes.
		d.log.Warn("herdr has no room on a pane for our sidebar tokens", "err", serr)
	} else if serr != nil || n > 0 {
		d.log.Debug("sidebar tokens reported", "reports", n, "err", serr)
	}
	d.trouble(rundir.TroubleSidebar, d.sidebar.Refused())
	d.dry.workspaces(d.opt.Out, plan.Workspaces)
	// The tabs' reports, then the panes' (PaneID set), as the plan
	// sends their renames.
	reps := make([]pass.Report, 0, len(plan.Rows)+len(plan.Panes))
	for _, r := range plan.Rows {
		reps = append(reps, r.Report)
	}
	for _, pr := range plan.Panes {
		reps = append(reps, pr.Report)
	}
	for i := range reps {
		reps[i].EscapeText()
	}
	return reps, plan.Stats, err
}

// checkInstance compares the server serving the socket with the one the
// memory describes, once per subscription (claim.Check). Without write
// (explain) it only forgets, in memory, what no longer holds.
func (d *Daemon) checkInstance(ctx context.Context, snap *herdr.Snapshot, write bool) {
	if d.instance.checked && d.instance.gen == d.gen {
		return
	}
	d.instance.checked, d.instance.gen = true, d.gen
	d.shells.SetServer(socketPeerPID(ctx, d.client.SocketPath()))
	res, err := claim.Check(ctx, d.client.SocketPath(), snap, d.state, write, d.now())
	if err != nil && !state.IsDamaged(err) {
		d.log.Warn("could not save state; keeping it in memory", "err", err)
	}
	if res.Revalidated && write {
		d.renamer.ServerGone()
		d.view.NewServer()
		d.sidebar.Forget()
	}
	switch {
	case res.Verdict == claim.Restarted:
		d.log.Info("herdr's server restarted: kept the memory of what still shows it, forgot the rest",
			"why", res.Why, "kept", res.Kept, "forgot", res.Forgot)
	case res.Verdict == claim.Unknown && res.Changed:
		d.log.Warn("cannot tell whether herdr's server restarted: kept only the memory of what still shows it",
			"why", res.Why, "kept", res.Kept, "forgot", res.Forgot)
	}
}

// showDry shows a dry run's new tab and pane decisions, each once.
func (d *Daemon) showDry(reps []pass.Report) { d.dry.tabs(d.opt.Out, reps) }

// socketPeerPID is the pid serving herdr's socket as this machine's
// kernel names it, 0 when it names none: what proves a pane's shell local.
func socketPeerPID(ctx context.Context, socket string) int {
	peer, err := procinfo.SocketPeer(ctx, socket)
	if err != nil {
		return 0
	}
	return peer.PID
}

// dryRun remembers the decisions a dry run has shown, so each is shown
// once, per tab and workspace.
type dryRun struct {
	shown map[string]string
}

// show reports whether want is new for key, and remembers it; an empty
// want forgets key.
func (r *dryRun) show(key, want string) bool {
	if r.shown == nil {
		r.shown = map[string]string{}
	}
	if want == "" {
		delete(r.shown, key)
		return false
	}
	if r.shown[key] == want {
		return false
	}
	r.shown[key] = want
	return true
}

// tabs shows each new tab and pane decision of a dry run once.
func (r *dryRun) tabs(out io.Writer, reps []pass.Report) {
	for _, rep := range reps {
		want := rep.Want
		if rep.Action != pass.ActionWouldRename {
			want = ""
		}
		if r.show(rep.Subject(), want) {
			fmt.Fprintf(out, "would rename %s %q -> %q (%s)\n", rep.Named(), rep.Label, rep.Want, rep.Why())
		}
	}
}

// workspaces shows each new workspace decision of a dry run once.
func (r *dryRun) workspaces(out io.Writer, decs []pass.WorkspaceDecision) {
	seen := map[string]bool{}
	for _, w := range decs {
		seen["workspace "+w.ID] = true
		if r.show("workspace "+w.ID, w.Want) {
			fmt.Fprintf(out, "would rename workspace %s %q -> %q (label was %s)\n", w.ID, w.Label, w.Want, w.Verdict)
		}
	}
	for key := range r.shown {
		if strings.HasPrefix(key, "workspace ") && !seen[key] {
			delete(r.shown, key)
		}
	}
}
