package procinfo

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// fakeSource serves processes from a table and counts what is read.
type fakeSource struct {
	procs map[int]fakeProc
	kids  map[int][]int
	reads map[string]int // "stat", "argv", "cwd", "children", "env"
}

type fakeProc struct {
	st    Stat
	argv  []string
	cwd   string
	shell string // $SHELL
}

func (s *fakeSource) stat(_, pid int) (Stat, error) {
	s.reads["stat"]++
	p, ok := s.procs[pid]
	if !ok {
		return Stat{}, fmt.Errorf("pid %d: %w", pid, errGone)
	}
	return p.st, nil
}

func (s *fakeSource) argv(pid int) []string { s.reads["argv"]++; return s.procs[pid].argv }

func (s *fakeSource) cwd(pid int) string { s.reads["cwd"]++; return s.procs[pid].cwd }

func (s *fakeSource) shellVar(pid int) (string, bool) {
	s.reads["env"]++
	p, ok := s.procs[pid]
	return p.shell, ok && p.shell != ""
}

func (s *fakeSource) children(pid int) ([]int, error) { s.reads["children"]++; return s.kids[pid], nil }

func (s *fakeSource) close() {}

// A quick look at a shell whose processes have not moved reads one stat
// file, and a deep one adds the shell's and the directories; command lines are read again
// when a process or its name moves, or once they are argvMaxAge old; a
// quick look that finds its processes moved reads the rest at once.
func TestFrontReaderReadsWhatMoved(t *testing.T) {
	src := &fakeSource{reads: map[string]int{}, kids: map[int][]int{}, procs: map[int]fakeProc{
		10: {st: Stat{Comm: "bash", State: 'S', TPGID: 20, StartTime: 1}, argv: []string{"bash"}, cwd: "/s", shell: "/bin/bash"},
		20: {st: Stat{Comm: "sleep", State: 'S', PPID: 10, TPGID: 20, StartTime: 2}, argv: []string{"sleep", "9"}, cwd: "/s", shell: "/bin/bash"},
	}}
	now := time.Unix(1000, 0)
	r := &FrontReader{pid: 10, src: src, clock: func() time.Time { return now }}
	look := func(deep bool) Front {
		t.Helper()
		clear(src.reads)
		f, err := r.Look(deep)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	f := look(true)
	if f.Leader.Comm != "sleep" || !slices.Equal(f.Leader.Argv, []string{"sleep", "9"}) || f.Cwd() != "/s" {
		t.Fatalf("first look %+v", f)
	}
	steps := []struct {
		what  string
		move  func()
		deep  bool
		reads map[string]int
		check func(Front) bool
	}{
		{"quick, nothing moved", func() {}, false, map[string]int{"stat": 1}, func(g Front) bool { return g.Equal(f) }},
		{"deep, nothing moved", func() {}, true, map[string]int{"stat": 2, "cwd": 2}, func(g Front) bool { return g.Equal(f) }},
		{"deep, the program changed directory", func() { p := src.procs[20]; p.cwd = "/d"; src.procs[20] = p }, true,
			map[string]int{"stat": 2, "cwd": 2}, func(g Front) bool { return g.Cwd() == "/d" }},
		{"deep, command lines aged", func() { now = now.Add(argvMaxAge) }, true,
			map[string]int{"stat": 2, "cwd": 2, "argv": 2}, func(g Front) bool { return g.Leader.Comm == "sleep" }},
		{"quick, the program exec'd vim", func() {
			src.procs[20] = fakeProc{st: Stat{Comm: "vim", State: 'S', PPID: 10, TPGID: 20, StartTime: 2}, argv: []string{"vim"}, cwd: "/d"}
		}, false, map[string]int{"stat": 3, "cwd": 2, "argv": 1}, func(g Front) bool { return slices.Equal(g.Leader.Argv, []string{"vim"}) }},
		{"quick, back at the prompt", func() {
			delete(src.procs, 20)
			p := src.procs[10]
			p.st.TPGID = 10
			src.procs[10] = p
		}, false, map[string]int{"stat": 2, "cwd": 1, "env": 1}, func(g Front) bool {
			return g.PGID == 10 && g.Leader.PID == 10 && g.EnvShell == "/bin/bash"
		}},
		{"deep, at the prompt", func() {}, true, map[string]int{"stat": 1, "cwd": 1}, func(g Front) bool { return g.EnvShell == "/bin/bash" }},
		{"quick, the shell exec'd htop, its environment not there yet", func() {
			src.procs[10] = fakeProc{st: Stat{Comm: "htop", State: 'S', TPGID: 10, StartTime: 1}, argv: []string{"htop"}, cwd: "/s"}
		}, false, map[string]int{"stat": 2, "cwd": 1, "argv": 1, "env": 1}, func(g Front) bool {
			return g.ShellComm == "htop" && g.EnvShell == ""
		}},
		{"deep, htop's environment shows", func() { p := src.procs[10]; p.shell = "/bin/zsh"; src.procs[10] = p }, true,
			map[string]int{"stat": 1, "cwd": 1, "env": 1}, func(g Front) bool { return g.EnvShell == "/bin/zsh" }},
		{"deep, nothing moved at htop", func() {}, true, map[string]int{"stat": 1, "cwd": 1}, func(g Front) bool { return g.EnvShell == "/bin/zsh" }},
	}
	for _, s := range steps {
		s.move()
		g := look(s.deep)
		if !s.check(g) {
			t.Errorf("%s: look %+v", s.what, g)
		}
		for _, k := range []string{"stat", "argv", "cwd", "children", "env"} {
			if src.reads[k] != s.reads[k] {
				t.Errorf("%s: %d reads of %s, want %d (all: %v)", s.what, src.reads[k], k, s.reads[k], src.reads)
			}
		}
	}
}

// A wrapper's newest child is the one that started last, and a shell that
// has ended (or is a zombie) fails the look.
func TestFrontReaderWrapperAndEnd(t *testing.T) {
	src := &fakeSource{reads: map[string]int{}, kids: map[int][]int{20: {30, 21}}, procs: map[int]fakeProc{
		10: {st: Stat{Comm: "bash", State: 'S', TPGID: 20}, argv: []string{"bash"}},
		20: {st: Stat{Comm: "sh", State: 'S', PPID: 10, TPGID: 20}, argv: []string{"sh", "-c", "a | b"}},
		21: {st: Stat{Comm: "b", State: 'S', PPID: 20, StartTime: 9}, argv: []string{"b"}},
		30: {st: Stat{Comm: "a", State: 'S', PPID: 20, StartTime: 8}, argv: []string{"a"}},
	}}
	r := &FrontReader{pid: 10, src: src}
	f, err := r.Look(true)
	if err != nil || f.Child.PID != 21 || f.Child.Comm != "b" {
		t.Fatalf("Look = %+v, %v; want child 21 (b), started last", f, err)
	}
	src.procs[10] = fakeProc{st: Stat{Comm: "bash", State: 'Z'}}
	if _, err := r.Look(true); err == nil {
		t.Error("a zombie shell was looked at")
	}
	delete(src.procs, 10)
	if _, err := r.Look(true); err == nil {
		t.Error("a shell gone was looked at")
	}
}
