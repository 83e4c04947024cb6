package integration

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// herdr restarted without its session counts tab ids from 1 again. The
// memory of the server before (a lock, labels of ours) must not apply to
// the new server's tabs that carry the same ids: the state belongs to one
// server's life, and status says when it describes an earlier one.
func TestRealHerdrRestartWithoutItsSessionStartsClean(t *testing.T) {
	t.Parallel()
	w := newRealWorld(t, worldOptions{})
	sb := w.Sandbox()
	dirs := mkdirs(t, sb, "projects/rmk", "src/web")
	ws, t1, _ := w.NewWorkspace(t, dirs[0])
	cli := func(args ...string) string {
		t.Helper()
		out, stderr, code := runCLI(t, sb, append(args, "--socket", w.Socket(), "--state", sb.StatePath)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s%s", args, code, out, stderr)
		}
		return out
	}
	cli("once", "--apply")
	waitWorldLabels(t, w, ws, "rmk")
	cli("lock", t1)

	if err := w.srv.Stop(); err != nil {
		t.Fatal(err)
	}
	removeSessions(t, w.srv.Home, w.srv.ConfigHome)
	if err := w.srv.Restart(); err != nil {
		t.Fatal(err)
	}
	ws2, t2, _ := w.NewWorkspace(t, dirs[1])
	if t2 != t1 {
		t.Fatalf("herdr restarted without its session did not count ids again (new tab %s, old %s): the test cannot hold", t2, t1)
	}
	status, _, _ := runCLI(t, sb, "status", "--socket", w.Socket(), "--state", sb.StatePath)
	if !strings.Contains(status, "earlier herdr server") {
		t.Errorf("status does not say the state describes an earlier server:\n%s", status)
	}
	// The old server's lock on the id must not hold the new tab.
	cli("once", "--apply")
	waitWorldLabels(t, w, ws2, "web")
}

// removeSessions deletes every session.json herdr saved under dirs.
func removeSessions(t *testing.T, dirs ...string) {
	t.Helper()
	found := 0
	for _, dir := range dirs {
		_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && d.Name() == "session.json" {
				if err := os.Remove(path); err != nil {
					t.Fatal(err)
				}
				found++
			}
			return nil
		})
	}
	if found == 0 {
		t.Fatalf("no session.json under %v", dirs)
	}
}

// renameWindow is a real herdr with a tab the daemon named, reached
// through a relay that can hold the daemon's next rename in the window
// between its look and herdr applying it.
type renameWindow struct {
	w     *realWorld
	relay *requestRelay
	ws    string
	tab   string
	pane  string
	next  string // the folder the tab's next name comes from
}

func newRenameWindow(t *testing.T) *renameWindow {
	t.Helper()
	w := newRealWorld(t, worldOptions{})
	dirs := mkdirs(t, w.Sandbox(), "projects/rmk", "src/web")
	rw := &renameWindow{w: w, relay: startRequestRelay(t, t.TempDir(), w.Socket()), next: dirs[1]}
	rw.ws, rw.tab, rw.pane = w.NewWorkspace(t, dirs[0])
	return rw
}

// daemon starts a daemon through the relay that renames only when asked.
func (rw *renameWindow) daemon(t *testing.T) *daemonProc {
	t.Helper()
	return startDaemonAt(t, rw.w, rw.relay.path, "--poll", "0", "--no-local-watch")
}

// holdNextRename moves the tab's shell to the next folder, nudges the
// daemon and returns once its rename is held in the relay, with the
// function that lets it reach herdr.
func (rw *renameWindow) holdNextRename(t *testing.T) (release func()) {
	t.Helper()
	arrived, release := rw.relay.holdNext("tab.rename")
	t.Cleanup(release)
	rw.w.Type(t, rw.pane, "cd "+rw.next)
	waitCwd(t, rw.w, rw.pane, rw.next)
	if err := nudge.Send(rw.w.Sandbox().NudgeSocket(rw.relay.path), rw.pane, nudge.WhenNow); err != nil {
		t.Fatal(err)
	}
	waitHeld(t, arrived)
	return release
}

// landed waits until herdr has answered d's rename to label: only then
// may a test look for the person's label, which shows until ours lands.
func landed(t *testing.T, d *daemonProc, label string) {
	t.Helper()
	if !poll(waitTimeout, func() bool { return len(jsonLogLines(d.Log(), "new", label)) > 0 }) {
		t.Fatalf("herdr never answered the rename to %q\n%s", label, d.Log())
	}
}

