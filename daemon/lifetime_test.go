package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
	"github.com/herdrtabrenamer/herdrtabrenamer/owner"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

// A person's name across the daemon's life: renames of ours whose fate
// a replay, a stop or a restart of the daemon decides.

// loadState writes a state file of the given content and makes it the
// daemon's.
func loadState(t *testing.T, f *fixture, file map[string]any) {
	t.Helper()
	file["version"] = state.Version
	b, err := json.Marshal(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.d.opt.StatePath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	f.d.state, _ = state.Load(f.d.opt.StatePath, f.d.opt.Socket)
}

// A person names a tab with a label we set on it a minute before: it is
// theirs, not a late rename of ours.
func TestALabelWeSetLongAgoIsAPersonsWhenTheyChooseIt(t *testing.T) {
	now := time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)
	f := newFixture(t, "{dir}", func(o *Options) { o.Now = func() time.Time { return now } })
	_, tab, p := f.srv.NewWorkspace("main", home+"/sleep")
	f.once()
	f.wantLabels("sleep")
	f.srv.SetCwd(p, home+"/zsh")
	f.once()
	f.wantLabels("zsh")
	now = now.Add(time.Minute)
	f.srv.HumanRename(tab, "sleep")
	if reps := f.once(); reps[0].Verdict != owner.Human.String() {
		t.Errorf("the person's label is judged %q", reps[0].Verdict)
	}
	f.wantLabels("sleep")
	// And after they renamed it away and back to our last label.
	f.srv.HumanRename(tab, "zsh")
	f.srv.SetCwd(p, home+"/vim")
	f.once()
	f.wantLabels("zsh")
}

// With --poll 0, a person hands a tab back by renaming it to its number,
// a label it had before: the event is a live rename, and the tab is named
// again.
func TestHandBackByNumberWithoutAPoll(t *testing.T) {
	t.Parallel()
	for _, proto := range shortProtocols(20, 22) {
		t.Run(fmt.Sprint(proto), func(t *testing.T) {
			f := newFixture(t, "{dir}", func(o *Options) { o.Poll = 0 }, herdrsim.WithProtocol(proto))
			f.d.replayCap = 1500 * time.Millisecond
			logOnFailure(t, f)
			_, tab, _ := f.srv.NewWorkspace("main", home+"/a")
			runDaemon(t, f, nil)
			waitFor(t, "first name", func() bool { return f.labels()[0] == "a" })
			waitFor(t, "the replay over", func() bool { return f.traced(TraceReplayOver) >= 2 })
			f.srv.HumanRename(tab, "notes")
			f.srv.HumanRename(tab, "1")
			waitFor(t, "named again", func() bool { return f.labels()[0] == "a" })
		})
	}
}

// A daemon stopped (SIGTERM) while the echo of its rename is on its way
// waits for it, and puts back the person's rename that landed inside.
func TestStoppingDaemonWaitsForItsEchoes(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "{dir}", nil, herdrsim.WithProtocol(22))
	logOnFailure(t, f)
	_, tab, p := f.srv.NewWorkspace("main", home+"/a")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- f.d.Run(ctx, nil) }()
	waitFor(t, "first name", func() bool { return f.labels()[0] == "a" })
	release := f.srv.HoldEvents()
	whileStalled(t, f, "tab.rename", func() { f.srv.HumanRename(tab, "mine now") })
	f.srv.SetCwd(p, home+"/b")
	sendRaw(t, nudge.SocketPath(f.srv.SocketPath()), mustEncode(t, p))
	waitFor(t, "our rename landed", func() bool { return f.labels()[0] == "b" })
	cancel()
	time.Sleep(300 * time.Millisecond) // the daemon is stopping
	release()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	f.wantLabels("mine now")
}

// A daemon killed with its rename on the way: the person's rename landed
// inside it. The next daemon finds the rename in the state file and, on
// 0.7/0.8, its own replay shows the person's label right before our echo:
// it goes back.
func TestNextDaemonDecidesAKilledDaemonsRename(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "{dir}", nil, herdrsim.WithProtocol(20))
	f.d.replayCap = 1500 * time.Millisecond
	logOnFailure(t, f)
	_, tab, p := f.srv.NewWorkspace("main", home+"/a")
	c := herdr.New(f.srv.SocketPath())
	for _, l := range []string{"a", "mine now", "b"} {
		if _, err := c.RenameTab(context.Background(), tab, l); err != nil {
			t.Fatal(err)
		}
	}
	sent := time.Now().UTC()
	until := sent.Add(time.Minute)
	loadState(t, f, map[string]any{"tabs": map[string]any{tab: map[string]any{
		"label": "a", "pending": []string{"a", "b"}, "pending_until": until,
		"flights": []any{map[string]any{"want": "b", "seen": "a", "sent": sent}},
	}}})
	f.srv.SetCwd(p, home+"/b")
	runDaemon(t, f, nil)
	waitFor(t, "the person's name put back", func() bool { return f.labels()[0] == "mine now" })
}

// A daemon killed after a lock was taken while its rename was on its way,
// the rename landing after: the next daemon puts the locked label back.
func TestNextDaemonPutsBackALockOvertakenByARename(t *testing.T) {
	f := newFixture(t, "{dir}", nil)
	_, tab, _ := f.srv.NewWorkspace("main", home+"/a")
	c := herdr.New(f.srv.SocketPath())
	if _, err := c.RenameTab(context.Background(), tab, "b"); err != nil {
		t.Fatal(err)
	}
	sent := time.Now().UTC()
	loadState(t, f, map[string]any{"tabs": map[string]any{tab: map[string]any{
		"label": "a", "pending": []string{"a", "b"}, "pending_until": sent.Add(time.Minute),
		"flights": []any{map[string]any{"want": "b", "seen": "a", "sent": sent}},
		"locked":  true, "locked_label": "a",
	}}})
	f.once()
	f.wantLabels("a")
}
