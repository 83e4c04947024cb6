package daemon

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/claim"
	"github.com/herdrtabrenamer/herdrtabrenamer/pass"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// release hands a tab back the way the release command does: an Edit of
// the file by another State value.
func releaseTab(t *testing.T, f *fixture, tab string, lock bool) {
	t.Helper()
	st, warn := state.Load(f.d.opt.StatePath, f.d.opt.Socket)
	if warn != nil {
		t.Fatal(warn)
	}
	label, _ := f.srv.Tab(tab)
	if err := st.Edit(func(tx *state.Tx) {
		if lock {
			tx.Lock(state.TabTarget(tab), "")
		} else {
			tx.Release(state.TabTarget(tab), label.Label)
		}
	}); err != nil {
		t.Fatal(err)
	}
}

// A release on a tab that already carries our name ends at
// once; it must not hand a person's later name to us.
func TestReleaseEndsWhenTheTabAlreadyHasOurName(t *testing.T) {
	f := newFixture(t, "{dir}", nil)
	f.srv.NewWorkspace("main", home+"/rmk")
	f.once()
	f.wantLabels("rmk")
	tab := f.srv.Snapshot().Tabs[0].ID
	releaseTab(t, f, tab, false)
	f.once() // nothing to rename: the release is over
	if m := f.d.State().Tab(tab); m.Released {
		t.Fatalf("release still set after the tab carries our name: %+v", m)
	}
	f.srv.HumanRename(tab, "my notes")
	f.once()
	f.wantLabels("my notes")
}

// A person's rename, or a lock, that lands after the pass read
// the session and before it renames must win.
func TestMidPassRenameOrLockSurvives(t *testing.T) {
	for _, tc := range []struct {
		name string
		act  func(f *fixture, tab string)
		want string
	}{
		{"rename", func(f *fixture, tab string) { f.srv.HumanRename(tab, "my notes") }, "my notes"},
		{"lock", func(f *fixture, tab string) { releaseTab(f.t, f, tab, true) }, "1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "{dir}", nil)
			f.srv.NewWorkspace("main", home+"/a")
			tab := f.srv.Snapshot().Tabs[0].ID
			var once sync.Once
			f.srv.RewriteResponses(func(method string, line []byte) []byte {
				if method == "session.snapshot" {
					// The snapshot is built; the person acts before
					// the daemon gets to rename.
					once.Do(func() { tc.act(f, tab) })
				}
				return line
			})
			f.once()
			f.wantLabels(tc.want)
			if n := len(f.srv.Renames()); n != 0 && tc.name == "lock" {
				t.Fatalf("a locked tab was renamed: %+v", f.srv.Renames())
			}
		})
	}
}

// A rename whose pending label cannot be saved must not go
// out; after a restart it would read as a person's name forever.
func TestNoRenameWithoutASavedPendingLabel(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, "{dir}", func(o *Options) { o.StatePath = filepath.Join(blocker, "state.json") })
	f.srv.NewWorkspace("main", home+"/a")
	reps := f.once()
	if n := len(f.srv.Renames()); n != 0 {
		t.Fatalf("renamed %d tabs with no saved pending label", n)
	}
	if reps[0].Action != pass.ActionFailed || !strings.Contains(reps[0].Error, "state") {
		t.Fatalf("report = %+v, want a failure naming the state", reps[0])
	}
}

// Why a pass writes the state file twice (daemon/pass.go):
// when herdr applies a rename, the label it sets is already on disk as
// pending, so a daemon killed before the reply comes back still reads the
// label as its own after a restart.
func TestPendingLabelIsOnDiskBeforeTheRename(t *testing.T) {
	f := newFixture(t, "{dir}", nil)
	f.srv.NewWorkspace("main", home+"/a")
	tab, path := f.srv.Snapshot().Tabs[0].ID, f.d.opt.StatePath
	var mu sync.Mutex
	var onDisk []state.Entry
	f.srv.RewriteResponses(func(method string, line []byte) []byte {
		if method == "tab.rename" {
			// herdr has applied the rename; its reply is not sent yet.
			st, err := state.Load(path, "")
			if err != nil {
				t.Errorf("read state while herdr applies the rename: %v", err)
			}
			mu.Lock()
			onDisk = append(onDisk, st.Tab(tab))
			mu.Unlock()
		}
		return line
	})
	f.once()
	f.wantLabels("a")
	mu.Lock()
	defer mu.Unlock()
	if len(onDisk) != 1 || !slices.Contains(onDisk[0].Landing(time.Now()), "a") {
		t.Fatalf("state on disk when herdr applied the rename: %+v, want %s pending \"a\"", onDisk, tab)
	}
	if m := f.d.State().Tab(tab); m.Label != "a" {
		t.Fatalf("state after the pass: %+v, want label a (the second write)", m)
	}
}

