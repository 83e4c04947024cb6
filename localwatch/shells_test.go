package localwatch

import (
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// prober stands for this machine's processes: it counts the proofs asked
// for, and every look at a terminal finds front.
type prober struct {
	proofs int
	front  procinfo.Front
}

func (p *prober) ForegroundPGID(int) (int, error)         { return p.front.PGID, nil }
func (p *prober) Process(int) (procinfo.Proc, error)      { return procinfo.Proc{}, nil }
func (p *prober) Children(int) ([]int, error)             { return nil, nil }
func (p *prober) ReadFront(int) (procinfo.Front, error)   { return p.front, nil }
func (p *prober) ProveLocal(server, _ int) (bool, string) { p.proofs++; return server == 7, "a test's" }

// A shell is proven once per herdr server: a new server ends the proofs
// made with the old one.
func TestProofsLastAsLongAsTheirServer(t *testing.T) {
	pr := &prober{}
	s := New(pr)
	s.SetServer(7)
	first, second := s.Prove(10), s.Prove(10)
	if !first || !second || pr.proofs != 1 {
		t.Fatalf("proved %d times, want once, and local", pr.proofs)
	}
	s.SetServer(8)
	if s.Prove(10) || pr.proofs != 2 {
		t.Fatalf("a new server kept the old proof (%d proofs)", pr.proofs)
	}
	if New(nil).Prove(10) {
		t.Fatal("with no look at this machine's processes a shell was proven local")
	}
}

// The registry is what the last pass found; a title's hint and a preexec
// wait read it.
func TestRegistryHintsAndProbes(t *testing.T) {
	pr := &prober{front: procinfo.Front{ShellPID: 10, PGID: 10}}
	s := New(pr)
	if _, ok := s.Probe("w1:p1"); ok || s.TitleHint("w1:p1") != Nothing || s.ServerHere() {
		t.Fatal("a pane no pass found local was looked at")
	}
	s.Found(map[string]procinfo.Shell{"w1:p1": {PID: 10, PGID: 11}})
	s.SetServer(7)
	if sh, ok := s.Local("w1:p1"); !ok || sh.PID != 10 || !s.ServerHere() {
		t.Fatalf("Local = %v, %v", sh, ok)
	}
	if h := s.TitleHint("w1:p1"); h != ProgramChanged {
		t.Fatalf("the shell back in front of a program: hint %v, want ProgramChanged", h)
	}
	probe, _ := s.Probe("w1:p1")
	if probe() {
		t.Fatal("the probe saw a program with the shell in front")
	}
	s.Found(map[string]procinfo.Shell{"w1:p1": {PID: 10, PGID: 10}})
	if h := s.TitleHint("w1:p1"); h != AtPrompt {
		t.Fatalf("the shell at its prompt: hint %v, want AtPrompt", h)
	}
	pr.front.PGID = 12
	if !probe() {
		t.Fatal("the probe missed a program in front")
	}
}
