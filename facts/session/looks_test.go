package session

import (
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"go.uber.org/goleak"
)

// drain takes every Changed that comes until none has for quiet.
func drain(s *Sessions, quiet time.Duration) int {
	n := 0
	for waitChanged(s, quiet) {
		n++
	}
	return n
}

// TestInputLooksAgainAtTheSession: input in the terminal of a pane whose
// session is read brings looks (Changed) over the next seconds, then
// none; input in a pane whose session is not asked for, or no input at
// all, brings none. A pane whose agent has no session reported yet
// counts: its hook may report one next.
func TestInputLooksAgainAtTheSession(t *testing.T) {
	before := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, before) })
	was := lookAfter
	lookAfter = []time.Duration{25 * time.Millisecond, 60 * time.Millisecond, 120 * time.Millisecond, 300 * time.Millisecond}
	t.Cleanup(func() { lookAfter = was })
	w := newWorld(t)
	w.put(claudeRel(claudeSession), []byte(customTitle("auth redirect")))
	s := newSessionsIn(t, w.home)
	s.Titles([]herdr.Pane{claudePane("w1:p1", claudeSession, paneDir), {ID: "w1:p2", Agent: "claude"}})
	drain(s, 4*sessionCoalesce)

	if waitChanged(s, 2*lookAfter[len(lookAfter)-1]) {
		t.Fatal("a look with no input")
	}
	s.Input("w1:p9") // not asked about
	if waitChanged(s, 2*lookAfter[0]) {
		t.Fatal("a look after input in a pane not asked about")
	}
	for _, pane := range []string{"w1:p1", "w1:p2"} {
		start := time.Now()
		s.Input(pane)
		if !waitChanged(s, wakeBound) {
			t.Fatalf("%s: no look after input", pane)
		}
		t.Logf("%s: the first look %v after the input", pane, time.Since(start).Round(time.Millisecond))
		n := 1 + drain(s, 2*lookAfter[len(lookAfter)-1])
		t.Logf("%s: %d looks in all", pane, n)
		if n > len(lookAfter) {
			t.Errorf("%s: %d looks after one input, want at most %d", pane, n, len(lookAfter))
		}
	}
}

// TestAWriteToAnotherSessionLooksAgain: a session file no pane reads,
// written in a folder watched for one (a session taken up again in the
// same project: /resume), asks for a look at which session each pane
// runs; its next writes, while it keeps being written, do not.
func TestAWriteToAnotherSessionLooksAgain(t *testing.T) {
	w := newWorld(t)
	w.put(claudeRel(claudeSession), []byte(customTitle("auth redirect")))
	other := w.put(claudeRel("7b2e9c41-0d3a-4f6e-9a15-8c4d2e1f0b37"), []byte(customTitle("logout bug")))
	s := newSessionsIn(t, w.home)
	s.Titles([]herdr.Pane{claudePane("w1:p1", claudeSession, paneDir)})
	waitQuiet(t, s)
	drain(s, 4*sessionCoalesce)
	time.Sleep(lookGap)
	appendTo(t, other, `{"type":"user","message":{"role":"user","content":"go on"}}`+"\n")
	if !waitChanged(s, wakeBound) {
		t.Fatal("no look after another session's file was written")
	}
	// That agent at work: its next lines ask for nothing.
	drain(s, 4*sessionCoalesce)
	time.Sleep(lookGap)
	appendTo(t, other, `{"type":"assistant","message":{"role":"assistant","content":"on it"}}`+"\n")
	if waitChanged(s, 2*lookGap) {
		t.Error("a look at every write of another agent at work")
	}
}
