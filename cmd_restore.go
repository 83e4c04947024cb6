package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/claim"
	"github.com/herdrtabrenamer/herdrtabrenamer/contrib"
	"github.com/herdrtabrenamer/herdrtabrenamer/daemon"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/owner"
	"github.com/herdrtabrenamer/herdrtabrenamer/pass"
	"github.com/herdrtabrenamer/herdrtabrenamer/renamer"
	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// RestoreCmd undoes our names: every tab whose label is ours gets herdr's
// default back, every pane label of ours is cleared, and names people
// chose stay.
type RestoreCmd struct {
	// The naming flags tell our names apart: a label is ours when the state
	// file says so or when it is a render of the same template.
	NamingFlags `embed:""`
	Apply       bool   `help:"Rename the tabs and stop the daemon (without it: dry run, print what would change)."`
	Pane        string `help:"Only this pane, e.g. w1:p3: its label is cleared if it is ours; tabs and other panes stay." placeholder:"ID" env:"-"`
}

// stopWait is how long restore waits for a running daemon to exit after
// SIGTERM; a daemon ends its pass and exits in milliseconds.
const stopWait = 5 * time.Second

// restoreEchoWait bounds how long restore follows the labels it gave back
// to their echoes: herdr echoes a rename within a tick or two, and a
// 0.7/0.8 stream's replay ends after a second without events.
const restoreEchoWait = 5 * time.Second

// Run stops the daemon (it would name the tabs again at once), renames
// each of our tabs to its position number, clears each pane label of ours
// and forgets them. herdr cannot
// clear a custom label (tab.rename "" stores an empty one, docs/herdr.md
// §6), and the position is what herdr shows for an unnamed tab (§6).
// Exit 1 when a rename failed or the daemon would not stop.
func (c *RestoreCmd) Run(g *Globals, env *runEnv) error {
	if c.Pane != "" {
		if _, _, err := herdr.ParsePaneID(c.Pane); err != nil {
			return withExit(2, fmt.Errorf("restore --pane: %w", err))
		}
	}
	opt, err := newOptions(&c.NamingFlags, g, env)
	if err != nil {
		return err
	}
	// --force makes a person's label look ours: never for an undo.
	opt.Naming.Force, opt.Naming.Apply = false, false
	release, err := c.takeOver(env, opt.Socket)
	if err != nil {
		return err
	}
	// Held until the end: a startup hook firing meanwhile exits quietly
	// (--if-not-running) instead of renaming behind our back.
	defer release()

	d, err := daemon.New(opt)
	if err != nil {
		return err
	}
	if err := d.State().Damaged(); err != nil {
		// Its locks and people's texts cannot be read: undoing names
		// now could undo a person's.
		return withExit(1, fmt.Errorf("restore: %w", err))
	}
	forget, failed, err := c.undo(context.Background(), env, d)
	if err != nil {
		return withExit(1, err)
	}
	if c.Apply && len(forget) > 0 && opt.StatePath != "" {
		if err := forgetTargets(d, forget); err != nil {
			return withExit(1, err)
		}
	}
	printUninstall(env.stdout, c.Apply)
	if failed > 0 {
		return withExit(1, fmt.Errorf("%d rename(s) failed", failed))
	}
	return nil
}

// undo gives back the tabs' labels of ours (all of them, unless --pane)
// and clears the panes' (--pane: that one alone), printing what it does.
// It returns what to forget and how many renames failed.
func (c *RestoreCmd) undo(ctx context.Context, env *runEnv, d *daemon.Daemon) (forget []state.Target, failed int, err error) {
	reps, err := d.Explain(ctx, "")
	if err != nil {
		return nil, 0, err
	}
	snap, err := d.Client().Snapshot(ctx)
	if err != nil {
		return nil, 0, err
	}
	if c.Pane == "" {
		pos := namer.Positions(snap.Tabs)
		finish := func(time.Duration) {}
		if c.Apply {
			// Each label given back is followed to its echo: a person's
			// rename landing inside one goes back.
			finish = d.FollowRenames(ctx)
		}
		forget, failed = c.restoreTabs(ctx, env, d, reps, pos)
		finish(restoreEchoWait)
		forget = append(forget, c.listGone(env, d, pos)...)
	}
	panes, pfailed, err := c.restorePanes(ctx, env, d, snap, reps)
	if err != nil {
		return nil, 0, err
	}
	return append(forget, panes...), failed + pfailed + c.restoreSidebar(ctx, env, d, snap), nil
}

// forgotWord starts the line of a tab restore forgets, its columns lined
// up with the other lines.
func (c *RestoreCmd) forgotWord() string {
	if !c.Apply {
		return "would forget"
	}
	return "forgot  "
}

