package daemon

import (
	"strings"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// The leading edge: news after a quiet spell runs at once; news inside the
// window costs one pass at its end; a storm costs one pass per window.
// Steps: n = news arrives, f = the window's timer fires, c = another pass
// ran. Each step's expected outcome: P = a pass runs now, . = none.
func TestEdge(t *testing.T) {
	for _, tc := range []struct {
		name, steps, want string
	}{
		{"lone news runs at once, window closes quietly", "nf", "P."},
		{"news inside the window: one trailing pass", "nnnf", "P..P"},
		{"after the trailing pass the window stays open", "nnfnf", "P.P.P"},
		{"a quiet window ends the spell", "nnff" + "n", "P.P.P"},
		{"storm: one pass per window", "nnnfnnnfnnnff", "P..P...P...P."},
		{"a pass for another reason covers the news", "nncf", "P..."},
		{"after a quiet window news runs at once again", "nfn", "P.P"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e edge
			var got strings.Builder
			for _, s := range tc.steps {
				run := false
				switch s {
				case 'n':
					run = e.news()
				case 'f':
					run = e.fired()
				case 'c':
					e.covered()
				}
				if run {
					got.WriteByte('P')
				} else {
					got.WriteByte('.')
				}
			}
			if got.String() != tc.want {
				t.Errorf("steps %s: got %s, want %s", tc.steps, got.String(), tc.want)
			}
		})
	}
}

// Nudges run a pass at once, unless one ran under nudgeGap ago: then one
// pass at the gap's end serves every pane nudged meanwhile.
func TestScheduleSpacesNudgePasses(t *testing.T) {
	s := newSchedule()
	t0 := time.Unix(1_700_000_000, 0)
	if wait := s.nudged("w1:p1", t0); wait != 0 {
		t.Fatalf("the first nudge waits %v", wait)
	}
	if forced := s.nudgePass(t0); len(forced) != 1 || !forced["w1:p1"] {
		t.Fatalf("the nudge pass forced %v", forced)
	}
	if wait := s.nudged("w1:p2", t0.Add(5*time.Millisecond)); wait != nudgeGap-5*time.Millisecond {
		t.Fatalf("a nudge inside the gap waits %v, want the rest of the gap", wait)
	}
	s.nudged("w1:p3", t0.Add(6*time.Millisecond))
	if forced := s.nudgePass(t0.Add(nudgeGap)); len(forced) != 2 {
		t.Fatalf("the gap's pass forced %v, want both panes nudged in it", forced)
	}
	if forced := s.nudgePass(t0.Add(2 * nudgeGap)); len(forced) != 0 || !s.lastNudgePass.Equal(t0.Add(nudgeGap)) {
		t.Fatal("a nudge pass with no nudge owed ran")
	}
}

// One wait per pane; read-aheads are spaced by nudgeGap; --settle's pass
// is set for the soonest program only.
func TestScheduleWaitsAndSettle(t *testing.T) {
	s := newSchedule()
	t0 := time.Unix(1_700_000_000, 0)
	if start, ahead := s.startWait("a", true, t0); !start || !ahead {
		t.Fatal("the first wait does not read ahead")
	}
	if start, _ := s.startWait("a", true, t0); start {
		t.Fatal("a second wait for one pane started")
	}
	if start, ahead := s.startWait("b", true, t0.Add(time.Millisecond)); !start || ahead {
		t.Fatal("a read-ahead inside the gap")
	}
	s.waitEnded("a")
	if start, ahead := s.startWait("a", true, t0.Add(nudgeGap)); !start || !ahead {
		t.Fatal("a wait after the gap does not read ahead")
	}
	if set, in := s.settleDue(t0.Add(time.Second), t0); !set || in != time.Second {
		t.Fatalf("settle: set %v in %v", set, in)
	}
	if set, _ := s.settleDue(t0.Add(2*time.Second), t0); set {
		t.Fatal("a later program moved the settle timer")
	}
	if set, _ := s.settleDue(time.Time{}, t0); set {
		t.Fatal("no program waiting set the settle timer")
	}
	s.settled()
	if set, _ := s.settleDue(t0.Add(2*time.Second), t0); !set {
		t.Fatal("after its pass the settle timer was not set again")
	}
}

// The status poll runs while an agent's status may change unannounced
// and a name shows it, unless the plugin's hook brings statuses.
func TestSchedulePolls(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	idle := []herdr.Pane{{ID: "w1:p1", Agent: "claude", AgentStatus: herdr.StatusIdle}}
	working := []herdr.Pane{{ID: "w1:p1", Agent: "claude", AgentStatus: herdr.StatusWorking}}
	watched := func(string) bool { return true }
	base := pollInputs{poll: 3 * time.Second, restPoll: 30 * time.Second, agentPoll: time.Second, showStatus: true, inputWatched: watched}
	for _, tt := range []struct {
		name        string
		in          func(pollInputs) pollInputs
		hook, input time.Time
		full, agent time.Duration
	}{
		{"no agents", func(in pollInputs) pollInputs { return in }, time.Time{}, time.Time{}, 3 * time.Second, 0},
		{"every lead watched: the rest poll", func(in pollInputs) pollInputs { in.allWatched = true; return in }, time.Time{}, time.Time{}, 30 * time.Second, 0},
		{"an agent works", func(in pollInputs) pollInputs { in.agents = working; return in }, time.Time{}, time.Time{}, 3 * time.Second, time.Second},
		{"an idle agent, its input watched", func(in pollInputs) pollInputs { in.agents = idle; return in }, time.Time{}, time.Time{}, 3 * time.Second, 0},
		{"an idle agent that read input lately", func(in pollInputs) pollInputs { in.agents = idle; return in }, time.Time{}, t0.Add(-time.Second), 3 * time.Second, time.Second},
		{"an idle agent, its input unseen", func(in pollInputs) pollInputs {
			in.agents, in.inputWatched = idle, func(string) bool { return false }
			return in
		}, time.Time{}, time.Time{}, 3 * time.Second, time.Second},
		{"the hook nudged lately", func(in pollInputs) pollInputs { in.agents = working; return in }, t0.Add(-time.Minute), time.Time{}, 3 * time.Second, 0},
		{"the plugin's daemon", func(in pollInputs) pollInputs { in.agents, in.plugin = working, true; return in }, time.Time{}, time.Time{}, 3 * time.Second, 0},
		{"no name shows a status", func(in pollInputs) pollInputs { in.agents, in.showStatus = working, false; return in }, time.Time{}, time.Time{}, 3 * time.Second, 0},
		{"the seen watch asks", func(in pollInputs) pollInputs { in.seenPoll = seenPoll; return in }, time.Time{}, time.Time{}, 3 * time.Second, seenPoll},
	} {
		s := newSchedule()
		s.hookSeen, s.agentInput = tt.hook, tt.input
		if full, agent := s.polls(tt.in(base), t0); full != tt.full || agent != tt.agent {
			t.Errorf("%s: polls %v and %v, want %v and %v", tt.name, full, agent, tt.full, tt.agent)
		}
	}
}