// A daemon killed (SIGKILL) with its rename on its way, a person's rename
// landing inside it: the next daemon's replay shows the person's label
// right before the echo, and it goes back.
func TestRealHerdrKilledDaemonsRenameIsDecidedByTheNext(t *testing.T) {
	t.Parallel()
	rw := newRenameWindow(t)
	d := rw.daemon(t)
	waitWorldLabels(t, rw.w, rw.ws, "rmk")
	release := rw.holdNextRename(t)
	rw.w.PersonRename(t, rw.tab, "mine now")
	d.Kill()
	release()
	waitWorldLabel(t, rw.w, rw.tab, "web")
	d2 := rw.daemon(t)
	waitWorldLabel(t, rw.w, rw.tab, "mine now", d2.Log)
}

// A daemon stopped (SIGTERM) with its rename on its way, a person's
// rename landing inside it: it waits for the echo and puts the person's
// label back before it exits.
func TestRealHerdrStoppedDaemonWaitsForItsEcho(t *testing.T) {
	t.Parallel()
	rw := newRenameWindow(t)
	d := rw.daemon(t)
	waitWorldLabels(t, rw.w, rw.ws, "rmk")
	release := rw.holdNextRename(t)
	rw.w.PersonRename(t, rw.tab, "mine now")
	if err := d.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the daemon is stopping
	release()
	if code := d.Stop(); code != 0 {
		t.Fatalf("daemon exit %d\n%s", code, d.Log())
	}
	waitWorldLabel(t, rw.w, rw.tab, "mine now", d.Log)
}

// During herdr 0.8's replay two renames of ours go to one tab, and a
// person's rename lands inside the first. The second one's echo comes
// after the first one's; the first one's put-back still happens.
func TestRealHerdrSecondRenameDuringTheReplayKeepsThePutBack(t *testing.T) {
	t.Parallel()
	rw := newRenameWindow(t)
	// A long replay: other renames fill herdr's ring, one per tick.
	other, _ := rw.w.NewTab(t, rw.ws, rw.w.Sandbox().Home)
	for i := range 60 {
		rw.w.PersonRename(t, other, fmt.Sprintf("notes %d", i))
	}
	arrived, release := rw.relay.holdNext("tab.rename")
	t.Cleanup(release)
	d := rw.daemon(t)
	waitHeld(t, arrived)
	rw.w.PersonRename(t, rw.tab, "mine now")
	release()
	waitWorldLabel(t, rw.w, rw.tab, "rmk")
	second := rw.holdNextRename(t)
	second()
	if strings.Contains(d.Log(), "replay_over") {
		t.Fatal("the replay ended before the second rename: the test cannot hold")
	}
	waitWorldLabel(t, rw.w, rw.tab, "mine now", d.Log)
}

// fillRing renames another tab n times: herdr 0.8 replays each to a new
// subscription, one per 100 ms tick, so the replay lasts n/10 s.
func (rw *renameWindow) fillRing(t *testing.T, n int) {
	t.Helper()
	other, _ := rw.w.NewTab(t, rw.ws, rw.w.Sandbox().Home)
	for i := range n {
		rw.w.PersonRename(t, other, fmt.Sprintf("notes %d", i))
	}
}

// replayOver reports whether d's log says its tab.renamed entry is live.
func replayOver(d *daemonProc) bool {
	return len(jsonLogLines(d.Log(), "replay_over", "tab.renamed")) > 0
}

// During herdr 0.8's replay a person renames a tab back to a label it had
// before, inside our rename: it is the person's, and goes back.
func TestRealHerdrRenameBackToAnEarlierLabelDuringTheReplay(t *testing.T) {
	t.Parallel()
	rw := newRenameWindow(t)
	rw.w.PersonRename(t, rw.tab, "old notes")
	rw.w.PersonRename(t, rw.tab, "1") // handed back
	rw.fillRing(t, 60)
	d := rw.daemon(t)
	waitWorldLabels(t, rw.w, rw.ws, "rmk", "notes 59")
	release := rw.holdNextRename(t)
	rw.w.PersonRename(t, rw.tab, "old notes")
	release()
	landed(t, d, "web")
	if replayOver(d) {
		t.Fatal("the replay ended before the rename: the test cannot hold")
	}
	waitWorldLabel(t, rw.w, rw.tab, "old notes", d.Log)
}

