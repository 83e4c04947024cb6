package procwatch

import (
	"io"
	"os/exec"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// waitInput waits for a report on pid that ok accepts.
func waitInput(t *testing.T, w *InputWatch, what string, ok func(InputReport) bool) {
	t.Helper()
	deadline := time.After(waitTimeout)
	for {
		select {
		case <-w.Changed():
			for _, r := range w.Take() {
				if ok(r) {
					return
				}
			}
		case <-deadline:
			t.Fatalf("no report of %s within %v", what, waitTimeout)
		}
	}
}

// An input watch reports a process's reads of its terminal, and its end;
// it refuses a process with no terminal, and says nothing of one it no
// longer watches.
func TestInputWatch(t *testing.T) {
	w, err := NewInputWatch()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cmd, tty := testutil.PlainShell(t, "")
	pid := cmd.Process.Pid
	if err := w.Watch(pid); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(tty, "x"); err != nil {
		t.Fatal(err)
	}
	waitInput(t, w, "input", func(r InputReport) bool { return r.PID == pid && r.Input && !r.Gone })

	w.Unwatch(pid)
	if _, err := io.WriteString(tty, "y"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if reps := w.Take(); len(reps) > 0 {
		t.Fatalf("reports after Unwatch: %+v", reps)
	}

	if err := w.Watch(pid); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Process.Kill()
	waitInput(t, w, "the end", func(r InputReport) bool { return r.PID == pid && r.Gone })

	bare := exec.Command("sleep", "30")
	if err := bare.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = bare.Process.Kill(); _ = bare.Wait() })
	if err := w.Watch(bare.Process.Pid); err == nil {
		t.Fatal("Watch of a process with no terminal: no error")
	}
}
