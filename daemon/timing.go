package daemon

import (
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// The daemon's timings, together, because they hang on each other and on
// two numbers of herdr's (docs/herdr.md §2, §7): herdr looks for a
// request line every 100 ms (its read poll, herdr.Tick), and each event
// subscription entry sends at most one event per tick. The stream's own
// timings (replays, backoff) are herdr.Feed's; a rename's, the renamer's.

// The event stream.
const (
	// youngSnapshot is the age under which a pass's snapshot stands in for
	// the re-read before a rename, when its echo is watched: a person's
	// rename since shows on the stream before our echo anyway.
	youngSnapshot = 250 * time.Millisecond
	// firstSubscribeWait bounds how long the first pass waits for the
	// event stream. A rename sent before the stream is up cannot have a
	// person's rename inside it told from the stream (0.9 sends only what
	// happens after the subscribe), so the first pass waits for it, unless
	// herdr is too slow or down: then it runs anyway, to name tabs or
	// report the outage.
	firstSubscribeWait = time.Second
	// shutdownEchoWait bounds how long a stopping daemon waits for the
	// echoes of its renames still on their way, to put back a person's
	// rename inside one itself. What is still unknown then is left in the
	// state file for the next daemon.
	shutdownEchoWait = 2 * time.Second
)

// Passes.
const (
	// nudgeGap spaces the passes nudges cause (they skip the debounce), so
	// a flood of nudges costs at most 1/nudgeGap passes a second.
	nudgeGap = 20 * time.Millisecond
	// preexecWindow is how long a preexec nudge's wait looks for the
	// program to start, every preexecInterval.
	preexecWindow   = time.Second
	preexecInterval = 10 * time.Millisecond
	// titleWindow is how long a title change at the prompt is watched for a
	// program to start: the shell sets the title just before it forks.
	titleWindow = 300 * time.Millisecond
	// snapshotGrace is how long a preexec pass waits for the snapshot
	// taken ahead once the program is there: about one read poll and a
	// half.
	snapshotGrace = 150 * time.Millisecond
	// existsTimeout bounds the one small request that checks whether a tab
	// or pane an event says was created is there.
	existsTimeout = 5 * herdr.Tick
)

// The seen watch (seen.go).
const (
	// seenPoll is how often the status poll reads the session while an
	// agent is done in the focused tab and no terminal of herdr's clients
	// is watched: how long at most its icon stays done after the person
	// came back to it, at one snapshot every seenPoll for as long as it
	// sits there.
	seenPoll = 2 * time.Second
	// seenGap spaces the passes that clients' input runs, at first: each
	// input that leaves the agent done doubles the gap, up to seenGapMax,
	// so a person typing with no return herdr sees costs at most one pass
	// a second, and their return waits a second at most.
	seenGap    = 250 * time.Millisecond
	seenGapMax = time.Second
	// seenRechecks is how many more passes follow the first input, each
	// seenGap after the last, while the agent still shows done: herdr
	// takes the focus-in from its client and our snapshot request from
	// its socket on separate paths, and may answer the snapshot first.
	seenRechecks = 2
)
