package pass

import (
	"context"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// prober stands for this machine's processes: every shell is local, and
// a fresh look at its terminal reads now.
type prober struct{ now procinfo.Front }

func (p *prober) ForegroundPGID(int) (int, error)              { return p.now.PGID, nil }
func (p *prober) Process(int) (procinfo.Proc, error)           { return procinfo.Proc{}, nil }
func (p *prober) Children(int) ([]int, error)                  { return nil, nil }
func (p *prober) ReadFront(int) (procinfo.Front, error)        { return p.now, nil }
func (p *prober) ProveLocal(int, int) (bool, string)           { return true, "a test's" }
func (w *watchLooks) Front(string, int) (procinfo.Front, bool) { return w.last, w.last.ShellPID > 0 }
func (w *watchLooks) Prove(int) bool                           { return true }

// watchLooks is a local watch whose last look is last, where every shell
// is proven local.
type watchLooks struct{ last procinfo.Front }

// front is a look at shell 10's terminal at at: the shell at its prompt
// when prog is "", else prog in front.
func front(prog string, at time.Time) procinfo.Front {
	f := procinfo.Front{ShellPID: 10, PGID: 10, ShellComm: "bash", ShellArgv: []string{"bash"}, ShellCwd: "/src/rmk",
		Leader: procinfo.FrontProc{PID: 10, Comm: "bash", Argv: []string{"bash"}, Cwd: "/src/rmk"}, At: at}
	if prog != "" {
		f.PGID, f.Leader = 11, procinfo.FrontProc{PID: 11, Comm: prog, Argv: []string{prog}, Cwd: "/src/rmk"}
	}
	return f
}

// A nudged pass looks at the terminal itself; the local watch's last look
// may be older than that one, from before the program started. A pass
// after it must not take that older look for news and name the tab back.
func TestAWatchsOlderLookIsNotTakenOverANewerOne(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	pr := &prober{now: front("", t0)}
	watch := &watchLooks{last: front("", t0)}
	p := planner(t, "{proc|dir}", &asker{progs: map[string]string{"w1:p1": ""}})
	p.cfg.Inspector, p.local, p.cfg.LocalWatch = pr, watch, true
	mem := memory(t)
	tabs := map[string][]herdr.Pane{"w1:t1": {{ID: "w1:p1", Cwd: "/src/rmk"}}}
	label := "1"
	pass := func(forced bool) string {
		in := Input{Snap: session(tabs, map[string]string{"w1:t1": label}), SnapAt: p.now(), Urgent: forced}
		if forced {
			in.Forced = map[string]bool{"w1:p1": true}
		}
		pl := p.Plan(context.Background(), in, mem)
		for _, r := range pl.Renames {
			label = r.Want
		}
		return label
	}
	if got := pass(true); got != "rmk" {
		t.Fatalf("at the prompt the tab is %q, want %q", got, "rmk")
	}
	pr.now = front("tee", t0.Add(time.Second)) // tee starts; the watch has not looked yet
	if got := pass(true); got != "tee" {
		t.Fatalf("the nudged pass names the tab %q, want %q", got, "tee")
	}
	if got := pass(false); got != "tee" {
		t.Fatalf("the next pass names the tab %q from the watch's older look, want %q", got, "tee")
	}
	watch.last = front("tee", t0.Add(2*time.Second))
	pr.now = front("", t0.Add(3*time.Second)) // the watch's look is newer than the last pass's
	if got := pass(false); got != "tee" {
		t.Fatalf("a pass names the tab %q, want %q from the watch's newer look", got, "tee")
	}
}

// A shell the shell list does not name, at its prompt, names the tab
// after its directory; its fork before it execs the program typed is no
// program either, and herdr is not asked about it (its answer would name
// the fork after the shell); the program then names the tab.
func TestAnUnlistedShellAndItsFork(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	argv := []string{"/opt/mysh", "-i"}
	shell := procinfo.Front{ShellPID: 10, PGID: 10, ShellComm: "mysh", ShellArgv: argv, ShellCwd: "/src/rmk", EnvShell: "/opt/mysh",
		Leader: procinfo.FrontProc{PID: 10, Comm: "mysh", Argv: argv, Cwd: "/src/rmk"}, At: t0}
	fork := shell
	fork.PGID, fork.EnvShell, fork.At = 11, "", t0.Add(time.Second)
	fork.Leader = procinfo.FrontProc{PID: 11, Comm: "mysh", Argv: argv, Cwd: "/src/rmk"}
	tee := fork
	tee.Leader.Comm, tee.Leader.Argv, tee.At = "tee", []string{"tee"}, t0.Add(2*time.Second)
	pr := &prober{now: shell}
	ask := &asker{progs: map[string]string{"w1:p1": "mysh"}}
	p := planner(t, "{proc|dir}", ask)
	p.cfg.Inspector, p.local = pr, &watchLooks{} // every shell proven local, no look of the watch's
	mem := memory(t)
	tabs := map[string][]herdr.Pane{"w1:t1": {{ID: "w1:p1", Cwd: "/src/rmk"}}}
	label := "1"
	pass := func() string {
		in := Input{Snap: session(tabs, map[string]string{"w1:t1": label}), SnapAt: p.now(), Urgent: true,
			Forced: map[string]bool{"w1:p1": true}}
		for _, r := range p.Plan(context.Background(), in, mem).Renames {
			label = r.Want
		}
		return label
	}
	// The first answer is herdr's: its shell is bash at its prompt.
	ask.progs["w1:p1"] = ""
	if got := pass(); got != "rmk" {
		t.Fatalf("at the prompt the tab is %q, want %q", got, "rmk")
	}
	ask.progs["w1:p1"] = "mysh"
	asked := len(ask.asked)
	for _, step := range []struct {
		look procinfo.Front
		want string
	}{{shell, "rmk"}, {fork, "rmk"}, {tee, "tee"}} {
		pr.now = step.look
		if got := pass(); got != step.want {
			t.Fatalf("look %+v: the tab is %q, want %q", step.look, got, step.want)
		}
	}
	if n := len(ask.asked) - asked; n != 0 {
		t.Errorf("herdr asked %d times about a local shell's terminal, want none", n)
	}
}

// A nested shell in front (zsh in bash, nix develop) is no program, and
// a look at the terminal tells so: passes at rest ask herdr nothing.
func TestANestedShellCostsNoQuestionAtRest(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	nested := front("", t0)
	nested.PGID, nested.Leader = 12, procinfo.FrontProc{PID: 12, Comm: "zsh", Argv: []string{"zsh"}, Cwd: "/src/rmk/sub"}
	pr := &prober{now: nested}
	ask := &asker{progs: map[string]string{"w1:p1": ""}}
	p := planner(t, "{proc|dir}", ask)
	p.cfg.Inspector, p.local = pr, &watchLooks{}
	mem := memory(t)
	tabs := map[string][]herdr.Pane{"w1:t1": {{ID: "w1:p1", Cwd: "/src/rmk", ForegroundCwd: "/src/rmk/sub"}}}
	label := "1"
	for i := range 4 {
		in := Input{Snap: session(tabs, map[string]string{"w1:t1": label}), SnapAt: p.now()}
		for _, r := range p.Plan(context.Background(), in, mem).Renames {
			label = r.Want
		}
		if i == 0 {
			continue // the first pass asks: nothing is known of the pane yet
		}
		if n := len(ask.asked); n != 1 {
			t.Fatalf("pass %d: herdr asked %d times in all about a nested shell at rest, want 1 (the first pass's)", i, n)
		}
	}
	if label != "rmk" {
		t.Errorf("the tab is %q, want %q (no program: the directory)", label, "rmk")
	}
}
