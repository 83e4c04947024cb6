package daemon

import "time"

// The daemon's timings, together, because they hang on each other and on
// two numbers of herdr's (docs/herdr.md §2, §7): herdr looks for a
// request line every 100 ms (its read poll), and each event subscription
// entry sends at most one event per 100 ms tick. A timing that changes
// here may need its neighbours to move with it.

// herdrTick is herdr's read poll and event tick, which most timings below
// are counted in.
const herdrTick = 100 * time.Millisecond

// The event stream.
const (
	// ReplayWindow bounds a 0.7/0.8 subscription's replay: herdr's ring
	// holds 512 events and an entry sends one per tick. A rename sent
	// while its entry still replays waits up to this long (plus
	// inflightTTL) for the replay to end and its fate to be known. 0.9
	// (protocol 22) does not replay.
	ReplayWindow = 512*herdrTick + time.Second
	// replayQuiet is how long an entry of a 0.7/0.8 subscription must send
	// nothing for its replay to count as over: ten ticks without one,
	// where a replay sends one every tick.
	replayQuiet = 10 * herdrTick
	// inflightTTL bounds how long a rename on a live stream waits for its
	// echo (a lost event, a cut stream). A burst of our own renames on a
	// 0.8 stream is paced at one echo per tick, so this covers about a
	// hundred renames queued ahead of it.
	inflightTTL = 100 * herdrTick
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
	// backoffMin and backoffMax bound the jittered wait between attempts
	// to (re)subscribe: the first retry is about one tick away, and a
	// server that is gone is asked every few seconds.
	backoffMin = herdrTick
	backoffMax = 5 * time.Second
	// healthyStream is how long a subscription must last before its end
	// counts as a normal disconnect rather than a server refusing us.
	healthyStream = 2 * backoffMax
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
	// preexecWindow is how long a preexec nudge's watcher waits for the
	// program to start, looking every preexecInterval.
	preexecWindow   = time.Second
	preexecInterval = 10 * time.Millisecond
	// forkExecWindow is how long a group of its own that a shell leads may
	// still be the pane shell's fork before it execs the program typed:
	// well under a millisecond on an idle machine, hundreds on a loaded
	// one. Within it the group is watched, and looked at again, as no
	// program yet.
	forkExecWindow = preexecWindow
	// titleWindow is how long a title change at the prompt is watched for a
	// program to start: the shell sets the title just before it forks.
	titleWindow = 300 * time.Millisecond
	// snapshotGrace is how long a preexec pass waits for the snapshot
	// taken ahead once the program is there: about one read poll and a
	// half.
	snapshotGrace = 150 * time.Millisecond
	// defaultGatherBudget bounds the time a pass spends asking for
	// programs; what is left is asked by the next passes, the most needed
	// first.
	defaultGatherBudget = 2 * time.Second
	// renameMargin is the time before the pass's deadline after which no
	// new rename starts: one re-read and rename, herdr's read poll
	// included, with room to spare.
	renameMargin = 3 * herdrTick
	// existsTimeout bounds the one small request that checks whether a tab
	// or pane an event says was created is there.
	existsTimeout = 5 * herdrTick
)

// The herdr plugin that started the daemon.
const (
	// pluginCheckEvery is how often a tied daemon looks at the socket and
	// registry files: two stats, no connection to herdr.
	pluginCheckEvery = time.Second
	// pluginOrphanAfter is how long herdr's socket may be missing before
	// a tied daemon ends: longer than a live handoff or a quick restart
	// (whose startup hook finds this daemon still running and leaves it).
	pluginOrphanAfter = 5 * time.Second
	// pluginListEvery spaces plugin.list calls when the registry file is
	// unknown.
	pluginListEvery = time.Minute
)
