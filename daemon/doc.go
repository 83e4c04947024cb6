// Package daemon is herdrtabrenamer's loop: triggers (herdr events, a poll
// ticker, nudges from shell hooks) coalesce into passes; a pass reads the
// session once, decides every tab's name with namer and procinfo, and
// renames where the label differs and is not a person's. It also owns the
// nudge listener and the single-instance claim on a herdr server. What it
// remembers lives in package state; where its files go, in package rundir.
//
// # From a trigger to a pass
//
//	herdr event ─ triage (events.go): news? ──────┐
//	  created above every id: look (lookFor) ─────┤
//	nudge (shell hook, plugin) ───────────────────┤
//	local watch (procwatch: a program started) ───┼─> loop.run (loop.go)
//	poll: full, agent status, rest (polls.go) ────┤      │ one at a time
//	reload (SIGHUP, config file) ─────────────────┤      v
//	(re)subscribe: the full pass ─────────────────┘   pass (pipeline.go):
//	                                                    read ─ snapshot, state
//	herdr event: a rename's echo                        plan ─ lead pane per tab
//	  └─> checkOverwrite (overwrite.go) ─ put back      gather ─ programs (programs.go)
//	SIGTERM: awaitEchoes (flights.go)                   decide ─ namer
//	restore, lock: GiveBack, PutBackLock                judge ─ namer.Fate per label
//	                                                    commit ─ the renamer (renamer.go):
//	                                                      tabs, prefixes, workspaces
//
// Whether a label may be replaced, must go back, or stays is namer.Fate's
// answer alone: the pass, the re-read before a rename, the event triage,
// the echo of a rename and lock all ask it. Every rename of ours (a tab's
// name, a person's prefix, a workspace's name, a label given back) goes
// through the renamer (renamer.go) with one protocol: its record saved
// in the state file first (records.go), a re-read, the request, and what
// came of it saved and followed (settle). Event triage only asks: it
// sends nothing and changes nothing; learnEvent takes the event in. The
// loop goroutine makes no socket call outside a pass: a look whether a
// created tab is there, a put-back and a tied daemon's plugin.list run
// off it and hand their answers back.
//
// # Who owns what
//
// The goroutine running Run (the loop) owns the Daemon's fields: its
// options, the state, the last snapshot (lastSnap), the history of what
// it has seen (seen), the program cache (progCache), the renames on their
// way (flights) and the dry run's printed decisions. Each of these is a
// type whose methods alone change it. A pass runs on the loop
// goroutine, in the phases of pipeline.go. Other goroutines touch only
// what is theirs or safe to share:
//
//   - a pass's rename workers (renamer) share the state and the last
//     snapshot under the renamer's own lock, while the loop waits for them;
//   - a look whether a created tab or pane is there (lookFor) and a tied
//     daemon's plugin.list (askPluginList) only ask herdr, and hand what
//     they found to the loop through its channels;
//   - a put-back of a name a person set inside our rename (putBacks)
//     looks and renames off the loop, and hands its rename back to the
//     loop, which settles it; a stopping daemon waits for it;
//   - the event watcher (watch.go, replay.go) keeps the stream's
//     generation and first time in atomics, and talks to the loop only
//     through its channels; the herdr client is safe for concurrent use;
//   - preexec watchers (awaitProgram) read only what foregroundProbe
//     captured for them on the loop goroutine;
//   - Sessions guards its own fields.
//
// The timings that tie these together are in timing.go; the traced
// moments tests wait on, in trace.go.
package daemon