// restoreTabs gives each reported tab its label back (with --apply) and
// prints what it does. It returns the tabs to forget and how many renames
// failed.
func (c *RestoreCmd) restoreTabs(ctx context.Context, env *runEnv, d *daemon.Daemon, reps []pass.Report, pos map[string]int) (forget []state.Target, failed int) {
	forgot := c.forgotWord()
	for _, r := range reps {
		if r.PaneID != "" {
			continue // restorePanes' to give back
		}
		back, keep := owner.Restore(r.Label, r.Judged, d.State().Tab(r.TabID), time.Now(), pos[r.TabID])
		switch {
		case back == "" && keep == "locked":
			fmt.Fprintf(env.stdout, "left     %s %q: locked, a person chose to keep it\n", r.TabID, r.Label)
			continue
		case back == "":
			fmt.Fprintf(env.stdout, "left     %s %q: %s\n", r.TabID, r.Label, keep)
			// What we remember of it (our old label) is moot now.
		case r.Label == back:
			fmt.Fprintf(env.stdout, "%s %s %q: already its number\n", forgot, r.TabID, r.Label)
		case !c.Apply:
			fmt.Fprintf(env.stdout, "would restore %s %q -> %q\n", r.TabID, r.Label, back)
		default:
			err := d.Renamer().GiveBack(ctx, state.TabTarget(r.TabID), r.Label, back)
			if errors.Is(err, renamer.ErrRenamedSince) {
				// Someone named it as restore read the session: theirs
				// stays, and our memory of it is moot.
				fmt.Fprintf(env.stdout, "left     %s %q: %v\n", r.TabID, r.Label, err)
				break
			}
			if err != nil {
				failed++
				fmt.Fprintf(env.stderr, "herdrtabrenamer: restore %s to %q: %v\n", r.TabID, back, err)
				continue
			}
			fmt.Fprintf(env.stdout, "restored %s %q -> %q\n", r.TabID, r.Label, back)
		}
		forget = append(forget, state.TabTarget(r.TabID))
	}
	return forget, failed
}

// listGone prints and returns the remembered tabs that are gone. Their
// entries hold nothing to give back; an undo leaves no memory of them
// either.
func (c *RestoreCmd) listGone(env *runEnv, d *daemon.Daemon, pos map[string]int) []state.Target {
	var gone []state.Target
	for _, id := range goneTabs(d.State(), pos, c.Workspace) {
		fmt.Fprintf(env.stdout, "%s %s: the tab is gone\n", c.forgotWord(), id)
		gone = append(gone, state.TabTarget(id))
	}
	return gone
}

// forgetTargets drops the tabs' and panes' entries from the state file.
func forgetTargets(d *daemon.Daemon, ts []state.Target) error {
	if err := d.State().Edit(func(tx *state.Tx) {
		for _, t := range ts {
			tx.Undo(t)
		}
	}); err != nil {
		return fmt.Errorf("restore: forget %d tab(s) and pane(s): %w", len(ts), err)
	}
	return nil
}

// takeOver claims the herdr server for the restore: its own claim first
// (claimRestore), then the daemon's, stopping a running daemon with
// --apply. release gives both back.
func (c *RestoreCmd) takeOver(env *runEnv, sock string) (release func(), err error) {
	mine, err := claimRestore(sock)
	if err != nil {
		return nil, withExit(1, err)
	}
	inst, pid, err := claim.TakeOver(sock, c.Apply, stopWait)
	switch {
	case c.Apply && err != nil:
		err = withExit(1, fmt.Errorf("restore: %w; stop it, then run restore --apply again", err))
	case c.Apply && pid != 0:
		fmt.Fprintf(env.stdout, "stopped the daemon (pid %d): it would name the tabs again\n", pid)
	case !c.Apply && errors.Is(err, claim.ErrAlreadyRunning):
		fmt.Fprintf(env.stdout, "would stop the daemon (pid %d) first: it would name the tabs again\n", pid)
		err = nil
	case err != nil:
		err = withExit(1, fmt.Errorf("restore: %w", err))
	}
	if err != nil {
		mine.Release()
		return nil, err
	}
	return func() { inst.Release(); mine.Release() }, nil
}

// claimRestore takes the restore claim of a herdr server, a lock beside
// the daemon's, for the whole restore. A restore also holds the daemon's
// claim, with its own pid in it, so a second restore would take it for
// the daemon and stop it with SIGTERM halfway; with this claim taken
// first, the second one stops here and signals no one.
func claimRestore(sock string) (*claim.Instance, error) {
	if _, err := rundir.Dir(); err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	path := strings.TrimSuffix(claim.InstanceLockPath(sock), ".lock") + ".restore.lock"
	inst, err := claim.AcquireInstance(path)
	if errors.Is(err, claim.ErrAlreadyRunning) {
		return nil, fmt.Errorf("restore: another restore (pid %d) is running for this herdr; let it finish, then run this one again", claim.HolderPID(path))
	}
	if err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	return inst, nil
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

// printUninstall says how to keep the names from coming back.
func printUninstall(w io.Writer, applied bool) {
	if !applied {
		fmt.Fprintln(w, "dry run: nothing renamed; run restore --apply to do it")
	}
	fmt.Fprintf(w, `To stop naming tabs for good:
  the daemon:  restore --apply stops it; a service also needs: systemctl --user disable --now %s
               (macOS: launchctl unload ~/Library/LaunchAgents/%s.plist, then delete that file)
  the plugin:  herdr plugin uninstall herdrtabrenamer   (or unlink the folder given to init herdr-plugin)
  shell hooks: delete the "herdrtabrenamer init zsh|bash|fish" line from ~/.zshrc, ~/.bashrc
               or ~/.config/fish/config.fish
`, contrib.SystemdUnitName, contrib.LaunchdLabel)
}
