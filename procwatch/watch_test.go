//go:build linux || darwin

package procwatch

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// waitTimeout bounds every wait for a report: generous, since these
// machines are shared; the tests never time how long one takes.
const waitTimeout = 20 * time.Second

// waitReport waits for a report that ok accepts and returns it.
func waitReport(t *testing.T, w *Watcher, after string, ok func(Report) bool) Report {
	t.Helper()
	deadline := time.After(waitTimeout)
	for {
		select {
		case <-w.Changed():
			reps := w.Take()
			if i := slices.IndexFunc(reps, ok); i >= 0 {
				return reps[i]
			}
		case <-deadline:
			t.Fatalf("%s: no such report within %v (stats %+v)", after, waitTimeout, w.Stats())
		}
	}
}

// reportedFront waits until key is reported changed with a look that
// front accepts: the report that tells of the change names it.
func reportedFront(t *testing.T, w *Watcher, key, after string, front func(procinfo.Front) bool) Report {
	t.Helper()
	return waitReport(t, w, after, func(r Report) bool { return r.Key == key && r.Changed && front(r.Front) })
}

// settled waits until the watcher has taken up the last Set, looked at
// the shells of keys and armed their events, then drops what was
// reported meanwhile.
func settled(t *testing.T, w *Watcher, keys ...string) {
	t.Helper()
	testutil.WaitFor(t, "the watcher's first look at each shell", func() bool {
		for _, k := range keys {
			if _, ok := w.Front(k); !ok {
				return false
			}
		}
		return true
	})
	// A wake-up after the one that took up the Set: that one is done.
	wakes := w.Stats().Wakes
	w.k.wake()
	testutil.WaitFor(t, "the watcher's next wake-up", func() bool { return w.Stats().Wakes > wakes })
	w.Take()
}

func newWatcher(t *testing.T, k func() (kernel, error)) *Watcher {
	t.Helper()
	w, err := newWith(k, retryEvery)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w
}

// A shell with no hooks: a program starting, the program exiting (Ctrl-C)
// and a cd are each reported with what the look read, and the kernel
// told of the start and the cd (terminal input): the watch does not run
// on the slow look alone. The exit's pidfd event is not asserted: on a
// loaded machine the slow look may see the shell back at its prompt
// first, and the pidfd is dropped unread then.
func TestProgramStartExitAndCdAreReported(t *testing.T) {
	for _, k := range shellKinds {
		t.Run(k.name, func(t *testing.T) {
			startExitAndCd(t, k.name, newKernel, func(what string, events uint64, _ time.Duration, w *Watcher) {
				if what == "the program exited" {
					return
				}
				testutil.WaitFor(t, what+": a kernel event", func() bool { return w.Stats().Events > events },
					func() string { return fmt.Sprintf("stats %+v", w.Stats()) })
			})
		})
	}
}

// startExitAndCd types a program, Ctrl-C and a cd into a shell of kind
// that a watcher on k follows, waits for the report of each, checks what
// it read, and hands check the step, the watcher's event count before
// it, how long the report took once the test saw the change, and the
// watcher.
func startExitAndCd(t *testing.T, kind string, k func() (kernel, error), check func(what string, events uint64, took time.Duration, w *Watcher)) *Watcher {
	t.Helper()
	tm := startTerm(t, kind, "")
	dest := t.TempDir()
	w := newWatcher(t, k)
	w.Set([]Shell{{Key: "w1:p1", PID: tm.pid()}})
	settled(t, w, "w1:p1")
	for _, step := range []struct {
		what  string
		do    func()
		front func(procinfo.Front) bool
	}{
		{"a program started", func() { tm.run("sleep 300\n", leading("sleep")) }, leading("sleep")},
		{"the program exited", func() { tm.line("\x03", tm.atPrompt) }, tm.atPrompt},
		{"a cd", func() { tm.line("cd "+dest+"\n", func(f procinfo.Front) bool { return f.ShellCwd == dest }) },
			func(f procinfo.Front) bool { return tm.atPrompt(f) && f.ShellCwd == dest && f.Cwd() == dest }},
	} {
		events := w.Stats().Events
		step.do()
		seen := time.Now()
		rep := reportedFront(t, w, "w1:p1", step.what, step.front)
		took := time.Since(seen)
		if got, ok := w.Front("w1:p1"); !ok || !step.front(got) {
			t.Errorf("%s: reported %+v, but Front is %+v, %v", step.what, rep.Front, got, ok)
		}
		if step.what != "a cd" || runtime.GOOS == "linux" {
			// macOS tells of no terminal input: a cd is found by looking.
			check(step.what, events, took, w)
		}
	}
	return w
}

