package procwatch

import (
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// When a shell is looked at next, and how deeply: whole seconds for all,
// multiples of blindEvery (quick) for a shell some of whose changes come
// with no event, the run of looks after an event, never closer than
// minGap.
func TestSchedule(t *testing.T) {
	sec := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return sec.Add(time.Duration(ms) * time.Millisecond) }
	const pid = 100
	prompt := procinfo.Front{ShellPID: pid, PGID: pid}
	program := procinfo.Front{ShellPID: pid, PGID: 200, Leader: procinfo.FrontProc{PID: 200}}
	tests := []struct {
		name string
		sh   shell
		due  time.Time
		deep bool // the look at due is deep
	}{
		{"events, at the prompt: the next whole second",
			shell{front: prompt, shellEvents: true, ttyEvents: true, lookedAt: at(300), deepAt: at(300)}, at(1000), true},
		{"events, a program whose exit is watched",
			shell{front: program, shellEvents: true, ttyEvents: true, exitEvents: true, lookedAt: at(10), deepAt: at(10)}, at(1000), true},
		{"no terminal events: quick looks on multiples of blindEvery",
			shell{front: prompt, lookedAt: at(10), deepAt: at(10)}, at(int(blindEvery / time.Millisecond)), false},
		{"a program whose exit is not watched: quick looks",
			shell{front: program, shellEvents: true, ttyEvents: true, lookedAt: at(10), deepAt: at(10)}, at(int(blindEvery / time.Millisecond)), false},
		{"blind, the quick look falls on the second: deep",
			shell{front: prompt, lookedAt: at(1000 - int(blindEvery/time.Millisecond)), deepAt: at(0)}, at(1000), true},
		{"a run of looks after an event",
			shell{front: prompt, shellEvents: true, ttyEvents: true, lookedAt: at(300), deepAt: at(300), runAt: at(300), run: 3},
			at(300).Add(followUps[3]), true},
		{"never closer than minGap",
			shell{front: prompt, shellEvents: true, ttyEvents: true, lookedAt: at(300), deepAt: at(300), runAt: at(300), run: 0},
			at(300).Add(minGap), true},
		{"forks are events but a cd is not (macOS): deep looks every cdEvery",
			shell{front: prompt, shellEvents: true, lookedAt: at(10), deepAt: at(10)}, at(int(cdEvery / time.Millisecond)), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sh := tt.sh
			sh.pid = pid
			if got := sh.due(); !got.Equal(tt.due) {
				t.Errorf("due %v, want %v", got.Sub(sec), tt.due.Sub(sec))
			}
			if got := sh.deepNow(tt.due); got != tt.deep {
				t.Errorf("deep at %v: %v, want %v", tt.due.Sub(sec), got, tt.deep)
			}
		})
	}
}

// A run of looks moves on with each look and ends after the last.
func TestRunOfLooks(t *testing.T) {
	start := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	sh := shell{pid: 1, front: procinfo.Front{ShellPID: 1, PGID: 1}, shellEvents: true, ttyEvents: true}
	sh.trigger(start)
	looks := 0
	for now := start; sh.running(); now = sh.due() {
		sh.looked(now, sh.deepNow(now))
		looks++
	}
	if looks != len(followUps) {
		t.Errorf("%d looks in a run, want %d", looks, len(followUps))
	}
	if !sh.runAt.IsZero() {
		t.Error("the run did not end")
	}
}
