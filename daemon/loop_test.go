package daemon

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/claim"
	"github.com/herdrtabrenamer/herdrtabrenamer/pass"
	"github.com/herdrtabrenamer/herdrtabrenamer/plugintie"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// runDaemon starts f.d.Run and stops it at the end of the test.
func runDaemon(t *testing.T, f *fixture, reload chan Options) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- f.d.Run(ctx, reload) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("Run did not stop")
		}
	})
}

// A pane whose title keeps changing (a build printing progress into the
// title) sends pane.updated faster than the debounce. The debounce must
// still fire: with --poll 0 the events are the only trigger, and a name
// that never updates while one pane is busy is a dead daemon.
func TestDebounceIsNotStarvedByAnEventStream(t *testing.T) {
	f := newFixture(t, "{dir}", func(o *Options) {
		o.Poll = 0
		o.Debounce = 100 * time.Millisecond
	})
	ws, _, p1 := f.srv.NewWorkspace("main", home+"/a")
	runDaemon(t, f, nil)
	waitFor(t, "first pass", func() bool { return f.labels()[0] == "a" })
	// Let the pass that follows the subscription go by: the new tab below
	// must be found through the debounce.
	waitFor(t, "pass after subscribing", func() bool { return testutil.Subscribed(f.log.String()) })

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			f.srv.SetTitle(p1, fmt.Sprintf("make [%d%%]", i))
		}
	}()
	defer func() { close(stop); wg.Wait() }()

	// A new tab is news; it must be named while the title churns.
	f.srv.NewTab(ws, home+"/b")
	testutil.WaitForWithin(t, 5*time.Second, "new tab named while another pane's title changes every 20ms (debounce 100ms)",
		func() bool { l := f.labels(); return len(l) == 2 && l[1] == "b" },
		func() string { return fmt.Sprintf("labels %q", f.labels()) })
}

// SIGHUP reloads every flag; --poll is one of them.
func TestReloadAppliesPoll(t *testing.T) {
	f := newFixture(t, "{dir}", func(o *Options) { o.Poll = 0 })
	_, _, p1 := f.srv.NewWorkspace("main", home+"/a")
	reload := make(chan Options, 1)
	runDaemon(t, f, reload)
	waitFor(t, "first pass", func() bool { return f.labels()[0] == "a" })

	opt := f.d.opt
	opt.Poll = 20 * time.Millisecond
	f.srv.ResetCounters()
	reload <- opt
	waitFor(t, "reload pass", func() bool { return f.srv.Calls("session.snapshot") >= 1 })
	// A second pass with no event to cause it is a poll: --poll is live.
	waitFor(t, "a poll pass", func() bool { return f.srv.Calls("session.snapshot") >= 2 })
	// cwd changes are silent in herdr: only a poll pass can see this one.
	f.srv.SetCwd(p1, home+"/b")
	testutil.WaitForWithin(t, 3*time.Second, "after a reload to --poll 20ms, a silent cwd change seen",
		func() bool { return f.labels()[0] == "b" },
		func() string { return fmt.Sprintf("label %q", f.labels()[0]) })
}

// SIGHUP reloads --alias and [[rewrites]]; a program already running must
// show under its new name, not the one cached under the old rules.
func TestReloadAppliesAliasesToRunningPrograms(t *testing.T) {
	f := newFixture(t, "{proc|dir}", nil)
	f.setInspector(fakeInspector{f.srv})
	_, _, p1 := f.srv.NewWorkspace("main", home+"/a")
	f.srv.SetForeground(p1, herdrsim.Proc{Argv: []string{"vim"}})
	reload := make(chan Options, 1)
	runDaemon(t, f, reload)
	waitFor(t, "first pass", func() bool { return f.labels()[0] == "vim" })

	aliases, err := procinfo.ParseAliases("vim=editor")
	if err != nil {
		t.Fatal(err)
	}
	procs, err := procinfo.New(procinfo.Options{Aliases: aliases}, nil)
	if err != nil {
		t.Fatal(err)
	}
	opt := f.d.opt
	opt.Naming.Procs = procs
	reload <- opt
	testutil.WaitForWithin(t, 3*time.Second, "after reloading alias vim=editor the tab named editor",
		func() bool { return f.labels()[0] == "editor" },
		func() string { return fmt.Sprintf("label %q", f.labels()[0]) })
}

