//go:build linux || darwin

package procwatch

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// promptMark is the tests' shells' prompt: a new one in a shell's output
// says it has done with a command and reads the next. Nested shells
// inherit it through the environment.
const promptMark = "<ready> "

// shellKinds are the shells the tests drive, each started interactive
// with no rc file, as herdr starts a pane's shell.
var shellKinds = []struct {
	name string
	args []string
}{
	{"bash", []string{"--norc", "--noprofile", "-i"}},
	{"sh", []string{"-i"}},
	{"zsh", []string{"-f", "-i"}},
}

// term is a shell in a pty. The test types into it only once the shell
// is ready for the keys, as its output and /proc tell: keys typed while a
// program is still starting, or while the shell takes its terminal back
// after a Ctrl-C, may be read by the wrong process or flushed.
type term struct {
	t       testing.TB
	kind    string
	cmd     *exec.Cmd
	tty     *os.File
	out     *testutil.Buffer
	prompts int // prompts the test has waited for
}

// startTerm starts the shell named kind in dir (a fresh folder when "")
// and waits for its first prompt. A shell not installed skips the test.
func startTerm(t testing.TB, kind, dir string) *term {
	t.Helper()
	var args []string
	for _, k := range shellKinds {
		if k.name == kind {
			args = k.args
		}
	}
	bin, err := exec.LookPath(kind)
	if err != nil || args == nil {
		t.Skipf("no %s on PATH", kind)
	}
	if dir == "" {
		dir = t.TempDir()
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	// $SHELL names the shell, as herdr's panes have it: it tells the
	// shell from a program it execs.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "SHELL=" + bin, "PS1=" + promptMark, "PROMPT=" + promptMark, "TERM=dumb"}
	tty, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	tm := &term{t: t, kind: kind, cmd: cmd, tty: tty, out: &testutil.Buffer{}}
	go func() { _, _ = io.Copy(tm.out, tty) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = tty.Close()
		_ = cmd.Wait()
	})
	tm.waitPrompt(func(f procinfo.Front) bool { return f.PGID == tm.pid() })
	return tm
}

func (tm *term) pid() int { return tm.cmd.Process.Pid }

// front reads the shell's terminal as the watch does.
func (tm *term) front() procinfo.Front {
	f, err := procinfo.ReadFront(tm.pid())
	if err != nil {
		tm.t.Fatalf("%s: %v", tm.kind, err)
	}
	return f
}

// keys types keys into the shell's terminal.
func (tm *term) keys(keys string) {
	tm.t.Helper()
	if _, err := io.WriteString(tm.tty, keys); err != nil {
		tm.t.Fatal(err)
	}
}

// run types keys and waits until the shell's terminal shows ready: a
// program started, say.
func (tm *term) run(keys string, ready func(procinfo.Front) bool) {
	tm.t.Helper()
	tm.keys(keys)
	tm.wait(ready)
}

// line types keys and waits for the next prompt, and for ready.
func (tm *term) line(keys string, ready func(procinfo.Front) bool) {
	tm.t.Helper()
	tm.keys(keys)
	tm.waitPrompt(ready)
}

// wait waits until a look at the shell's terminal shows ready.
func (tm *term) wait(ready func(procinfo.Front) bool) {
	tm.t.Helper()
	var last procinfo.Front
	testutil.WaitFor(tm.t, tm.kind+": the terminal in the state asked for", func() bool {
		last = tm.front()
		return ready(last)
	}, func() string { return fmt.Sprintf("last look %+v\noutput %q", last, tm.out.String()) })
}

// waitPrompt waits for a prompt after those waited for so far, and for
// ready.
func (tm *term) waitPrompt(ready func(procinfo.Front) bool) {
	tm.t.Helper()
	var last procinfo.Front
	n := 0
	testutil.WaitFor(tm.t, tm.kind+": its next prompt", func() bool {
		n = strings.Count(tm.out.String(), promptMark)
		if n <= tm.prompts {
			return false
		}
		last = tm.front()
		return ready(last)
	}, func() string { return fmt.Sprintf("last look %+v\noutput %q", last, tm.out.String()) })
	tm.prompts = n
}

// atPrompt: the pane's shell leads its terminal.
func (tm *term) atPrompt(f procinfo.Front) bool { return f.PGID == tm.pid() }

// leading says a process named comm leads the terminal's group, its
// command line read (a process in the middle of its exec shows its new
// name first).
func leading(comm string) func(procinfo.Front) bool {
	return func(f procinfo.Front) bool {
		return f.Leader.Comm == comm && f.PGID == f.Leader.PID && len(f.Leader.Argv) > 0
	}
}
