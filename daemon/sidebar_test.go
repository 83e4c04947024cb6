package daemon

import (
	"strings"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/sidebar"
)

// withSidebar turns sidebar tokens on, and the polls off: only events
// and our own reports run passes.
func withSidebar(t *testing.T, names ...string) func(*Options) {
	return func(o *Options) {
		nm, err := namer.New(namer.Config{Format: sidebar.Format(names), MaxLen: 80, Home: home, Panes: true})
		if err != nil {
			t.Fatal(err)
		}
		o.Naming.Sidebar, o.Naming.SidebarTokens = nm, names
		o.Poll = 0
	}
}

// paneTokens is a pane's metadata tokens as herdrsim holds them.
func (f *fixture) paneTokens(pane string) map[string]string {
	for _, p := range f.srv.Snapshot().Panes {
		if p.ID == pane {
			return p.Tokens
		}
	}
	return nil
}

// TestSidebarTokensRunNoPassOfTheirOwn: the daemon reports an agent
// pane's task to herdr's sidebar, and herdr's pane.updated for that
// report runs no pass, even where the tab's template reads the token; a
// new task in the pane's title is news, reported at the next pass.
func TestSidebarTokensRunNoPassOfTheirOwn(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"{dir}", "{token.htr_task|dir}"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, format, withSidebar(t, "agent", "task"))
			_, _, p := f.srv.NewWorkspace("", home+"/src/api")
			f.srv.SetAgent(p, "claude", herdr.StatusWorking)
			f.srv.SetTitle(p, "fix the login")
			runDaemon(t, f, nil)
			waitFor(t, "the task reported", func() bool { return f.paneTokens(p)["htr_task"] == "fix the login" })
			waitFor(t, "our report's pane.updated triaged", func() bool { return f.triagedUpdates(p) >= 1 })
			base, reports := f.passes(), f.srv.Calls("pane.report_metadata")
			time.Sleep(300 * time.Millisecond) // the span in which no pass may run
			if n := f.passes() - base; n != 0 {
				t.Fatalf("%d passes after our own report, want 0\n%s", n, f.log)
			}
			if n := f.srv.Calls("pane.report_metadata") - reports; n != 0 {
				t.Fatalf("%d more reports at rest, want 0", n)
			}
			if got := f.paneTokens(p); got["htr_agent"] != "claude" {
				t.Errorf("tokens %v, want htr_agent claude", got)
			}

			f.srv.SetTitle(p, "write the tests")
			waitFor(t, "the new task reported", func() bool { return f.paneTokens(p)["htr_task"] == "write the tests" })
			waitFor(t, "its pane.updated triaged", func() bool { return f.triagedUpdates(p) >= 3 })
			// The title's own pane.updated is news and may reach the loop
			// after our report's: its pass ends first. A report that ran
			// passes of its own would never let them end.
			waitFor(t, "the title's pass over", func() bool {
				n := f.passes()
				time.Sleep(100 * time.Millisecond)
				return f.passes() == n
			})
			base = f.passes()
			time.Sleep(300 * time.Millisecond) // the span in which no pass may run
			if n := f.passes() - base; n != 0 {
				t.Fatalf("%d passes after our second report, want 0\n%s", n, f.log)
			}
		})
	}
}

// triagedUpdates counts the pane.updated events of pane the loop triaged.
func (f *fixture) triagedUpdates(pane string) int {
	n := 0
	for _, tr := range f.traces.of(TraceTriaged) {
		if tr.Event == string(herdr.PaneUpdated) && tr.Pane == pane {
			n++
		}
	}
	return n
}

// TestSidebarTokensDryRun: without --apply nothing is reported, and what
// would be is printed once.
func TestSidebarTokensDryRun(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "{dir}", func(o *Options) {
		withSidebar(t, "agent")(o)
		o.Naming.Apply = false
	})
	_, _, p := f.srv.NewWorkspace("", home+"/src/api")
	f.srv.SetAgent(p, "claude", herdr.StatusIdle)
	f.once()
	f.once()
	if n := f.srv.Calls("pane.report_metadata"); n != 0 {
		t.Errorf("a dry run sent %d reports", n)
	}
	want := "would report sidebar tokens " + p + ` htr_agent="claude"`
	if got := f.out.String(); strings.Count(got, "would report sidebar tokens") != 1 || !strings.Contains(got, want) {
		t.Errorf("printed %q, want %q once", got, want)
	}
}