// herdr stalls (1.5 s) early in the daemon's replay, so the replay looks
// over while most of it is still to come; an old event carrying the label
// of our next rename then comes after that rename. The true echo, after
// the person's rename inside ours, still puts their name back.
func TestRealHerdrReplayTakenForOverStillPutsBack(t *testing.T) {
	t.Parallel()
	rw := newRenameWindow(t)
	rw.fillRing(t, 60)
	// The tab's history: named "web", then "rmk", by us.
	once := func() {
		t.Helper()
		out, stderr, code := runCLI(t, rw.w.Sandbox(), "once", "--apply", "--socket", rw.relay.path, "--state", rw.w.Sandbox().StatePath)
		if code != 0 {
			t.Fatalf("once: exit %d: %s%s", code, out, stderr)
		}
	}
	home := filepath.Dir(filepath.Dir(rw.next))
	rw.w.Type(t, rw.pane, "cd "+rw.next)
	waitCwd(t, rw.w, rw.pane, rw.next)
	once()
	rw.w.Type(t, rw.pane, "cd "+filepath.Join(home, "projects", "rmk"))
	waitCwd(t, rw.w, rw.pane, filepath.Join(home, "projects", "rmk"))
	once()
	waitWorldLabel(t, rw.w, rw.tab, "rmk")
	d := rw.daemon(t)
	// Stall herdr once the replay runs: the stream is up, its first
	// events in.
	if !poll(waitTimeout, func() bool { return len(jsonLogLines(d.Log(), "full_pass", "done")) > 0 }) {
		t.Fatalf("no full pass after subscribing\n%s", d.Log())
	}
	if err := rw.w.srv.Pause(1500 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if !poll(waitTimeout, func() bool { return replayOver(d) }) {
		t.Fatal("the replay did not look over after the stall")
	}
	if n := len(jsonLogLines(d.Log(), "label", "web")); n > 0 {
		t.Fatalf("the old event with our next label came before the stall ended: the test cannot hold\n%s", d.Log())
	}
	release := rw.holdNextRename(t)
	rw.w.PersonRename(t, rw.tab, "mine now")
	release()
	landed(t, d, "web")
	waitWorldLabel(t, rw.w, rw.tab, "mine now", d.Log)
}

// waitCwd waits until herdr reports pane's cwd as dir.
func waitCwd(t *testing.T, w world, pane, dir string) {
	t.Helper()
	if !poll(waitTimeout, func() bool {
		for _, p := range w.Snapshot(t).Panes {
			if p.ID == pane && p.Cwd == dir {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("pane %s did not move to %s", pane, dir)
	}
}

// With --poll 0, a person hands a tab back by renaming it to its number,
// a label it had before: the daemon names it again.
func TestRealHerdrHandBackByNumberWithoutAPoll(t *testing.T) {
	t.Parallel()
	rw := newRenameWindow(t)
	d := rw.daemon(t)
	waitWorldLabels(t, rw.w, rw.ws, "rmk")
	if !poll(waitTimeout, func() bool { return replayOver(d) }) {
		t.Fatal("no replay_over")
	}
	rw.w.PersonRename(t, rw.tab, "notes")
	rw.w.PersonRename(t, rw.tab, "1")
	waitWorldLabel(t, rw.w, rw.tab, "rmk", d.Log)
}

// A person names a tab with a label we set on it more than a
// state.PendingTTL ago: theirs, kept.
func TestRealHerdrALabelWeSetLongAgoIsAPersons(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits out the pending labels' 30 s")
	}
	rw := newRenameWindow(t)
	d := rw.daemon(t)
	waitWorldLabels(t, rw.w, rw.ws, "rmk")
	rw.holdNextRename(t)()
	waitWorldLabel(t, rw.w, rw.tab, "web")
	time.Sleep(state.PendingTTL + time.Second)
	rw.w.PersonRename(t, rw.tab, "rmk")
	relayedPasses(t, rw.w, d, rw.relay, 2)
	if got := worldLabel(t, rw.w, rw.tab); got != "rmk" {
		t.Fatalf("the person's label became %q\n%s", got, d.Log())
	}
}

// waitHeld waits until the relay holds the daemon's rename.
func waitHeld(t *testing.T, arrived <-chan struct{}) {
	t.Helper()
	select {
	case <-arrived:
	case <-time.After(waitTimeout):
		t.Fatal("the daemon sent no rename")
	}
}
