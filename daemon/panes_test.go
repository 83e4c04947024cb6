package daemon

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/owner"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/pass"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
	"github.com/herdrtabrenamer/herdrtabrenamer/triage"
)

func withPanes(t *testing.T, format string) func(*Options) {
	return func(o *Options) {
		nm, err := namer.New(namer.Config{Format: format, MaxLen: 24, Home: home, Panes: true})
		if err != nil {
			t.Fatal(err)
		}
		o.Naming.PaneNamer = nm
	}
}

func (f *fixture) wantPanes(want ...string) {
	f.t.Helper()
	var got []string
	for _, p := range f.srv.Snapshot().Panes {
		got = append(got, p.Label)
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		f.t.Fatalf("pane labels = %q, want %q", got, want)
	}
}

// Pane names: two agents of one tab get names told apart, which follow a
// program change; a person's pane label stays across a program change
// and a new daemon; a person clearing it hands the pane back at the next
// pass; an idle pass sends herdr no pane.rename.
func TestPaneNames(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "{dir}", withPanes(t, "{agent|proc|dir}"))
	_, _, p1 := f.srv.NewWorkspace("", home+"/src/api")
	p3 := f.srv.Split(p1, home+"/src/doc")
	p2 := f.srv.Split(p3, home+"/src/web")
	f.srv.SetAgent(p1, "claude", herdr.StatusIdle)
	f.srv.SetAgent(p2, "claude", herdr.StatusWorking)
	f.once()
	f.wantPanes("api/claude", "doc", "web/claude")

	f.srv.ResetCounters()
	f.once()
	if n := f.srv.Calls("pane.rename"); n != 0 {
		t.Fatalf("an idle pass sent %d pane.rename", n)
	}

	f.srv.SetAgent(p2, "", herdr.StatusUnknown)
	f.srv.SetForeground(p2, herdrsim.Proc{Argv: []string{"vim"}})
	f.once()
	f.wantPanes("claude", "doc", "vim")

	// A person's label: herdr tells no one, the snapshot shows it.
	c := herdr.New(f.srv.SocketPath())
	if _, err := c.RenamePane(context.Background(), p3, "tests"); err != nil {
		t.Fatal(err)
	}
	f.srv.SetForeground(p3, herdrsim.Proc{Argv: []string{"make"}})
	f.once()
	f.wantPanes("claude", "tests", "vim")
	d2, err := New(f.d.opt)
	if err != nil {
		t.Fatal(err)
	}
	f.d = d2
	f.srv.SetForeground(p3, herdrsim.Proc{Argv: []string{"top"}})
	f.once()
	f.wantPanes("claude", "tests", "vim")

	// Cleared: herdr's own label again, so the pane is ours to name.
	if _, err := c.RenamePane(context.Background(), p3, ""); err != nil {
		t.Fatal(err)
	}
	f.once()
	f.wantPanes("claude", "top", "vim")
	if e := f.d.State().Entry(state.PaneTarget(p3)); e.Label != "top" || len(e.Flights) != 0 {
		t.Fatalf("memory of %s: %+v", p3, e)
	}
}

// The reports of a pass are its tabs', then its panes' (PaneID set);
// explain decides one pane alone, and says so when pane names are off or
// the pane is not there.
func TestPaneReports(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "{dir}", withPanes(t, "{dir}"))
	_, tab, p1 := f.srv.NewWorkspace("", home+"/src/api")
	p2 := f.srv.Split(p1, home+"/src/web")
	var got []string
	for _, r := range f.once() {
		got = append(got, r.Subject()+"="+r.Want)
	}
	if want := "tab " + tab + "=api|pane " + p1 + "=api|pane " + p2 + "=web"; strings.Join(got, "|") != want {
		t.Fatalf("reports %q, want %q", got, want)
	}
	r, err := f.d.ExplainPane(context.Background(), p2)
	if err != nil || r.PaneID != p2 || r.Label != "web" || r.Verdict != owner.Ours.String() {
		t.Fatalf("explain %s: %+v, %v", p2, r, err)
	}
	if _, err := f.d.ExplainPane(context.Background(), "w9:p1"); err == nil || !strings.Contains(err.Error(), "w9:p1") {
		t.Fatalf("explain of a missing pane: %v", err)
	}
	off := newFixture(t, "{dir}", nil)
	if _, err := off.d.ExplainPane(context.Background(), p1); err == nil {
		t.Fatal("explain --pane with pane names off gave no error")
	}
}