// A killed daemon's tab.rename may land after the next
// daemon's own rename. Every label that may still land reads as ours.
func TestLateRenameOfAKilledDaemonStaysOurs(t *testing.T) {
	f := newFixture(t, "{dir}", nil)
	_, _, p1 := f.srv.NewWorkspace("main", home+"/a")
	tab := f.srv.Snapshot().Tabs[0].ID
	// The killed daemon had set "x" and had "old" in flight.
	c := herdr.New(f.srv.SocketPath())
	if _, err := c.RenameTab(context.Background(), tab, "x"); err != nil {
		t.Fatal(err)
	}
	writeState(t, f.d.opt.StatePath, map[string]any{tab: map[string]any{"label": "x", "pending": "old"}})
	if err := f.d.State().Refresh(); err != nil {
		t.Fatal(err)
	}
	f.d.state, _ = state.Load(f.d.opt.StatePath, f.d.opt.Socket)
	f.once()
	f.wantLabels("a")
	// Now the killed daemon's rename lands.
	if _, err := c.RenameTab(context.Background(), tab, "old"); err != nil {
		t.Fatal(err)
	}
	f.srv.SetCwd(p1, home+"/b")
	reps := f.once()
	if reps[0].Verdict != "ours" {
		t.Fatalf("a label a killed daemon had in flight is judged %q, want ours", reps[0].Verdict)
	}
	f.wantLabels("b")
}

// The pending set is bounded: a tab renamed forever does not grow the file.
func TestPendingLabelsAreBounded(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "{dir}", nil)
	_, _, p1 := f.srv.NewWorkspace("main", home+"/d0")
	tab := f.srv.Snapshot().Tabs[0].ID
	for i := range 3 * state.MaxPending {
		f.srv.SetCwd(p1, home+"/d"+string(rune('a'+i%26))+string(rune('a'+i/26)))
		f.once()
	}
	if n := len(f.d.State().Tab(tab).Pending); n > state.MaxPending || n == 0 {
		t.Fatalf("pending labels: %d, want 1..%d", n, state.MaxPending)
	}
}

