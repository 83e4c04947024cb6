package procwatch

import (
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// Timings of the looks. A deep look reads all a Front holds (command
// lines, directories); a quick one only the terminal's group and the
// command names in front (one pread each), and goes deep when they moved.
const (
	// slowEvery is how often a shell is looked at deeply anyway: what no
	// event precedes (Ctrl-Z, the tail of a pipeline ending, a program's
	// own chdir) waits at most this long. Slow looks fall on whole
	// seconds, so that one wake-up serves every shell.
	slowEvery = time.Second
	// blindEvery is how often a shell is looked at quickly while some
	// change of its program would come with no event (no terminal input
	// to watch, no exit to wait for). These looks fall on multiples of
	// it, so the watcher wakes 1/blindEvery times a second for all such
	// shells together.
	blindEvery = 500 * time.Millisecond
	// cdEvery is how often a shell at its prompt is looked at deeply
	// where no event comes before a cd (macOS, where a cd forks nothing
	// and terminal input is told to no one).
	cdEvery = 250 * time.Millisecond
	// retryEvery is how often events that the kernel refused for want of
	// a resource (inotify instances or watches) are asked for again.
	retryEvery = 10 * time.Second
)

// followUps are the deep looks after an event, from the event: a program
// starts (fork, then exec) within a few ms of the Enter that asks for it
// on an idle machine and within hundreds on a loaded one; a shell takes
// its terminal back a moment after its program exits.
var followUps = []time.Duration{0, 5 * time.Millisecond, 15 * time.Millisecond, 40 * time.Millisecond,
	100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond}

// minGap spaces a shell's looks however fast its events come (a paste
// read from its terminal a byte at a time): at most 200 looks a second.
const minGap = 5 * time.Millisecond

// inputGap spaces a shell's input reports: a person types several keys
// a second, and one report per burst is what the reader needs.
const inputGap = 100 * time.Millisecond

// shell is one watched shell: its last look, its events, and when it is
// looked at next.
type shell struct {
	key    string
	pid    int
	reader *procinfo.FrontReader
	front  procinfo.Front
	// shellEvents: events come before a program starts in it (Linux:
	// input from its terminal; macOS: its forks); watchErr says why
	// not. ttyEvents: they are input read from its terminal, which comes
	// before a cd too (set by the kernel).
	shellEvents, ttyEvents bool
	watchErr               error
	// exitEvents: the processes in front (exits) announce their exit;
	// exitErr is the kernel's lack that keeps them from it.
	exitEvents bool
	exits      []int
	exitErr    error
	// input: report terminal input (Shell.Input); inputAt: the last
	// such report.
	input   bool
	inputAt time.Time
	// output: report writes to the terminal (Shell.Output), spaced by
	// outputGap from the last report at outputAt; outputOwed: a write
	// since, the first at writtenAt, is not reported yet (output.go).
	output              bool
	outputAt, writtenAt time.Time
	outputGap           time.Duration
	outputOwed          bool
	gone                bool
	// lookedAt is the last look, deepAt the last deep one; retryAt is
	// when refused events are asked for again.
	lookedAt, deepAt, retryAt time.Time
	// A run of deep looks: started at runAt, next is followUps[run].
	runAt time.Time
	run   int
	// os is the kernel's own state of the shell (its watches).
	os any
}

// atPrompt says whether the shell itself leads its terminal's group.
func (sh *shell) atPrompt() bool { return sh.front.PGID == sh.pid }

// blind says whether some change of the shell's program would come with
// no event: it is looked at quickly every blindEvery.
func (sh *shell) blind() bool {
	return !sh.shellEvents || !sh.atPrompt() && !sh.exitEvents
}

// trigger starts a run of deep looks now.
func (sh *shell) trigger(now time.Time) { sh.runAt, sh.run = now, 0 }

// running says whether a run of deep looks is under way.
func (sh *shell) running() bool { return !sh.runAt.IsZero() && sh.run < len(followUps) }

// looked moves the shell's schedule past a look at now.
func (sh *shell) looked(now time.Time, deep bool) {
	sh.lookedAt = now
	if deep {
		sh.deepAt = now
	}
	for sh.running() && !sh.runAt.Add(followUps[sh.run]).After(now) {
		sh.run++
	}
	if !sh.running() {
		sh.runAt = time.Time{}
	}
}

// deepDue is when the shell is looked at deeply next, run aside.
func (sh *shell) deepDue() time.Time {
	every := slowEvery
	if sh.atPrompt() && sh.shellEvents && !sh.ttyEvents {
		every = cdEvery
	}
	return aligned(sh.deepAt, every)
}

// deepNow says whether a look at now is a deep one.
func (sh *shell) deepNow(now time.Time) bool {
	return !now.Before(sh.deepDue()) || sh.running() && !now.Before(sh.runAt.Add(followUps[sh.run]))
}

// due is when the shell is looked at next.
func (sh *shell) due() time.Time {
	if sh.gone {
		return time.Now().Add(time.Hour)
	}
	next := sh.deepDue()
	if sh.blind() {
		next = earlier(next, aligned(sh.lookedAt, blindEvery))
	}
	if sh.running() {
		next = earlier(next, sh.runAt.Add(followUps[sh.run]))
	}
	return later(next, sh.lookedAt.Add(minGap))
}

// aligned is the first multiple of every after t: shells looked at on the
// same cadence share the watcher's wake-ups.
func aligned(t time.Time, every time.Duration) time.Time {
	return t.Truncate(every).Add(every)
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func earlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