// A shell that exits is reported once, as gone; a shell no longer in the
// set is not reported at all.
func TestShellExitAndRemoval(t *testing.T) {
	a, b, c := startTerm(t, "bash", ""), startTerm(t, "bash", ""), startTerm(t, "bash", "")
	w := newWatcher(t, newKernel)
	w.Set([]Shell{{Key: "a", PID: a.pid()}, {Key: "b", PID: b.pid()}})
	settled(t, w, "a", "b")
	w.Set([]Shell{{Key: "a", PID: a.pid()}})
	settled(t, w, "a")
	if _, ok := w.Front("b"); ok {
		t.Error("Front of a shell no longer watched")
	}
	b.run("sleep 300\n", leading("sleep"))
	a.keys("exit\n")
	waitReport(t, w, "the shell exited", func(r Report) bool { return r.Key == "a" && r.Changed && r.Gone })
	if _, ok := w.Front("a"); ok {
		t.Error("Front of a shell gone")
	}
	// Once the watcher has taken up another set, it has long looked at
	// every shell it had.
	w.Set([]Shell{{Key: "c", PID: c.pid()}})
	testutil.WaitFor(t, "the watcher's first look at c", func() bool { _, ok := w.Front("c"); return ok })
	for _, r := range w.Take() {
		if r.Key != "a" || !r.Gone {
			t.Fatalf("report after the exit: %+v (b left the set before it started a program)", r)
		}
	}
}

// A directory that is a symlink's target is the shell's directory as the
// kernel resolves it: a cd through a link to the same folder is no change.
func TestCdToTheSameFolderIsNoChange(t *testing.T) {
	tm := startTerm(t, "bash", "")
	link := filepath.Join(t.TempDir(), "here")
	if err := os.Symlink(tm.cmd.Dir, link); err != nil {
		t.Fatal(err)
	}
	w := newWatcher(t, newKernel)
	w.Set([]Shell{{Key: "w1:p1", PID: tm.pid()}})
	settled(t, w, "w1:p1")
	events := w.Stats().Events
	tm.line("cd "+link+"\n", tm.atPrompt)
	testutil.WaitFor(t, "the Enter's event", func() bool { return w.Stats().Events > events })
	// The run of looks the Enter started is over once a slow look came.
	looks := w.Stats().Looks
	testutil.WaitFor(t, "the run of looks to end", func() bool { return w.Stats().Looks >= looks+uint64(len(followUps)) })
	if got := w.Take(); len(got) != 0 {
		t.Fatalf("a cd into the folder the shell is in was reported: %+v", got)
	}
}

// An agent in front reads a prompt typed or sent to it, and its status
// changes next though nothing the watch reads does: a shell asked for
// input reports its terminal's input; another shell does not.
func TestInputIsReportedWhereAsked(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("terminal input is watched on Linux only")
	}
	asked, other := startTerm(t, "bash", ""), startTerm(t, "bash", "")
	w := newWatcher(t, newKernel)
	w.Set([]Shell{{Key: "asked", PID: asked.pid(), Input: true}, {Key: "other", PID: other.pid()}})
	settled(t, w, "asked", "other")
	if !w.InputWatched("asked") || w.InputWatched("other") {
		t.Fatalf("input watched: asked %v, other %v; want true, false", w.InputWatched("asked"), w.InputWatched("other"))
	}
	other.keys("x")
	asked.keys("x")
	var got []Report
	waitReport(t, w, "a key typed", func(r Report) bool { got = append(got, r); return r.Key == "asked" && r.Input })
	for _, r := range append(got, w.Take()...) {
		if r.Key == "other" && r.Input {
			t.Fatalf("input reported for a shell not asked: %+v", r)
		}
		if r.Changed {
			t.Fatalf("a key typed at the prompt reported a change: %+v", r)
		}
	}
	if err := w.Blind(); err != nil {
		t.Errorf("Blind = %v with the kernel's events", err)
	}
}

// writeTerm writes to the terminal of pid, as a program in its shell
// does (a new terminal title).
func writeTerm(t *testing.T, pid int, text string) {
	t.Helper()
	path, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/0", pid))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
}

// Output written to a shell's terminal is reported where it is asked for,
// from when it is asked for, and starts no look at the shell; a shell
// that keeps writing is reported ever less often.
func TestOutputIsReportedWhereAsked(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("terminal output is watched on Linux only")
	}
	asked, other := startTerm(t, "bash", ""), startTerm(t, "bash", "")
	w := newWatcher(t, newKernel)
	w.Set([]Shell{{Key: "asked", PID: asked.pid()}, {Key: "other", PID: other.pid()}})
	settled(t, w, "asked", "other")
	writeTerm(t, asked.pid(), "\x1b]2;before\x07")
	w.Set([]Shell{{Key: "asked", PID: asked.pid(), Output: true}, {Key: "other", PID: other.pid()}})
	settled(t, w, "asked", "other")
	events := w.Stats().Events
	writeTerm(t, other.pid(), "\x1b]2;title\x07")
	writeTerm(t, asked.pid(), "\x1b]2;title\x07")
	var got []Report
	waitReport(t, w, "a title written", func(r Report) bool { got = append(got, r); return r.Key == "asked" && r.Output })
	for _, r := range append(got, w.Take()...) {
		if r.Key == "other" && r.Output || r.Changed {
			t.Fatalf("a write reported %+v", r)
		}
	}
	if n := w.Stats().Events - events; n != 0 {
		t.Errorf("writes started %d runs of looks", n)
	}
	start, reports := time.Now(), 0
	for time.Since(start) < 2*time.Second {
		writeTerm(t, asked.pid(), "x")
		time.Sleep(20 * time.Millisecond)
		for _, r := range w.Take() {
			if r.Output {
				reports++
			}
		}
	}
	if reports < 1 || reports > 4 {
		t.Errorf("a shell writing for 2s was reported %d times, want 1 to 4", reports)
	}
}