// herdr pushes an agent's status change on no session-wide stream: only
// to a subscription entry for its one pane, which herdr 0.8.2 serves by
// reading the pane on every 100 ms tick, forever (docs/herdr.md §7). An
// idle daemon must make herdr do no such work, however many agents run.
func TestIdleDaemonMakesHerdrReadNoPane(t *testing.T) {
	f := newFixture(t, "{icon}{proc|dir}", func(o *Options) { o.Poll = 0 })
	ws, _, p1 := f.srv.NewWorkspace("main", home+"/a")
	_, p2 := f.srv.NewTab(ws, home+"/b")
	f.srv.SetAgent(p1, "claude", herdr.StatusWorking)
	f.srv.SetAgent(p2, "codex", herdr.StatusIdle)
	runDaemon(t, f, nil)
	waitFor(t, "first pass", func() bool { l := f.labels(); return len(l) == 2 && l[0] == "🟡a" })
	waitFor(t, "the subscription's full pass", func() bool {
		return len(f.traces.of(TraceSubscribed)) > 0 && f.subscribePassesDone()
	})
	// A tab created now comes on the stream in a round that also served
	// every other entry of it.
	before := len(f.traces.of(TraceTriaged))
	_, _ = f.srv.NewTab(ws, home+"/c")
	waitFor(t, "the new tab's event", func() bool {
		for _, tr := range f.traces.of(TraceTriaged)[before:] {
			if tr.Event == "tab.created" {
				return true
			}
		}
		return false
	})
	if n := f.srv.PanePolls(); n != 0 {
		t.Fatalf("herdr read agent panes %d times for the daemon's subscription; want 0", n)
	}
}

// Without the plugin's event hook, nothing pushes an agent's status to the
// daemon: it reads the session every AgentPoll while agents run, and not
// at all once none does.
func TestAgentStatusComesFromTheStatusPoll(t *testing.T) {
	f := newFixture(t, "{icon}{proc|dir}", func(o *Options) { o.Poll, o.AgentPoll = 0, 20*time.Millisecond })
	ws, _, _ := f.srv.NewWorkspace("main", home+"/a")
	_, p1 := f.srv.NewTab(ws, home+"/b")
	runDaemon(t, f, nil)
	waitFor(t, "first pass", func() bool { return strings.Join(f.labels(), "|") == "a|b" })
	f.srv.SetAgent(p1, "claude", herdr.StatusWorking)
	// herdr's agent_detected event brings the agent; its status changes
	// after that come on no stream of the daemon's.
	waitFor(t, "agent icon", func() bool { return f.labels()[1] == "🟡b" })
	waitFor(t, "the status poll", func() bool { return lastPolls(f).AgentPoll == 20*time.Millisecond })
	f.srv.SetAgent(p1, "claude", herdr.StatusBlocked)
	waitFor(t, "blocked icon", func() bool { return f.labels()[1] == "🔴b" })
	f.srv.ClosePane(p1)
	waitFor(t, "no agent: no status poll", func() bool { return lastPolls(f).AgentPoll == 0 })
}

// The plugin's event hook nudges the daemon on every agent status change
// (nudge --when agent): a daemon it serves reads nothing for statuses,
// neither when the plugin started it nor once a hook nudge came.
func TestHookServedDaemonDoesNotPollStatuses(t *testing.T) {
	for _, tied := range []bool{true, false} {
		t.Run(fmt.Sprintf("tied=%v", tied), func(t *testing.T) {
			f := newFixture(t, "{icon}{proc|dir}", func(o *Options) {
				o.Poll, o.AgentPoll = 0, 20*time.Millisecond
				if tied {
					o.Plugin = plugintie.Plugin{ID: "herdrtabrenamer"}
				}
			})
			_, _, p1 := f.srv.NewWorkspace("main", home+"/a")
			f.srv.SetAgent(p1, "claude", herdr.StatusWorking)
			runDaemon(t, f, nil)
			waitFor(t, "first pass", func() bool { return f.labels()[0] == "🟡a" })
			if !tied {
				waitFor(t, "the status poll", func() bool { return lastPolls(f).AgentPoll > 0 })
			}
			f.srv.SetAgent(p1, "claude", herdr.StatusBlocked)
			if err := nudge.Send(nudge.SocketPath(f.srv.SocketPath()), p1, nudge.WhenAgent); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "blocked icon", func() bool { return f.labels()[0] == "🔴a" })
			waitFor(t, "no status poll", func() bool { return lastPolls(f).AgentPoll == 0 })
			for _, tr := range f.traces.of(TracePolls) {
				if tied && tr.AgentPoll != 0 {
					t.Fatalf("a daemon the plugin started polled statuses every %v", tr.AgentPoll)
				}
			}
		})
	}
}

