package claim

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A holder is the process that took the lock only if its pid's process
// started at the very moment the line records, not one started a tick
// later: the wall-clock time of a line is a second coarse.
func TestAliveComparesTheStartExactly(t *testing.T) {
	since := time.Now()
	startOf := func(start uint64, err error) func(int) (uint64, error) {
		return func(int) (uint64, error) { return start, err }
	}
	h := Holder{PID: 4242, Since: since, Start: 90_000}
	for _, c := range []struct {
		name  string
		start uint64
		err   error
		want  bool
	}{
		{"the process that took the lock", 90_000, nil, true},
		{"a process given the pid a tick later", 90_001, nil, false},
		{"a process given the pid half a second later", 90_050, nil, false},
		{"a process that started before", 89_000, nil, false},
		{"no process has the pid", 0, errors.New("no such process"), false},
	} {
		if got := h.alive(startOf(c.start, c.err)); got != c.want {
			t.Errorf("%s: alive = %v, want %v", c.name, got, c.want)
		}
	}
}

// A daemon's pid handed to another process at once, within the second
// after it took its lock, is no daemon; the line as the daemon wrote it
// is. A line from before starts were recorded is judged as it was: its
// holder believed while its pid's process started no later than a
// second after the line's time.
func TestRunningTellsAPidGivenAwayAtOnce(t *testing.T) {
	if _, err := processStart(os.Getpid()); err != nil {
		t.Skipf("no process start here: %v", err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "lock")
	in, err := AcquireInstance(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Release()
	line, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := Running(path); !ok {
		t.Fatalf("this process, which took the lock (%q): not running", line)
	}
	// An input, not a wait for readiness: the other process starts a few
	// of the kernel's clock ticks (10 ms on Linux) after this one took
	// the lock, as a pid can be given again no sooner.
	time.Sleep(50 * time.Millisecond)
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skipf("sleep: %v", err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	self, other := "pid "+strconv.Itoa(os.Getpid())+" ", "pid "+strconv.Itoa(cmd.Process.Pid)+" "
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	given := write("given", strings.Replace(string(line), self, other, 1))
	if _, ok := Running(given); ok {
		t.Errorf("the lock's line %q with its pid given to a process started since: taken for the daemon", line)
	}
	older := write("older", other+"since "+time.Now().Format(time.RFC3339Nano)+"\n")
	if _, ok := Running(older); !ok {
		t.Error("a line without a start, its pid's process started before its time: not believed")
	}
}