func writeState(t *testing.T, path string, tabs map[string]any) {
	t.Helper()
	b, err := json.Marshal(map[string]any{"version": state.Version, "tabs": tabs})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// A server that acks every subscription and closes it at once
// must not be hammered: resubscribes back off like reconnects, and each
// costs at most one pass. The daemon logs each pause it takes; the pauses
// must double from backoffMin (each is half its step plus jitter), and no
// resubscribe may come without one. Without backoff there were hundreds
// of attempts a second.
func TestAckThenCloseBacksOff(t *testing.T) {
	srv := startRawServer(t)
	f := newFixture(t, "{dir}", func(o *Options) { o.Socket = srv.path; o.Poll = 0 })
	runDaemon(t, f, nil)
	const steps = 4
	pausesSoFar := func() []time.Duration {
		p, err := testutil.ResubscribePauses(f.log.String())
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	waitFor(t, fmt.Sprintf("%d resubscribe pauses", steps), func() bool { return len(pausesSoFar()) >= steps })
	subs, snaps := srv.count("events.subscribe"), srv.count("session.snapshot")
	pauses := pausesSoFar() // after subs: each subscribe but the first follows a logged pause
	t.Logf("%d subscribes, %d snapshots, pauses %v", subs, snaps, pauses)
	if subs > len(pauses)+1 {
		t.Errorf("%d subscribes after %d pauses: a resubscribe came without a pause", subs, len(pauses))
	}
	for i, p := range pauses[:steps] {
		if least := (herdr.Tick << i) / 2; p < least {
			t.Errorf("pause %d was %v, want at least %v (backoff doubling from %v)", i, p, least, herdr.Tick)
		}
	}
	if snaps > subs+1 {
		t.Errorf("%d passes for %d subscribes, want at most one each", snaps, subs)
	}
}

// remoteInspector sees none of herdr's pids: herdr runs in a container or
// on another machine behind a forwarded socket.
type remoteInspector struct{ fakeInspector }

func (remoteInspector) ForegroundPGID(int) (int, error) { return 0, os.ErrNotExist }

// When process_info is slow and pids are not local, a pass
// that cannot ask about every pane in time still renames what it decided,
// later passes finish the rest, and answers are reused while the pane's
// revision stays put.
func TestSlowProcessInfoConvergesAcrossPasses(t *testing.T) {
	const tabs = 120
	f := newFixture(t, "{proc|dir}", nil)
	f.setInspector(remoteInspector{fakeInspector{f.srv}})
	f.d.planner.GatherBudget = 150 * time.Millisecond
	ws, _, p := f.srv.NewWorkspace("main", home+"/a")
	f.srv.SetForeground(p, herdrsim.Proc{Argv: []string{"vim"}})
	for i := 1; i < tabs; i++ {
		_, p := f.srv.NewTab(ws, home+"/a")
		f.srv.SetForeground(p, herdrsim.Proc{Argv: []string{"vim"}})
	}
	// 120 calls at 20 ms each take 2.4 s one after another; a pass gets 1 s.
	f.srv.SetLatency("pane.process_info", 20*time.Millisecond)
	// Each pass is cut by its gather budget, wall time: about 20 answers
	// a pass alone, fewer on a loaded machine (17 in a 6th pass under 5
	// test processes at once), so the bound leaves room.
	const maxPasses = 20
	passes := 0
	for ; passes < maxPasses; passes++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, _ = f.d.Once(ctx)
		cancel()
		done := 0
		for _, l := range f.labels() {
			if l == "vim" {
				done++
			}
		}
		t.Logf("after pass %d: %d of %d tabs named", passes+1, done, tabs)
		if done == tabs {
			break
		}
	}
	if passes >= maxPasses {
		t.Fatalf("not converged after %d passes: %v", maxPasses, f.labels())
	}
	f.srv.SetLatency("pane.process_info", 0)
	f.srv.ResetCounters()
	st, err := f.d.PassStats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.ProcessInfoCalls > pass.RefreshPerPass {
		t.Fatalf("idle pass asked process_info %d times, want <= %d (cached by revision)", st.ProcessInfoCalls, pass.RefreshPerPass)
	}
}

// startRun starts Run and returns its error channel; the daemon stops at
// the end of the test.
func startRun(t *testing.T, d *Daemon) <-chan error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	res := make(chan error, 1)
	stopped := make(chan struct{})
	go func() { res <- d.Run(ctx, nil); close(stopped) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-stopped:
		case <-time.After(10 * time.Second):
			t.Error("Run did not stop")
		}
	})
	return res
}

// The runtime dir must be private; one another user made, or a
// symlink planted there, is refused with an error naming it.
func TestRuntimeDirIsPrivateOrRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, dir string)
		want  string
	}{
		{"symlink", func(t *testing.T, dir string) {
			if err := os.Symlink(t.TempDir(), dir); err != nil {
				t.Fatal(err)
			}
		}, "symlink"},
		{"other owner", func(t *testing.T, dir string) {
			if os.Getuid() != 0 {
				t.Skip("needs root to make a directory another user owns")
			}
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(dir, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, "owned by uid 65534"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := t.TempDir()
			t.Setenv("XDG_RUNTIME_DIR", rt)
			tc.plant(t, filepath.Join(rt, "herdrtabrenamer"))
			f := newFixture(t, "{dir}", nil)
			select {
			case err := <-startRun(t, f.d):
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Run = %v, want a refusal mentioning %q", err, tc.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Run went ahead in a runtime dir that is not private")
			}
		})
	}
}

// A runtime dir we own with loose permissions is tightened, not refused.
func TestRuntimeDirLooseModeIsTightened(t *testing.T) {
	rt := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", rt)
	dir := filepath.Join(rt, "herdrtabrenamer")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, "{dir}", nil)
	f.srv.NewWorkspace("main", home+"/a")
	startRun(t, f.d)
	waitFor(t, "first pass", func() bool { return f.labels()[0] == "a" })
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Fatalf("runtime dir mode %v, want 0700", fi.Mode().Perm())
	}
}