// A status that no name shows ({proc|dir}: no {icon}, no {status}) is
// not looked for, however many agents run.
func TestNoStatusPollWhenNoNameShowsStatus(t *testing.T) {
	f := newFixture(t, "{agent|proc|dir}", func(o *Options) { o.Poll, o.AgentPoll = 0, 20*time.Millisecond })
	_, _, p1 := f.srv.NewWorkspace("main", home+"/a")
	f.srv.SetAgent(p1, "claude", herdr.StatusWorking)
	runDaemon(t, f, nil)
	waitFor(t, "first pass", func() bool { return f.labels()[0] == "claude" })
	waitFor(t, "the polls planned", func() bool { return len(f.traces.of(TracePolls)) > 0 && f.subscribePassesDone() })
	for _, tr := range f.traces.of(TracePolls) {
		if tr.AgentPoll != 0 {
			t.Fatalf("statuses polled every %v for names that show none", tr.AgentPoll)
		}
	}
}

// lastPolls is the daemon's last word on its polls (zero before any).
func lastPolls(f *fixture) Trace {
	ps := f.traces.of(TracePolls)
	if len(ps) == 0 {
		return Trace{}
	}
	return ps[len(ps)-1]
}

// Without $XDG_RUNTIME_DIR the instance lock lives under the shared
// temporary directory, at a predictable name. Another user who plants a
// symlink there must not get the daemon to truncate a file of ours.
func TestInstanceLockFollowsNoSymlink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "precious")
	if err := os.WriteFile(victim, []byte("keep me\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(dir, "key.lock")
	if err := os.Symlink(victim, lock); err != nil {
		t.Fatal(err)
	}
	inst, err := claim.AcquireInstance(lock)
	if err == nil {
		defer inst.Release()
	}
	b, rerr := os.ReadFile(victim)
	if rerr != nil {
		t.Fatal(rerr)
	}
	if string(b) != "keep me\n" {
		t.Fatalf("instance lock followed a symlink and overwrote its target: now %q", b)
	}
}

// A failed pane.process_info is no fact (an empty or failed answer is
// never cached as one), and it must not be acted on either: one
// dropped reply should not rename a tab running vim to its directory and
// back again on the next pass.
func TestFailedProcessInfoCausesNoFlicker(t *testing.T) {
	f := newFixture(t, "{proc|dir}", nil)
	_, _, p1 := f.srv.NewWorkspace("main", home+"/a")
	f.srv.SetForeground(p1, herdrsim.Proc{Argv: []string{"vim"}})
	f.srv.InjectFault("pane.process_info", herdrsim.FaultCloseNoAnswer, 1)
	f.once()
	f.once()
	var got []string
	for _, r := range f.srv.Renames() {
		got = append(got, r.Label)
	}
	if strings.Join(got, "|") != "vim" {
		t.Fatalf("renames = %q, want just [vim]: a failed process_info was taken for an idle shell", got)
	}
}

// A pane whose program is already there (vim) ends a preexec watcher at
// its first look, so a flood of preexec nudges starts one watcher after
// another. Each watcher's read of the session ahead of its pass is spaced
// like the passes (nudgeGap): on a frozen clock, one read-ahead in all,
// and every other snapshot request is a pass's own.
func TestPreexecFloodReadsAheadOncePerGap(t *testing.T) {
	frozen := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	f := newFixture(t, "{proc|dir}", func(o *Options) { o.Now = func() time.Time { return frozen } })
	f.noHedging() // every snapshot request is then a read ahead or a pass
	_, _, p1 := f.srv.NewWorkspace("main", home+"/a")
	f.srv.SetForeground(p1, herdrsim.Proc{Argv: []string{"vim"}})
	runDaemon(t, f, nil)
	waitFor(t, "first pass", func() bool { return f.labels()[0] == "vim" })
	f.srv.ResetCounters()
	passes0 := f.d.passes.Load()

	const nudges = 20
	for i := range nudges {
		if err := nudge.Send(nudge.SocketPath(f.srv.SocketPath()), p1, nudge.WhenPreexec); err != nil {
			t.Fatal(err)
		}
		// Each watcher looks once (process_info: the pane is not ours to
		// read) and ends; the next nudge then starts a new one.
		waitFor(t, fmt.Sprintf("watcher %d looked", i+1), func() bool { return f.srv.Calls("pane.process_info") > i })
	}
	// Every watcher has looked. A pass counts itself once its read is
	// answered, so a read in flight is one ahead of the count for a
	// moment: wait for the count to catch up, which it never does when
	// each watcher reads ahead.
	var reads, passes int
	testutil.WaitFor(t, fmt.Sprintf("%d preexec nudges: at most one session read ahead of the passes", nudges), func() bool {
		reads = f.srv.Calls("session.snapshot")
		passes = int(f.d.passes.Load() - passes0)
		return reads <= passes+1
	}, func() string { return fmt.Sprintf("%d session reads for %d passes", reads, passes) })
	t.Logf("%d preexec nudges: %d session reads for %d passes", nudges, reads, passes)
}

// A shell hook in a pane herdr does not know (a stale HERDR_PANE_ID, a
// pane just closed) nudges at every command. Each nudge costs herdr at
// most the pass it asks for: no probe of the unknown pane's program.
func TestNudgesForAnUnknownPaneCostOnlyTheirPass(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "{dir}", func(o *Options) { o.Poll = 0 })
	f.noHedging() // counts requests: a late read sent twice is not the nudge's
	f.srv.NewWorkspace("main", home+"/a")
	runDaemon(t, f, nil)
	waitFor(t, "pass after subscribing", func() bool { return f.subscribePassesDone() && f.traced(TraceSubscribed) > 0 })
	sock := nudge.SocketPath(f.srv.SocketPath())
	f.srv.ResetCounters()
	const nudges = 5
	for i := range nudges {
		for _, when := range []nudge.When{nudge.WhenPreexec, nudge.WhenPrecmd, nudge.WhenNow} {
			b, err := nudge.Encode("w1:p99", when)
			if err != nil {
				t.Fatal(err)
			}
			passes := f.traced(TracePass)
			sendRaw(t, sock, b)
			waitFor(t, fmt.Sprintf("the pass of nudge %d (%s)", i, when), func() bool { return f.traced(TracePass) > passes })
		}
	}
	if n := f.srv.Calls("pane.process_info"); n != 0 {
		t.Errorf("%d process_info requests for a pane herdr does not know, want 0", n)
	}
	if snaps, passes := f.srv.Calls("session.snapshot"), 3*nudges; snaps > passes {
		t.Errorf("%d snapshots for %d nudges, want at most one each", snaps, passes)
	}
}

