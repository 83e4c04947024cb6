package daemon

import (
	"context"
	"strings"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
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
