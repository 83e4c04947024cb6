package daemon

import (
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
)

// passes counts the daemon's passes by the snapshots it asked for.
func (f *fixture) passes() int { return f.srv.Calls("session.snapshot") }

// traced counts the daemon's traces of kind.
func (f *fixture) traced(kind TraceKind) int { return len(f.traces.of(kind)) }

// subscribePassesDone reports whether every full pass the daemon's event
// watcher asked for after (failing to) subscribe has run: one still owed
// could come at any later moment of a test.
func (f *fixture) subscribePassesDone() bool {
	asked := 0
	for _, t := range append(f.traces.of(TraceSubscribed), f.traces.of(TraceSubscribeFailed)...) {
		if t.FullPass {
			asked++
		}
	}
	return asked == f.traced(TraceFullPassDone)
}

// caughtUp: see testutil.CaughtUp.
func (f *fixture) caughtUp() []string {
	f.t.Helper()
	return testutil.CaughtUp(f.t, f.srv, f.log.String)
}

// On 0.7/0.8 every (re)subscribe replays old events. Measured
// against the last snapshot they are old news: only the one full pass
// after the subscribe runs.
func TestReplayedEventsCostNoPass(t *testing.T) {
	f := newFixture(t, "{dir}", func(o *Options) { o.Poll = 0 }, herdrsim.WithProtocol(20))
	ws, tab, p := f.srv.NewWorkspace("main", home+"/a")
	// History: tabs that came and went, a tab renamed over and over, a
	// title that changed many times. Over 40 events in all.
	for i := range 8 {
		tid, _ := f.srv.NewTab(ws, home+"/gone")
		f.srv.HumanRename(tid, fmt.Sprintf("old %d", i))
		f.srv.CloseTab(tid)
	}
	for i := range 8 {
		f.srv.HumanRename(tab, fmt.Sprintf("was %d", i))
	}
	f.srv.HumanRename(tab, "notes")
	for i := range 12 {
		f.srv.SetTitle(p, fmt.Sprintf("title %d", i))
	}
	runDaemon(t, f, nil)
	// Acked: DropSubscriptions below reaches the stream.
	waitFor(t, "first subscription", func() bool { return f.traced(TraceSubscribed) >= 1 })
	mark := len(f.caughtUp()) // the first replay is over, one event per 5 ms tick
	for round := range 2 {
		base, subs, full := f.passes(), f.traced(TraceSubscribed), f.traced(TraceFullPassDone)
		f.srv.DropSubscriptions()
		waitFor(t, "resubscribe and its full pass", func() bool {
			return f.traced(TraceSubscribed) > subs && f.traced(TraceFullPassDone) > full
		})
		lines := f.caughtUp()[mark:]
		mark += len(lines)
		extra := f.passes() - base - 1 // the full pass after the subscribe
		t.Logf("round %d: %d events replayed, %d passes beyond the post-subscribe one", round, len(lines), extra)
		if len(lines) < 40 {
			t.Errorf("round %d: %d events replayed, want the whole history (over 40)", round, len(lines))
		}
		if n := testutil.News(lines); extra != 0 || len(n) != 0 {
			t.Errorf("replayed events cost %d extra passes, want 0; news:\n%s", extra, strings.Join(n, "\n"))
		}
	}
}

// On 0.7/0.8 a tab renamed more often than replayQuiet (an agent's icon
// flapping) keeps its subscription entry from ever going quiet. The
// replay still ends once it has run as long as herdr's ring allows:
// until then every rename of ours costs a re-read, and the fate of each
// waits.
func TestBusyEntryReplayEnds(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "{dir}", func(o *Options) { o.Poll = 0 }, herdrsim.WithProtocol(20))
	ws, _, _ := f.srv.NewWorkspace("main", home+"/a")
	busy, _ := f.srv.NewTab(ws, home+"/b")
	f.d.replayCap = 1500 * time.Millisecond
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(herdr.Tick * 10 / 4):
			}
			f.srv.HumanRename(busy, fmt.Sprintf("busy %d", i))
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
	runDaemon(t, f, nil)
	waitFor(t, "the busy entry's replay over", func() bool {
		for _, tr := range f.traces.of(TraceReplayOver) {
			if tr.Event == "tab.renamed" {
				return true
			}
		}
		return false
	})
}