// A pass that does not ask about a pane (no nudge, its revision unmoved)
// must not pair the pane's last program with a foreground_cwd that moved
// since: herdr reads that folder from the foreground process, so a new
// one means the program may be new. `git status` run from a subfolder
// looked like the shell in the repository's root for one pass, and the
// tab went src -> repo -> src.
func TestMovedForegroundCwdIsNotPairedWithTheLastProgram(t *testing.T) {
	f := newFixture(t, "{proc|dir}", nil)
	top := home + "/repo"
	_, _, p := f.srv.NewWorkspace("main", top+"/src")
	f.once()
	f.wantLabels("src")
	f.srv.SetForeground(p, herdrsim.Proc{Argv: []string{"git", "status"}, Cwd: top})
	// An urgent pass for other news: no nudge for the pane.
	if _, _, err := f.d.pass(context.Background(), passInput{Input: pass.Input{Urgent: true}}); err != nil {
		t.Fatal(err)
	}
	f.wantLabels("src")
}

// Start-up's garbage (flags, config, the first snapshot, the first
// passes' plans) is handed back to the kernel once, when the full pass
// after subscribing is done, and never again at later passes.
func TestStartupMemoryHandedBackOnceSettled(t *testing.T) {
	f := newFixture(t, "{dir}", nil)
	ws, _, _ := f.srv.NewWorkspace("main", home+"/a")
	forced := forcedGCs()
	runDaemon(t, f, nil)
	waitFor(t, "settled", func() bool { return f.traced(TraceSettled) >= 1 })
	if f.traced(TraceFullPassDone) < 1 {
		t.Fatal("settled before the full pass after subscribing")
	}
	if forcedGCs() <= forced {
		t.Fatal("settled with no collection handing start-up's memory back")
	}
	f.srv.NewTab(ws, home+"/b")
	waitFor(t, "new tab named", func() bool { return len(f.labels()) == 2 && f.labels()[1] == "b" })
	if n := f.traced(TraceSettled); n != 1 {
		t.Fatalf("settled %d times, want once", n)
	}
}

// forcedGCs is how many collections the program forced so far.
func forcedGCs() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/forced:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
