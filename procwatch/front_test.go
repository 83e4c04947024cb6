//go:build linux || darwin

package procwatch

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// frontStep is one thing done in a watched shell, the state to wait for
// before the next, and the report it must bring: the look that made the
// report names the right process and directory, and so does the name
// FromFront makes of it ("" for no program; "-" not checked).
type frontStep struct {
	what string
	do   func(c *frontCase)
	want func(c *frontCase, f procinfo.Front) bool
	name string
}

// frontCase is one shell watched through a table's steps.
type frontCase struct {
	t    *testing.T
	tm   *term
	dest string // a folder to change to
	fifo string // a FIFO a wrapper waits on, until the test writes to it
	stay string // a FIFO no one writes to
	last procinfo.Front
}

// What a name is made of changes in the process in front, not only in
// the pane's shell: a nested shell's cd, `exec prog`, a wrapper moving on
// to its next command, a program's own chdir after input or with no event
// at all. Each is reported, with the look that saw it.
func TestFrontChangesAreReported(t *testing.T) {
	cases := map[string][]frontStep{
		"nested shell cd":       nestedShellSteps(),
		"exec replaces shell":   execSteps(),
		"wrapper moves on":      wrapperSteps(),
		"chdir after input":     chdirAfterInputSteps(),
		"chdir with no event":   chdirSilentSteps(),
		"cd right after Ctrl-C": programThenCdSteps(),
	}
	res, err := procinfo.New(procinfo.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range shellKinds {
		for name, steps := range cases {
			t.Run(k.name+"/"+name, func(t *testing.T) {
				c := &frontCase{t: t, tm: startTerm(t, k.name, ""), dest: t.TempDir()}
				c.fifo, c.stay = filepath.Join(t.TempDir(), "go"), filepath.Join(t.TempDir(), "stay")
				for _, f := range []string{c.fifo, c.stay} {
					if err := syscall.Mkfifo(f, 0o600); err != nil {
						t.Fatal(err)
					}
				}
				w := newWatcher(t, newKernel)
				w.Set([]Shell{{Key: "p", PID: c.tm.pid()}})
				settled(t, w, "p")
				for _, s := range steps {
					s.do(c)
					rep := reportedFront(t, w, "p", s.what, func(f procinfo.Front) bool { return s.want(c, f) })
					c.last = rep.Front
					if got, ok := w.Front("p"); !ok || !s.want(c, got) {
						t.Errorf("%s: reported %+v, but Front is %+v", s.what, rep.Front, got)
					}
					if p := res.FromFront(rep.Front); s.name != "-" && p.Name != s.name {
						t.Errorf("%s: FromFront named %q (%s), want %q", s.what, p.Name, p.Why, s.name)
					}
				}
			})
		}
	}
}

// cwdIs: the process in front is in the case's folder.
func cwdIs(c *frontCase, f procinfo.Front) bool { return f.Cwd() == c.dest }

func nestedShellSteps() []frontStep {
	return []frontStep{
		{"a nested shell", func(c *frontCase) {
			c.tm.line(c.tm.kind+" "+argsOf(c.tm.kind)+"\n", leading(c.tm.kind))
		}, func(c *frontCase, f procinfo.Front) bool { return leading(c.tm.kind)(f) && f.Leader.PID != c.tm.pid() }, ""},
		{"a cd in the nested shell", func(c *frontCase) {
			c.tm.line("cd "+c.dest+"\n", func(f procinfo.Front) bool { return f.Leader.Cwd == c.dest })
		}, func(c *frontCase, f procinfo.Front) bool {
			return f.Leader.Cwd == c.dest && cwdIs(c, f) && f.ShellCwd == c.tm.cmd.Dir && f.Leader.PID != c.tm.pid()
		}, ""},
	}
}

func execSteps() []frontStep {
	sleeping := func(c *frontCase, f procinfo.Front) bool {
		return f.ShellComm == "sleep" && len(f.ShellArgv) > 0 && f.PGID == c.tm.pid() && f.Leader.PID == c.tm.pid()
	}
	return []frontStep{{"exec sleep", func(c *frontCase) {
		c.tm.run("exec sleep 300\n", func(f procinfo.Front) bool { return sleeping(c, f) })
	}, sleeping, "sleep"}}
}

func wrapperSteps() []frontStep {
	child := func(comm string) func(c *frontCase, f procinfo.Front) bool {
		return func(_ *frontCase, f procinfo.Front) bool {
			return leading("sh")(f) && f.Child.Comm == comm && len(f.Child.Argv) > 0
		}
	}
	return []frontStep{
		{"a wrapper runs its first command", func(c *frontCase) {
			c.tm.run("sh -c 'sleep 300; cat; true'\n", func(f procinfo.Front) bool { return child("sleep")(c, f) })
		}, child("sleep"), "sleep"},
		{"the wrapper runs its next command", func(c *frontCase) {
			if err := syscall.Kill(c.last.Child.PID, syscall.SIGTERM); err != nil {
				c.t.Fatal(err)
			}
			c.tm.wait(func(f procinfo.Front) bool { return child("cat")(c, f) })
		}, child("cat"), "cat"},
	}
}

func chdirAfterInputSteps() []frontStep {
	return []frontStep{
		{"a program that reads a line", func(c *frontCase) {
			c.tm.run("sh -c 'read x; cd "+c.dest+"; read y; true'\n", leading("sh"))
		}, func(_ *frontCase, f procinfo.Front) bool { return leading("sh")(f) }, "-"},
		{"it changes directory after the line", func(c *frontCase) {
			c.tm.run("go\n", func(f procinfo.Front) bool { return leading("sh")(f) && f.Leader.Cwd == c.dest })
		}, func(c *frontCase, f procinfo.Front) bool { return leading("sh")(f) && cwdIs(c, f) }, "-"},
	}
}

func chdirSilentSteps() []frontStep {
	return []frontStep{
		{"a program waiting on a FIFO", func(c *frontCase) {
			c.tm.run("sh -c 'read x < "+c.fifo+"; cd "+c.dest+"; read y < "+c.stay+"; true'\n", leading("sh"))
		}, func(_ *frontCase, f procinfo.Front) bool { return leading("sh")(f) }, "-"},
		{"it changes directory with no event", func(c *frontCase) {
			fifo, err := os.OpenFile(c.fifo, os.O_WRONLY, 0)
			if err != nil {
				c.t.Fatal(err)
			}
			defer fifo.Close()
			if _, err := fifo.WriteString("go\n"); err != nil {
				c.t.Fatal(err)
			}
		}, func(c *frontCase, f procinfo.Front) bool { return leading("sh")(f) && cwdIs(c, f) }, "-"},
	}
}

func programThenCdSteps() []frontStep {
	return []frontStep{
		{"a program", func(c *frontCase) { c.tm.run("sleep 300\n", leading("sleep")) },
			func(_ *frontCase, f procinfo.Front) bool { return leading("sleep")(f) }, "sleep"},
		{"Ctrl-C", func(c *frontCase) { c.tm.line("\x03", c.tm.atPrompt) },
			func(c *frontCase, f procinfo.Front) bool { return c.tm.atPrompt(f) }, ""},
		{"a cd right after", func(c *frontCase) {
			c.tm.line("cd "+c.dest+"\n", func(f procinfo.Front) bool { return f.ShellCwd == c.dest })
		}, func(c *frontCase, f procinfo.Front) bool { return c.tm.atPrompt(f) && cwdIs(c, f) }, ""},
	}
}

// argsOf is how the tests start a shell of kind interactive.
func argsOf(kind string) string {
	for _, k := range shellKinds {
		if k.name == kind {
			s := ""
			for i, a := range k.args {
				if i > 0 {
					s += " "
				}
				s += a
			}
			return s
		}
	}
	return ""
}