// A pane.updated that changed nothing a name is made of (a
// plugin's metadata-token spinner the templates do not read) costs no
// pass; a change a template reads still does.
func TestTokenSpinnerCostsNoPass(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "{title|dir}", func(o *Options) { o.Poll = 0 })
	_, _, p := f.srv.NewWorkspace("main", home+"/a")
	runDaemon(t, f, nil)
	waitFor(t, "first pass", func() bool { return f.labels()[0] == "a" })
	// The pass at start and the one after the subscribe.
	waitFor(t, "post-subscribe pass", func() bool { return f.traced(TraceFullPassDone) >= 1 })
	mark := len(f.caughtUp())
	base := f.passes()
	frames := []string{"⠋", "⠙", "⠹", "⠸", "⠼"}
	for i := range 10 { // 5 Hz for 2 s
		f.srv.SetTokens(p, map[string]string{"spinner": frames[i%len(frames)]})
		time.Sleep(200 * time.Millisecond) // an input: the spinner's pace, not a wait
	}
	lines := f.caughtUp()[mark:]
	spun := f.passes() - base
	t.Logf("10 spinner updates at 5 Hz: %d events, %d passes", len(lines), spun)
	if len(lines) == 0 {
		t.Fatal("the spinner sent no event: nothing was tested")
	}
	if n := testutil.News(lines); spun != 0 || len(n) != 0 {
		t.Errorf("a token no template reads cost %d passes, want 0; news:\n%s", spun, strings.Join(n, "\n"))
	}
	f.srv.SetTitle(p, "build")
	waitFor(t, "rename after a title change", func() bool { return f.labels()[0] == "build" })
}

// On 0.9 a lagging stream ends with an events_lost error
// line. The daemon resubscribes at once and runs one full pass.
func TestEventsLostResubscribesWithOneFullPass(t *testing.T) {
	srv := startRawServer(t)
	srv.onSubscribe = func(c net.Conn, n int, id string) {
		if n == 1 {
			_, _ = c.Write([]byte(`{"data":{"type":"tab_renamed","tab_id":"w1:t1","workspace_id":"w1","label":"x"},"event":"tab_renamed"}` + "\n"))
			_, _ = c.Write([]byte(`{"id":"` + id + `","error":{"code":"events_lost","message":"subscription fell behind; resubscribe and resync with session.snapshot"}}` + "\n"))
			return
		}
		var b [1]byte
		_, _ = c.Read(b[:]) // stay up until the daemon goes
	}
	f := newFixture(t, "{dir}", func(o *Options) { o.Socket = srv.path; o.Poll = 0 })
	runDaemon(t, f, nil)
	waitFor(t, "resubscribe", func() bool { return srv.count("events.subscribe") >= 2 })
	// One full pass after the resubscribe (a pass already due may serve).
	waitFor(t, "a full pass after the resubscribe", func() bool {
		m := srv.methods()
		return slices.Index(m[slices.Index(m, "events.subscribe")+1:], "events.subscribe") >= 0 &&
			m[len(m)-1] != "events.subscribe" && slices.Contains(m[lastIndex(m, "events.subscribe"):], "session.snapshot")
	})
	// The one event is triaged: whatever it caused has happened.
	waitFor(t, "the event triaged", func() bool { return f.traced(TraceTriaged) == 1 })
	if subs, snaps := srv.count("events.subscribe"), srv.count("session.snapshot"); subs != 2 || snaps > subs+1 {
		t.Errorf("after events_lost: %d subscribes, %d passes; want 2 subscribes and at most one pass each (plus the first)", subs, snaps)
	}
	if f.traced(TraceEventsLost) == 0 {
		t.Errorf("nothing says events were lost:\n%s", f.log.String())
	}
}

func lastIndex(s []string, v string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == v {
			return i
		}
	}
	return -1
}

// A look whether a created tab or pane is there holds up nothing: while
// herdr's answers to the looks stall, a cd nudged in another tab still
// names that tab.
func TestCreatedTabLookHoldsNothingUp(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "{dir}", func(o *Options) { o.Poll, o.Timeout = 0, time.Minute }, herdrsim.WithProtocol(22))
	f.d.lookTimeout = time.Minute
	logOnFailure(t, f)
	ws, _, p1 := f.srv.NewWorkspace("main", home+"/a")
	runDaemon(t, f, nil)
	waitFor(t, "the first name", func() bool { return f.labels()[0] == "a" })
	waitFor(t, "the passes the subscription asked for", f.subscribePassesDone)
	// Both looks stall, so no pass runs until the cd: the stalled
	// tab.get is the look's, not a pass's re-read.
	tabLooks, paneLooks := f.srv.Calls("tab.get"), f.srv.Calls("pane.get")
	f.srv.StallNext("tab.get", time.Minute, 1)
	f.srv.StallNext("pane.get", time.Minute, 1)
	f.srv.NewTab(ws, home+"/b")
	waitFor(t, "the looks at the new tab and its pane", func() bool {
		return f.srv.Calls("tab.get") > tabLooks && f.srv.Calls("pane.get") > paneLooks
	})
	f.srv.SetCwd(p1, home+"/c")
	sendRaw(t, nudge.SocketPath(f.srv.SocketPath()), mustEncode(t, p1)) // the shell hook's word
	waitFor(t, "the cd's name while the looks wait", func() bool { return f.labels()[0] == "c" })
}