// A dry run shows each new pane decision once, apart from its tab's.
func TestDryRunShowsPanes(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	var r dryRun
	reps := []pass.Report{
		{TabID: "w1:t1", Label: "1", Want: "api", Action: pass.ActionWouldRename, Verdict: "herdr's", LeadWhy: "the only pane"},
		{TabID: "w1:t1", PaneID: "w1:p1", Want: "api", Action: pass.ActionWouldRename, Verdict: "herdr's", LeadWhy: "the pane itself"},
	}
	r.tabs(&b, reps)
	r.tabs(&b, reps)
	want := `would rename w1:t1 "1" -> "api" (lead the only pane; label was herdr's)` + "\n" +
		`would rename pane w1:p1 "" -> "api" (named from the pane itself; label was herdr's)` + "\n"
	if b.String() != want {
		t.Fatalf("dry run showed\n%s\nwant\n%s", b.String(), want)
	}
}

// A pane.updated that changes a pane's own name (--pane-format) and not
// its tab's (a new title in a pane that does not lead) renames the pane
// at once, with no poll to wait for; one that changes neither name (a
// token no template reads) runs no pass.
func TestPaneNamesFollowEvents(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "{dir}", func(o *Options) {
		withPanes(t, "{title|dir}")(o)
		o.Poll = 0
	})
	_, _, p1 := f.srv.NewWorkspace("", home+"/src/api")
	p2 := f.srv.Split(p1, home+"/src/web")
	runDaemon(t, f, nil)
	waitFor(t, "the panes named", func() bool { return f.paneLabel(p2) == "web" })
	waitFor(t, "the passes after subscribing", func() bool { return f.traced(TraceSubscribed) >= 1 && f.subscribePassesDone() })

	f.srv.SetTitle(p2, "build")
	waitFor(t, "the pane renamed after its title, with polls off", func() bool { return f.paneLabel(p2) == "build" })
	f.wantLabels("api")

	waitFor(t, "the title's pane.updated triaged", func() bool { return f.triagedUpdates(p2) >= 1 })
	// The daemon's own passes are counted, not herdrsim's snapshots: a
	// hedged read sends a second request that can reach herdrsim after
	// the pass it served, and after the count. A pass the event ran at
	// once is traced before its triage is; one at the debounce window's
	// end would come within the span slept.
	seen, base := f.triagedUpdates(p2), f.traced(TracePass)
	f.srv.SetTokens(p2, map[string]string{"spinner": "⠋"})
	waitFor(t, "the token's pane.updated triaged", func() bool { return f.triagedUpdates(p2) > seen })
	time.Sleep(300 * time.Millisecond) // the span in which no pass may run
	if n := f.traced(TracePass) - base; n != 0 {
		t.Fatalf("%d passes after a token no name reads, want 0\n%s", n, f.log)
	}
}

// paneLabel is a pane's label as herdrsim holds it.
func (f *fixture) paneLabel(pane string) string {
	for _, p := range f.srv.Snapshot().Panes {
		if p.ID == pane {
			return p.Label
		}
	}
	return ""
}

// TestAChattyPaneDelaysNoOtherName: on herdr 0.8 (one event per entry
// per tick), a pane whose title changes faster than herdr drains fills
// the subscription's pane.updated entry. The daemon leaves pane.updated
// out (herdr stops copying the backlog) and polls instead: another
// pane's title names it within the poll, not after the backlog. No
// shell here is local, so the poll alone answers.
func TestAChattyPaneDelaysNoOtherName(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "{title|dir}", func(o *Options) { o.Poll = 0 },
		herdrsim.WithProtocol(20), herdrsim.WithTick(10*time.Millisecond))
	ws, _, chatty := f.srv.NewWorkspace("", home+"/src/log")
	lead := f.srv.Split(chatty, home+"/src/log")
	f.srv.SetAgent(lead, "claude", herdr.StatusIdle) // the tab's lead: the chatty pane names nothing
	quietTab, quiet := f.srv.NewTab(ws, home+"/src/api")
	runDaemon(t, f, nil)
	waitFor(t, "the quiet tab named", func() bool { return f.tabLabel(quietTab) == "api" })
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
				f.srv.SetTitle(chatty, fmt.Sprintf("line %d", i))
			}
		}
	}()
	t.Cleanup(func() { close(stop); <-done })
	subs := f.srv.Calls("events.subscribe")
	waitFor(t, "pane.updated left out of a new subscription", func() bool { return f.srv.Calls("events.subscribe") > subs })
	time.Sleep(time.Second) // the backlog grows behind whatever entry still has it
	start := time.Now()
	f.srv.SetTitle(quiet, "build")
	waitFor(t, "the quiet pane's title named its tab", func() bool { return f.tabLabel(quietTab) == "build" })
	if took := time.Since(start); took > triage.AnswerPoll+3*time.Second {
		t.Errorf("the quiet pane's title named its tab after %v, want within the poll (%v)", took, triage.AnswerPoll)
	}
}

// tabLabel is a tab's label as herdrsim holds it.
func (f *fixture) tabLabel(tab string) string {
	l, _ := f.srv.Tab(tab)
	return l.Label
}
