package daemon

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/pass"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
)

// --settle: a program first seen less than settle ago does not name its
// tab yet, and the loop is told when it matures. The shell coming back,
// and programs already running when the daemon starts, never wait.
func TestSettleWaitsForANewProgramOnly(t *testing.T) {
	now := time.Date(2026, 12, 3, 8, 0, 0, 0, time.UTC)
	const settle = 2 * time.Second
	f := newFixture(t, "{proc|dir}", func(o *Options) {
		o.Naming.Settle = settle
		o.Now = func() time.Time { return now }
	})
	ws, _, p1 := f.srv.NewWorkspace("main", home+"/a")
	_, p2 := f.srv.NewTab(ws, home+"/b")
	f.srv.SetForeground(p2, herdrsim.Proc{Argv: []string{"htop"}})

	steps := []struct {
		name    string
		do      func()
		advance time.Duration
		want    []string
		due     time.Duration // settleDue after the pass, from now; 0: none
	}{
		{name: "running at start: named at once", want: []string{"a", "htop"}},
		{name: "a new program waits", do: func() { f.srv.SetForeground(p1, herdrsim.Proc{Argv: []string{"vim"}}) },
			want: []string{"a", "htop"}, due: settle},
		{name: "still settling", advance: settle / 2, want: []string{"a", "htop"}, due: settle / 2},
		{name: "matured", advance: settle / 2, want: []string{"vim", "htop"}},
		{name: "the shell back: at once", do: func() { f.srv.SetForeground(p1) }, want: []string{"a", "htop"}},
		{name: "a program that replaces another waits too", do: func() { f.srv.SetForeground(p2, herdrsim.Proc{Argv: []string{"btop"}}) },
			want: []string{"a", "htop"}, due: settle},
	}
	for _, s := range steps {
		if s.do != nil {
			s.do()
		}
		now = now.Add(s.advance)
		reps := f.once()
		if got := f.labels(); !slices.Equal(got, s.want) {
			t.Fatalf("%s: labels %q, want %q", s.name, got, s.want)
		}
		due := f.d.planner.SettleDue()
		switch {
		case s.due == 0 && !due.IsZero():
			t.Fatalf("%s: a pass is due at %v, want none", s.name, due)
		case s.due != 0 && !due.Equal(now.Add(s.due)):
			t.Fatalf("%s: pass due at %v, want %v", s.name, due, now.Add(s.due))
		}
		if s.due != 0 && !slices.ContainsFunc(reps, func(r pass.Report) bool { return strings.Contains(r.ProgramWhy, "--settle") }) {
			t.Fatalf("%s: no report says the program is settling: %+v", s.name, reps)
		}
	}
}
