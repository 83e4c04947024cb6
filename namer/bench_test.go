package namer

import (
	"fmt"
	"github.com/herdrtabrenamer/herdrtabrenamer/owner"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// benchConfig is a realistic setup: icons, a few rules, one with a program glob.
func benchConfig() Config {
	return Config{
		Format: "{icon} {proc|agent}:{dir}", MaxLen: DefaultMaxLen, Home: home,
		Rules: []RuleSpec{
			{Dir: "~/scratch/**", Skip: true},
			{Dir: "~/projects/*", Program: "ssh", Format: "{match}>{host}"},
			{Dir: "/etc/nixos", Name: "nix"},
			{Dir: "~/projects/*", Format: "{icon} {match}:{proc|dir}"},
		},
	}
}

// benchSession builds tabs x panesPerTab panes, a quarter of the tabs with an
// agent, deep cwds under ~/projects.
func benchSession(tabs, panesPerTab int) ([]herdr.Tab, [][]herdr.Pane) {
	ts := make([]herdr.Tab, tabs)
	ps := make([][]herdr.Pane, tabs)
	id := 0
	for i := range ts {
		ts[i] = herdr.Tab{ID: "w1:t" + herdr.EncodeNumber(i+1), WorkspaceID: "w1", Number: i + 1,
			Label: "1", AgentStatus: statuses[i%len(statuses)]}
		for j := range panesPerTab {
			id++
			p := herdr.Pane{ID: "w1:p" + herdr.EncodeNumber(id), TabID: ts[i].ID, WorkspaceID: "w1",
				Cwd: fmt.Sprintf("%s/projects/proj%d/src/pkg%d", home, i%50, j), Focused: j == 1}
			if i%4 == 0 && j == 2 {
				p.Agent = "claude"
			}
			ps[i] = append(ps[i], p)
		}
	}
	return ts, ps
}

func BenchmarkPlanDecide(b *testing.B) {
	n := mustNew(b, benchConfig())
	ts, ps := benchSession(1, 4)
	ws := herdr.Workspace{ID: "w1", Label: "main"}
	b.ReportAllocs()
	for b.Loop() {
		p := n.Plan(ts[0], ws, ps[0])
		d := n.Decide(p, Facts{Proc: "vim"})
		if judge(d, "1", owner.Memory{}, false) != owner.Herdrs {
			b.Fatal("unexpected verdict")
		}
	}
}

// BenchmarkPass2000Panes is one whole pass over a 2,000-pane session (500
// tabs x 4 panes): Plan, Decide and Judge every tab. Target: under 10 ms.
func BenchmarkPass2000Panes(b *testing.B) {
	for _, unique := range []bool{false, true} {
		b.Run(fmt.Sprintf("unique=%v", unique), func(b *testing.B) {
			n := mustNew(b, benchConfig())
			ts, ps := benchSession(500, 4)
			ws := herdr.Workspace{ID: "w1", Label: "main"}
			mem := owner.Labels("old", "older")
			items := make([]UniqueItem, len(ts))
			b.ReportAllocs()
			for b.Loop() {
				for i := range ts {
					p := n.Plan(ts[i], ws, ps[i])
					d := n.Decide(p, Facts{Proc: "vim"})
					judge(d, ts[i].Label, mem, false)
					items[i] = UniqueItem{TabID: ts[i].ID, Name: d.Want, Dir: p.Dir}
				}
				if unique {
					n.Unique(items)
				}
			}
		})
	}
}

func BenchmarkSanitize(b *testing.B) {
	for _, s := range []string{"vim main.go", "\x1b]0;title\x07 vim  \u202emain.go\n"} {
		b.Run(fmt.Sprintf("%.8q", s), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Sanitize(s)
			}
		})
	}
}
