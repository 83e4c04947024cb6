//go:build linux || darwin

package procwatch

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// waitTimeout bounds every wait for a report: generous, since these
// machines are shared; the tests never time how long one takes.
const waitTimeout = 20 * time.Second

// reported waits until key is reported as changed.
func reported(t *testing.T, w *Watcher, key, after string) {
	t.Helper()
	waitReport(t, w, after, func(r Report) bool { return r.Key == key && r.Changed })
}

// waitReport waits for a report that ok accepts.
func waitReport(t *testing.T, w *Watcher, after string, ok func(Report) bool) {
	t.Helper()
	deadline := time.After(waitTimeout)
	for {
		select {
		case <-w.Changed():
			if slices.ContainsFunc(w.Take(), ok) {
				return
			}
		case <-deadline:
			t.Fatalf("%s: no such report within %v (stats %+v)", after, waitTimeout, w.Stats())
		}
	}
}

// settled waits until the watcher has looked at its shells and nothing
// is left to report, then drops what was reported meanwhile (a shell
// still printing its first prompt).
func settled(t *testing.T, w *Watcher) {
	t.Helper()
	for start := w.Stats().Looks; w.Stats().Looks < start+2; {
		time.Sleep(10 * time.Millisecond)
	}
	w.Take()
}

func newWatcher(t *testing.T, k func() (kernel, error)) *Watcher {
	t.Helper()
	w, err := newWith(k)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	return w
}

// A shell with no hooks: a program starting, the program exiting (Ctrl-C)
// and a cd are each reported, and each came with a kernel event, not the
// slow look.
func TestProgramStartExitAndCdAreReported(t *testing.T) {
	startExitAndCd(t, newKernel, func(what string, events uint64, w *Watcher) {
		if w.Stats().Events == events {
			t.Errorf("%s: reported with no kernel event (stats %+v)", what, w.Stats())
		}
	})
}

// startExitAndCd types a program, Ctrl-C and a cd into a plain shell that
// a watcher on k follows, waits for the report of each, and hands check
// the step, the watcher's event count before it, and the watcher.
func startExitAndCd(t *testing.T, k func() (kernel, error), check func(what string, events uint64, w *Watcher)) *Watcher {
	t.Helper()
	cmd, tty := testutil.PlainShell(t, "")
	w := newWatcher(t, k)
	w.Set([]Shell{{Key: "w1:p1", PID: cmd.Process.Pid}})
	settled(t, w)
	for _, step := range []struct{ what, keys string }{
		{"a program started", "sleep 30\n"},
		{"the program exited", "\x03"},
		{"a cd", "cd /\n"},
	} {
		events := w.Stats().Events
		if _, err := io.WriteString(tty, step.keys); err != nil {
			t.Fatal(err)
		}
		reported(t, w, "w1:p1", step.what)
		check(step.what, events, w)
	}
	return w
}

// A shell that exits is reported once; a shell no longer in the set is
// not reported at all.
func TestShellExitAndRemoval(t *testing.T) {
	a, ttyA := testutil.PlainShell(t, "")
	b, ttyB := testutil.PlainShell(t, "")
	w := newWatcher(t, newKernel)
	w.Set([]Shell{{Key: "a", PID: a.Process.Pid}, {Key: "b", PID: b.Process.Pid}})
	settled(t, w)
	w.Set([]Shell{{Key: "a", PID: a.Process.Pid}})
	settled(t, w)
	if _, err := io.WriteString(ttyB, "sleep 30\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(ttyA, "exit\n"); err != nil {
		t.Fatal(err)
	}
	reported(t, w, "a", "the shell exited")
	settled(t, w)
	if got := w.Take(); len(got) != 0 {
		t.Fatalf("reports after the exit: %+v (b left the set before it started a program)", got)
	}
}

// A directory that is a symlink's target is the shell's directory as the
// kernel resolves it: a cd through a link to the same folder is no change.
func TestCdToTheSameFolderIsNoChange(t *testing.T) {
	cmd, tty := testutil.PlainShell(t, "")
	link := filepath.Join(t.TempDir(), "here")
	if err := os.Symlink(cmd.Dir, link); err != nil {
		t.Fatal(err)
	}
	w := newWatcher(t, newKernel)
	w.Set([]Shell{{Key: "w1:p1", PID: cmd.Process.Pid}})
	settled(t, w)
	events := w.Stats().Events
	if _, err := io.WriteString(tty, "cd "+link+"\n"); err != nil {
		t.Fatal(err)
	}
	for w.Stats().Events == events {
		time.Sleep(10 * time.Millisecond)
	}
	// The run of looks the Enter started is over once a slow look came.
	for looks := w.Stats().Looks; w.Stats().Looks < looks+uint64(len(followUps)); {
		time.Sleep(20 * time.Millisecond)
	}
	if got := w.Take(); len(got) != 0 {
		t.Fatalf("a cd into the folder the shell is in was reported: %+v", got)
	}
}

// An agent in front reads a prompt typed or sent to it, and its status
// changes next though nothing the watch fingerprints does: a shell asked
// for input reports its terminal's input; another shell does not.
func TestInputIsReportedWhereAsked(t *testing.T) {
	asked, ttyAsked := testutil.PlainShell(t, "")
	other, ttyOther := testutil.PlainShell(t, "")
	w := newWatcher(t, newKernel)
	w.Set([]Shell{{Key: "asked", PID: asked.Process.Pid, Input: true}, {Key: "other", PID: other.Process.Pid}})
	settled(t, w)
	if !w.InputWatched("asked") || w.InputWatched("other") {
		t.Fatalf("input watched: asked %v, other %v; want true, false", w.InputWatched("asked"), w.InputWatched("other"))
	}
	if _, err := io.WriteString(ttyOther, "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(ttyAsked, "x"); err != nil {
		t.Fatal(err)
	}
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
}
