package restore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/claim"
	"github.com/herdrtabrenamer/herdrtabrenamer/contrib"
	"github.com/herdrtabrenamer/herdrtabrenamer/daemon"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// stopWait is how long restore waits for a running daemon to exit after
// SIGTERM; a daemon ends its pass and exits in milliseconds.
const stopWait = 5 * time.Second

// echoWait bounds how long restore follows the labels it gave back to
// their echoes: herdr echoes a rename within a tick or two, and a 0.7/0.8
// stream's replay ends after a second without events.
const echoWait = 5 * time.Second

// Options are a restore's.
type Options struct {
	// Daemon are the daemon's options as run builds them from the naming
	// flags: a label is ours when the state file says so or when it is a
	// render of the same template. Only --workspace's tabs and panes are
	// undone when it is set.
	Daemon daemon.Options
	Apply  bool   // undo (without it: say what would be undone)
	Pane   string // only this pane: its label is cleared if it is ours
}

// restorer is one restore's work.
type restorer struct {
	opt       Options
	out, errs io.Writer
	d         *daemon.Daemon
}

// Run stops the daemon (it would name the tabs again at once), renames
// each of our tabs to its position number, clears each pane label of ours
// and forgets them, printing what it does to out and each failure to
// errs. herdr cannot clear a custom label (tab.rename "" stores an empty
// one, docs/herdr.md §6), and the position is what herdr shows for an
// unnamed tab (§6). An error when a rename failed or the daemon would not
// stop.
func Run(ctx context.Context, opt Options, out, errs io.Writer) error {
	// --force makes a person's label look ours: never for an undo.
	opt.Daemon.Naming.Force, opt.Daemon.Naming.Apply = false, false
	c := &restorer{opt: opt, out: out, errs: errs}
	release, err := c.takeOver(opt.Daemon.Socket)
	if err != nil {
		return err
	}
	// Held until the end: a startup hook firing meanwhile exits quietly
	// (--if-not-running) instead of renaming behind our back.
	defer release()
	if c.d, err = daemon.New(opt.Daemon); err != nil {
		return err
	}
	if err := c.d.State().Damaged(); err != nil {
		// Its locks and people's texts cannot be read: undoing names
		// now could undo a person's.
		return fmt.Errorf("restore: %w", err)
	}
	forget, failed, err := c.undo(ctx)
	if err != nil {
		return err
	}
	if opt.Apply && len(forget) > 0 && opt.Daemon.StatePath != "" {
		if err := c.forget(forget); err != nil {
			return err
		}
	}
	printUninstall(out, opt.Apply)
	if failed > 0 {
		return fmt.Errorf("%d rename(s) failed", failed)
	}
	return nil
}

// undo gives back the tabs' labels of ours (all of them, unless --pane)
// and clears the panes' (--pane: that one alone), printing what it does.
// It returns what to forget and how many renames failed.
func (c *restorer) undo(ctx context.Context) (forget []state.Target, failed int, err error) {
	reps, err := c.d.Explain(ctx, "")
	if err != nil {
		return nil, 0, err
	}
	snap, err := c.d.Client().Snapshot(ctx)
	if err != nil {
		return nil, 0, err
	}
	if c.opt.Pane == "" {
		pos := namer.Positions(snap.Tabs)
		finish := func(time.Duration) {}
		if c.opt.Apply {
			// Each label given back is followed to its echo: a person's
			// rename landing inside one goes back.
			finish = c.d.FollowRenames(ctx)
		}
		forget, failed = c.restoreTabs(ctx, reps, pos)
		finish(echoWait)
		forget = append(forget, c.listGone(pos)...)
	}
	panes, pfailed, err := c.restorePanes(ctx, snap, reps)
	if err != nil {
		return nil, 0, err
	}
	return append(forget, panes...), failed + pfailed + c.restoreSidebar(ctx, snap), nil
}

// forgotWord starts the line of a tab restore forgets, its columns lined
// up with the other lines.
func (c *restorer) forgotWord() string {
	if !c.opt.Apply {
		return "would forget"
	}
	return "forgot  "
}

// forget drops the tabs' and panes' entries from the state file.
func (c *restorer) forget(ts []state.Target) error {
	now := time.Now()
	if err := c.d.State().Edit(func(tx *state.Tx) {
		for _, t := range ts {
			tx.Undo(t, now)
		}
	}); err != nil {
		return fmt.Errorf("restore: forget %d tab(s) and pane(s): %w", len(ts), err)
	}
	return nil
}

// takeOver claims the herdr server for the restore: its own claim first
// (claimRestore), then the daemon's, stopping a running daemon with
// --apply. release gives both back.
func (c *restorer) takeOver(sock string) (release func(), err error) {
	mine, err := claimRestore(sock)
	if err != nil {
		return nil, err
	}
	inst, pid, err := claim.TakeOver(sock, c.opt.Apply, stopWait)
	switch {
	case c.opt.Apply && err != nil:
		err = fmt.Errorf("restore: %w; stop it, then run restore --apply again", err)
	case c.opt.Apply && pid != 0:
		fmt.Fprintf(c.out, "stopped the daemon (pid %d): it would name the tabs again\n", pid)
	case !c.opt.Apply && errors.Is(err, claim.ErrAlreadyRunning):
		fmt.Fprintf(c.out, "would stop the daemon (pid %d) first: it would name the tabs again\n", pid)
		err = nil
	case err != nil:
		err = fmt.Errorf("restore: %w", err)
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
	path := claim.RestoreLockPath(sock)
	inst, err := claim.AcquireInstance(path)
	if errors.Is(err, claim.ErrAlreadyRunning) {
		return nil, fmt.Errorf("restore: another restore (pid %d) is running for this herdr; let it finish, then run this one again", claim.HolderPID(path))
	}
	if err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	return inst, nil
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
