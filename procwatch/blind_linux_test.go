package procwatch

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// reportBound is how long a change may take to be reported by looks
// alone once it is there to see: a quick look every blindEvery and a
// deep one every second make it a second at most on an idle machine; the
// bound is generous for a loaded one.
const reportBound = 5 * time.Second

// Without terminal events (inotify used up) and pidfds, the same changes
// are reported by looks alone, each within reportBound, and
// Blind says what is missing and which limit to raise.
func TestChangesAreReportedWithoutEvents(t *testing.T) {
	for _, k := range shellKinds {
		t.Run(k.name, func(t *testing.T) {
			w := startExitAndCd(t, k.name, eventless, func(what string, _ uint64, took time.Duration, w *Watcher) {
				t.Logf("%s: reported %v after the test saw it", what, took.Round(time.Millisecond))
				if took > reportBound {
					t.Errorf("%s: reported %v after the test saw it, over %v", what, took, reportBound)
				}
			})
			if e := w.Stats().Events; e != 0 {
				t.Fatalf("%d events from a kernel that has none", e)
			}
			var be *BlindError
			if err := w.Blind(); !errors.As(err, &be) || be.Missing != "no inotify instance" || be.Polled != 1 || be.Shells != 1 ||
				!strings.Contains(err.Error(), "raise fs.inotify.max_user_instances") || !errors.Is(err, unix.EMFILE) {
				t.Fatalf("Blind = %v, want no inotify instance for 1 of 1 shells, raise fs.inotify.max_user_instances", err)
			}
		})
	}
}

// A blind watch's cost is bounded: the watcher wakes about 1/blindEvery
// times a second for all its shells together, and looks at each shell as
// often, one look a second of them deep, whatever the number of shells.
func TestBlindLooksAreBounded(t *testing.T) {
	const shells = 4
	w := newWatcher(t, eventless)
	var set []Shell
	var keys []string
	for i := range shells {
		tm := startTerm(t, "bash", "")
		if i%2 == 1 {
			tm.run("sleep 300\n", leading("sleep"))
		}
		key := fmt.Sprintf("p%d", i)
		set, keys = append(set, Shell{Key: key, PID: tm.pid()}), append(keys, key)
	}
	w.Set(set)
	settled(t, w, keys...)
	before, start := w.Stats(), time.Now()
	time.Sleep(3 * time.Second) // the window measured, not a wait for a state
	after, secs := w.Stats(), time.Since(start).Seconds()
	perSecond := float64(time.Second / blindEvery)
	looks := float64(after.Looks-before.Looks) / shells / secs
	deep := float64(after.Deep-before.Deep) / shells / secs
	wakes := float64(after.Wakes-before.Wakes) / secs
	t.Logf("per shell and second: %.1f looks, %.1f deep; %.1f wake-ups a second", looks, deep, wakes)
	if looks > perSecond+1 || deep > 2 || wakes > perSecond+2 {
		t.Errorf("per shell and second %.1f looks (bound %.0f), %.1f deep (bound 2); %.1f wake-ups a second (bound %.0f)",
			looks, perSecond+1, deep, wakes, perSecond+2)
	}
	if got := w.Take(); len(got) != 0 {
		t.Errorf("idle shells reported: %+v", got)
	}
}

// Inotify instances or watches that run out (EMFILE, ENOSPC: the user's
// taken by editors) leave the shells they miss to looks, Blind names the
// limit to raise, and once it is raised the watcher takes the watches up.
func TestBlindUntilLimitsAreRaised(t *testing.T) {
	tests := []struct {
		name               string
		instances, watches int
		missing, fix       string
		polled             int
	}{
		{"no instance", 0, 10, "no inotify instance", "2 of 2 shells watched by polling; raise fs.inotify.max_user_instances", 2},
		{"one watch", 1, 1, "no inotify watch left", "1 of 2 shells watched by polling; raise fs.inotify.max_user_watches", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lim := &limits{instances: tt.instances, watches: tt.watches}
			w, err := newWith(kernelWith(lim.sys()), 20*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = w.Close() })
			a, b := startTerm(t, "bash", ""), startTerm(t, "bash", "")
			w.Set([]Shell{{Key: "a", PID: a.pid(), Input: true}, {Key: "b", PID: b.pid(), Input: true}})
			settled(t, w, "a", "b")
			var be *BlindError
			if err := w.Blind(); !errors.As(err, &be) || be.Missing != tt.missing || be.Polled != tt.polled || be.Shells != 2 ||
				!strings.Contains(err.Error(), tt.fix) {
				t.Fatalf("Blind = %v, want %s: %s", err, tt.missing, tt.fix)
			}
			if watched := btoi(w.InputWatched("a")) + btoi(w.InputWatched("b")); watched != 2-tt.polled {
				t.Fatalf("%d shells' input watched, want %d", watched, 2-tt.polled)
			}
			drain(w)
			lim.raise(1, 10)
			testutil.WaitFor(t, "the watches taken up again", func() bool {
				return w.Blind() == nil && w.InputWatched("a") && w.InputWatched("b")
			}, func() string { return fmt.Sprintf("Blind = %v", w.Blind()) })
			// Whoever shows the blindness (status, the status poll's
			// plan) learns that it ended without asking again.
			select {
			case <-w.Changed():
			case <-time.After(5 * time.Second):
				t.Fatal("no Changed after the watch's blindness ended")
			}
		})
	}
}

