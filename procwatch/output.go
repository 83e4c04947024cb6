package procwatch

import "time"

// A shell's output, on request (Shell.Output): the moments programs in it
// wrote to its terminal (Linux: inotify IN_MODIFY on the terminal), which
// is where a new terminal title comes from. They start no look: a program
// printing is no change of program. A write is reported outputSettle
// after it, time for whoever reads the terminal (herdr, which takes the
// title from what it reads) to have read it; the first write after a
// quiet spell so (a title a quiet program just set), and a shell that
// keeps writing ever less often, its gap doubling up to outputGapMax,
// with its last write reported in the end.
const (
	outputSettle = 150 * time.Millisecond
	outputGapMin = 250 * time.Millisecond
	outputGapMax = 8 * time.Second
)

// wrote takes a write to the shell's terminal at now: owed, reported
// once due (outputDue).
func (sh *shell) wrote(now time.Time) {
	if !sh.output || sh.outputOwed {
		return
	}
	if sh.outputGap == 0 || now.Sub(sh.outputAt) >= 2*sh.outputGap {
		sh.outputGap = outputGapMin // a quiet spell: the next write is news soon
	}
	sh.outputOwed, sh.writtenAt = true, now
}

// reported notes an output report at now, and spaces the next one the
// more, the sooner it comes.
func (sh *shell) reported(now time.Time) {
	if !sh.outputAt.IsZero() && now.Sub(sh.outputAt) < 2*sh.outputGap {
		sh.outputGap = min(2*sh.outputGap, outputGapMax)
	}
	sh.outputAt, sh.outputOwed = now, false
}

// outputDue is when the shell's owed output report is due; the far future
// when none is owed.
func (sh *shell) outputDue(now time.Time) time.Time {
	if !sh.outputOwed || sh.gone {
		return now.Add(time.Hour)
	}
	return later(sh.writtenAt.Add(outputSettle), sh.outputAt.Add(sh.outputGap))
}

// owed reports the shell's owed output when it is due at now.
func (w *Watcher) owed(sh *shell, now time.Time) {
	if sh.outputOwed && !sh.outputDue(now).After(now) {
		sh.reported(now)
		w.report(Report{Key: sh.key, Output: true, Front: sh.front})
	}
}

// rearm asks the kernel for the shell's terminal events again, with its
// writes (output) or without.
func (w *Watcher) rearm(sh *shell, output bool) {
	sh.output, sh.outputOwed = output, false
	if !sh.shellEvents {
		return // none to begin with: the retries ask with the new wish
	}
	w.k.unwatchShell(sh)
	sh.watchErr = w.k.watchShell(sh)
	sh.shellEvents = sh.watchErr == nil
}