// One herdr reached through two spellings of its socket path
// gets one daemon.
func TestOneDaemonPerServerWhateverThePathSpelling(t *testing.T) {
	f := newFixture(t, "{dir}", nil)
	f.srv.NewWorkspace("main", home+"/a")
	startRun(t, f.d)
	waitFor(t, "first pass", func() bool { return f.labels()[0] == "a" })
	link := filepath.Join(t.TempDir(), "via-link")
	if err := os.Symlink(filepath.Dir(f.srv.SocketPath()), link); err != nil {
		t.Fatal(err)
	}
	other := f.d.opt
	other.Socket = filepath.Join(link, filepath.Base(f.srv.SocketPath()))
	d2, err := New(other)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-startRun(t, d2):
		if !errors.Is(err, claim.ErrAlreadyRunning) {
			t.Fatalf("second daemon: %v, want claim.ErrAlreadyRunning", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("a second daemon runs for the same herdr reached through a symlinked dir")
	}
}

// Wiping the runtime dir under a running daemon (a logout
// cleaning /run/user) must not let a second one start.
func TestWipedRuntimeDirLetsNoSecondDaemonStart(t *testing.T) {
	rt := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", rt)
	f := newFixture(t, "{dir}", func(o *Options) { o.Poll = 50 * time.Millisecond })
	f.srv.NewWorkspace("main", home+"/a")
	startRun(t, f.d)
	waitFor(t, "first pass", func() bool { return f.labels()[0] == "a" })
	// The daemon puts back what it misses after every pass (50 ms), so
	// the wipe can meet a file made while it ran: wipe again.
	for try := 1; ; try++ {
		err := os.RemoveAll(filepath.Join(rt, "herdrtabrenamer"))
		if err == nil {
			break
		}
		if try == 20 || !errors.Is(err, syscall.ENOTEMPTY) {
			t.Fatal(err)
		}
	}
	d2, err := New(f.d.opt)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-startRun(t, d2):
		if !errors.Is(err, claim.ErrAlreadyRunning) {
			t.Fatalf("second daemon: %v, want claim.ErrAlreadyRunning", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("a second daemon started after the runtime dir was wiped")
	}
	// The first daemon takes its files back at its next pass (poll), so
	// nudges reach it again.
	waitFor(t, "nudge socket back", func() bool {
		return nudge.Send(nudge.SocketPath(f.srv.SocketPath()), f.srv.Snapshot().Panes[0].ID, nudge.WhenNow) == nil
	})
}

// Names come from programs and folders; what `run` (dry run)
// and `explain` print must carry no escape sequence to the terminal.
func TestReportsAndDryRunCarryNoControlCharacters(t *testing.T) {
	f := newFixture(t, "{proc|dir}", func(o *Options) { o.Naming.Apply = false })
	_, _, p := f.srv.NewWorkspace("main", home+"/a\x1b[31mred")
	f.srv.SetForeground(p, herdrsim.Proc{Argv: []string{"/bin/\x1b]0;evil\x07vim", "x\x1b[2J"}})
	reps, err := f.d.Explain(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	f.d.dry.tabs(f.d.opt.Out, reps)
	b, err := json.Marshal(reps)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	for _, r := range reps {
		rb, _ := json.Marshal(r)
		_ = json.Unmarshal(rb, &fields)
		for k, v := range fields {
			if s, ok := v.(string); ok && strings.ContainsAny(s, "\x1b\x07") {
				t.Errorf("report field %s = %q carries a control character", k, s)
			}
		}
	}
	if strings.ContainsAny(f.out.String(), "\x1b\x07") {
		t.Errorf("dry run printed a control character: %q", f.out.String())
	}
	_ = b
}

// A reload cannot switch state files under a running daemon
// (the labels it set are in the old one and would read as a person's):
// it says so and keeps the old file, rather than claiming success.
func TestReloadThatChangesTheStateFileIsRefusedClearly(t *testing.T) {
	f := newFixture(t, "{dir}", nil)
	f.srv.NewWorkspace("main", home+"/a")
	reload := make(chan Options, 1)
	runDaemon(t, f, reload)
	waitFor(t, "first pass", func() bool { return f.labels()[0] == "a" })
	old := f.d.opt.StatePath
	opt := f.d.opt
	opt.StatePath = filepath.Join(t.TempDir(), "other.json")
	reload <- opt
	waitFor(t, "state refusal traced", func() bool { return f.traced(TraceStateKept) > 0 })
	if kept := f.traces.of(TraceStateKept)[0].Path; kept != old {
		t.Fatalf("the refusal names %q as the state file kept, want %q", kept, old)
	}
	if !strings.Contains(f.log.String(), old) {
		t.Fatalf("the refusal's log line does not name the state file kept:\n%s", f.log.String())
	}
	if _, err := os.Stat(opt.StatePath); !os.IsNotExist(err) {
		t.Fatalf("the new state file was written: %v", err)
	}
}

// The last window: herdr has no conditional rename, so a
// person's rename landing between our re-read and our tab.rename is
// overwritten. The event stream shows it (their tab.renamed before our
// echo), and the daemon puts their name back.
func TestRenameInsideTheLastWindowIsPutBack(t *testing.T) {
	// Protocol 22 does not replay, so the stream proves order at once.
	f := newFixture(t, "{dir}", nil, herdrsim.WithProtocol(22))
	_, _, p := f.srv.NewWorkspace("main", home+"/a")
	tab := f.srv.Snapshot().Tabs[0].ID
	runDaemon(t, f, nil)
	waitFor(t, "first pass", func() bool { return f.labels()[0] == "a" })
	waitFor(t, "subscribed", func() bool { return f.traced(TraceSubscribed) > 0 && f.d.client.Protocol() == 22 })
	var once sync.Once
	f.srv.RewriteResponses(func(method string, line []byte) []byte {
		// The last read before the rename: tab.get, or the snapshot
		// itself when it is young enough to stand in for it. Only a
		// snapshot that shows the new directory counts: an earlier one
		// (a poll, the subscription's pass) would let the person's
		// name land before our re-read, where it is simply kept.
		if method == "tab.get" || method == "session.snapshot" && bytes.Contains(line, []byte(home+"/b")) {
			once.Do(func() { f.srv.HumanRename(tab, "my notes") })
		}
		return line
	})
	f.srv.SetCwd(p, home+"/b")
	sendRaw(t, nudge.SocketPath(f.srv.SocketPath()), mustEncode(t, p))
	// The person's rename lands while the pass's read is on its way, so
	// our rename to "b" overwrites it; done is the put-back rename, not
	// merely seeing "my notes" (that is also true before ours lands).
	waitFor(t, "the person's name put back", func() bool {
		rs := f.srv.Renames()
		return len(rs) > 0 && rs[len(rs)-1].Label == "my notes" && f.labels()[0] == "my notes"
	})
	// The put-back's echo is triaged, and whatever it caused is done.
	lines := f.caughtUp()
	if !slices.ContainsFunc(lines, func(l string) bool {
		return strings.Contains(l, "kind=tab.renamed") && strings.Contains(l, `label="my notes"`)
	}) {
		t.Fatalf("the echo of the put-back never reached the daemon:\n%s", strings.Join(lines, "\n"))
	}
	f.wantLabels("my notes")
}

func mustEncode(t *testing.T, pane string) []byte {
	t.Helper()
	b, err := nudge.Encode(pane, nudge.WhenNow)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The holder named in "already running" comes from a file
// another process wrote; no escape sequence from it reaches a terminal.
func TestAlreadyRunningMessageCarriesNoEscapes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	first, err := claim.AcquireInstance(path)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Release()
	if err := os.WriteFile(path, []byte("\x1b]0;pwned\x07pid 1\x1b[2J\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = claim.AcquireInstance(path)
	if !errors.Is(err, claim.ErrAlreadyRunning) {
		t.Fatalf("second acquire: %v", err)
	}
	if strings.ContainsAny(err.Error(), "\x1b\x07") {
		t.Fatalf("error carries escapes: %q", err.Error())
	}
}

// A killed daemon's rename lands between the next daemon's snapshot and
// its re-read of the tab, and is the very label that daemon wants: the
// label is ours, and stays ours, instead of the pending record of it being
// dropped as a rename not sent (after which the label read as a person's
// and the tab froze on it).
func TestKilledDaemonsRenameLandingAtTheReReadStaysOurs(t *testing.T) {
	f := newFixture(t, "{dir}", nil)
	_, _, p1 := f.srv.NewWorkspace("main", home+"/a")
	tab := f.srv.Snapshot().Tabs[0].ID
	c := herdr.New(f.srv.SocketPath())
	if _, err := c.RenameTab(context.Background(), tab, "a"); err != nil {
		t.Fatal(err)
	}
	// The killed daemon had named the tab "a" and had "b" in flight.
	writeState(t, f.d.opt.StatePath, map[string]any{tab: map[string]any{"label": "a", "pending": "b"}})
	f.d.state, _ = state.Load(f.d.opt.StatePath, f.d.opt.Socket)
	f.srv.SetCwd(p1, home+"/b")
	f.srv.StallNext("tab.get", 300*time.Millisecond, 1)
	landed := make(chan error, 1)
	go func() {
		// The late rename lands while the re-read waits in herdr.
		if !testutil.Poll(testutil.Timeout, func() bool { return f.srv.Calls("tab.get") == 1 }) {
			landed <- errors.New("no tab.get came")
			return
		}
		_, err := c.RenameTab(context.Background(), tab, "b")
		landed <- err
	}()
	f.once()
	if err := <-landed; err != nil {
		t.Fatal(err)
	}
	f.wantLabels("b")
	f.srv.SetCwd(p1, home+"/c")
	if reps := f.once(); reps[0].Verdict != "ours" {
		t.Fatalf("the landed label is judged %q, want ours", reps[0].Verdict)
	}
	f.wantLabels("c")
}

// A lock written while our rename of the tab is on its way (after the
// pass's last look at the state file, before herdr applies the rename)
// wins: once herdr answers, the daemon sees the lock and puts back the
// label the tab showed when it was locked.
func TestLockDuringTheRenamesFlightPutsItsLabelBack(t *testing.T) {
	f := newFixture(t, "{dir}", nil)
	_, _, p1 := f.srv.NewWorkspace("main", home+"/a")
	tab := f.srv.Snapshot().Tabs[0].ID
	f.once()
	f.wantLabels("a")
	f.srv.SetCwd(p1, home+"/b")
	before := f.srv.Calls("tab.rename")
	f.srv.StallNext("tab.rename", 300*time.Millisecond, 1)
	locked := make(chan error, 1)
	go func() {
		if !testutil.Poll(testutil.Timeout, func() bool { return f.srv.Calls("tab.rename") > before }) {
			locked <- errors.New("no tab.rename came")
			return
		}
		st, _ := state.Load(f.d.opt.StatePath, f.d.opt.Socket)
		locked <- st.Edit(func(tx *state.Tx) {
			tx.Lock(state.TabTarget(tab), "a")
		})
	}()
	f.once()
	if err := <-locked; err != nil {
		t.Fatal(err)
	}
	f.wantLabels("a")
	f.srv.SetCwd(p1, home+"/c")
	f.once()
	f.wantLabels("a")
}

// A person's rename landing between the daemon's re-read and its own
// rename is put back on every protocol, also in a subscription's first
// seconds, while 0.7/0.8 still replay their history: the tab's ring holds
// an old person's label and an old copy of the very label the daemon
// sets, and neither may pass for the person's rename or for our echo.
func TestPutBackInReplay(t *testing.T) {
	t.Parallel()
	for _, proto := range shortProtocols(20, 17, 19, 22) {
		t.Run(fmt.Sprint(proto), func(t *testing.T) {
			f := newFixture(t, "{dir}", nil, herdrsim.WithProtocol(proto))
			_, _, p := f.srv.NewWorkspace("main", home+"/a")
			tab := f.srv.Snapshot().Tabs[0].ID
			// History in herdr's ring: a person's old name, an old name of
			// ours, then ours now.
			c := herdr.New(f.srv.SocketPath())
			for _, l := range []string{"old notes", "b", "a"} {
				if _, err := c.RenameTab(context.Background(), tab, l); err != nil {
					t.Fatal(err)
				}
			}
			writeState(t, f.d.opt.StatePath, map[string]any{tab: map[string]any{"label": "a", "pending": []string{"b"}}})
			f.d.state, _ = state.Load(f.d.opt.StatePath, f.d.opt.Socket)
			history := len(f.srv.Renames())
			runDaemon(t, f, nil)
			t.Cleanup(func() {
				if t.Failed() {
					t.Log(f.log.String())
				}
			})
			waitFor(t, "subscribed", func() bool { return f.traced(TraceSubscribed) > 0 })
			// The person's rename lands while our tab.rename waits in herdr,
			// after every read of the pass.
			renames := f.srv.Calls("tab.rename")
			f.srv.StallNext("tab.rename", 200*time.Millisecond, 1)
			go func() {
				if testutil.Poll(testutil.Timeout, func() bool { return f.srv.Calls("tab.rename") > renames }) {
					f.srv.HumanRename(tab, "my notes")
				}
			}()
			f.srv.SetCwd(p, home+"/b")
			sendRaw(t, nudge.SocketPath(f.srv.SocketPath()), mustEncode(t, p))
			waitFor(t, "the person's name put back", func() bool {
				rs := f.srv.Renames()
				return len(rs) >= history+2 && rs[len(rs)-1].Label == "my notes" && f.labels()[0] == "my notes"
			})
			for _, r := range f.srv.Renames()[history:] {
				if r.Label == "old notes" {
					t.Fatalf("put back a replayed old label: %+v", f.srv.Renames()[history:])
				}
			}
			f.wantLabels("my notes")
		})
	}
}