// drain takes what Changed has signalled so far.
func drain(w *Watcher) {
	select {
	case <-w.Changed():
	default:
	}
	w.Take()
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// BenchmarkBlind is what a watcher costs, in CPU time per watched shell
// and second and in share of one core for 20 shells, with the kernel's
// events (inotify, pidfds) and without them (blind: every shell found out
// by quick looks), half the shells at their prompt and half with a
// program in front. The watcher runs in a process of its own, as in the
// daemon, which measures itself over benchWindow: this process drains 20
// terminals.
//
//	go test -run '^$' -bench Blind -benchtime 1x ./procwatch/
func BenchmarkBlind(b *testing.B) {
	const shells = 20
	var pids []string
	for i := range shells {
		tm := startTerm(b, "bash", "")
		if i%2 == 1 {
			tm.run("sleep 600\n", leading("sleep"))
		}
		pids = append(pids, strconv.Itoa(tm.pid()))
	}
	for _, mode := range []string{"idle", "events", "blind"} {
		b.Run(mode, func(b *testing.B) {
			var cpu, wall time.Duration
			var stats Stats
			for b.Loop() {
				c, w, s := watchInChild(b, mode, pids)
				cpu, wall, stats = cpu+c, wall+w, Stats{Looks: stats.Looks + s.Looks, Wakes: stats.Wakes + s.Wakes}
			}
			b.ReportMetric(float64(cpu.Microseconds())/shells/wall.Seconds(), "cpu-µs/shell/s")
			b.ReportMetric(100*cpu.Seconds()/wall.Seconds(), "%core/20-shells")
			b.ReportMetric(float64(stats.Looks)/shells/wall.Seconds(), "looks/shell/s")
			b.ReportMetric(float64(stats.Wakes)/wall.Seconds(), "wakes/s")
		})
	}
}

// benchWindow is how long the child watcher measures itself, once its
// first looks are over.
const benchWindow = 5 * time.Second

// watchInChild runs this test binary as a watcher of pids (mode: idle, a
// process that watches nothing; events, the kernel's; blind, none) and
// returns the CPU time it used over its window, the window, and its
// stats.
func watchInChild(b *testing.B, mode string, pids []string) (time.Duration, time.Duration, Stats) {
	cmd := exec.Command(os.Args[0], "-test.run", "^TestWatchChild$")
	cmd.Env = append(os.Environ(), "PROCWATCH_CHILD="+mode, "PROCWATCH_PIDS="+strings.Join(pids, ","))
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("child watcher: %v: %s", err, out)
	}
	var cpu, wall time.Duration
	var s Stats
	if _, err := fmt.Sscanf(string(out), "cpu %d wall %d looks %d wakes %d", &cpu, &wall, &s.Looks, &s.Wakes); err != nil {
		b.Fatalf("child watcher said %q: %v", out, err)
	}
	return cpu, wall, s
}

// TestWatchChild is BenchmarkBlind's child watcher; it does nothing
// unless the benchmark runs it.
func TestWatchChild(t *testing.T) {
	mode := os.Getenv("PROCWATCH_CHILD")
	if mode == "" {
		t.Skip("run by BenchmarkBlind")
	}
	var set []Shell
	for i, p := range strings.Split(os.Getenv("PROCWATCH_PIDS"), ",") {
		pid, err := strconv.Atoi(p)
		if err != nil {
			t.Fatal(err)
		}
		set = append(set, Shell{Key: fmt.Sprintf("p%d", i), PID: pid})
	}
	var w *Watcher
	if mode != "idle" {
		k := map[string]func() (kernel, error){"events": newKernel, "blind": eventless}[mode]
		w = newWatcher(t, k)
		w.Set(set)
	}
	time.Sleep(2 * time.Second) // past the first looks, into the steady state
	var before Stats
	if w != nil {
		before = w.Stats()
	}
	cpu0, wall0 := cpuTime(t), time.Now()
	time.Sleep(benchWindow)
	cpu, wall := cpuTime(t)-cpu0, time.Since(wall0)
	var after Stats
	if w != nil {
		after = w.Stats()
	}
	fmt.Printf("cpu %d wall %d looks %d wakes %d\n", cpu, wall, after.Looks-before.Looks, after.Wakes-before.Wakes)
}

// cpuTime is the CPU time this process has used, user and system.
func cpuTime(t testing.TB) time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
