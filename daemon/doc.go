// Package daemon is herdrtabrenamer's coordinator: it merges the triggers
// (herdr's events, the polls, nudges from shell hooks and the plugin, the
// kernel's word on local shells and on herdr's clients), decides when a
// pass runs (schedule), and runs passes. The rooms it coordinates own the
// rest: event triage and the view of the session (triage), one pass from
// a snapshot to a plan (pass), every rename of ours (renamer), whose a
// label is (owner), the local shells (localwatch), the claim on a herdr
// server (claim), the memory (state), the plugin tie (plugintie), where
// its files go (rundir).
//
// # One event, from herdr to a rename
//
// Each step is one call, on the loop goroutine, and each room hands back
// what happened; nothing calls back into the daemon.
//
//	herdr.Feed ──item──> loop.step (loop.go) ──> loop.item, loop.event (triggers.go)
//	  1. renamer.Take: the event may be the echo of a rename of ours
//	  2. triage.Judge: news? (old news costs nothing); triage.Learn
//	  3. schedule.edge: at once (the edge), or at the window's end
//	  4. loop.run ──> Daemon.pass (passes.go):
//	       renamer.Expire, RetryPutBacks   renames watched long enough end
//	       herdr: session.snapshot         one connection
//	       claim.Check (once per stream)   the server behind the socket
//	       view.Set; planner.Plan          plan, gather, decide, judge
//	                                       (owner rules whose each label is)
//	       renamer.Send                    record, re-read, request, settle
//	       view.Shows(renamer.Showing)     what the renames left showing
//	  5. back in loop.run: the watch's shells (localwatch), the seen
//	     watch, the polls' plan (schedule)
//
// The other triggers join at step 3 or 4: a nudge and a local watch's
// report through the nudge gap (schedule.nudged), a preexec nudge after
// its wait for the program (preexec.go), a poll, --settle's timer, a
// reload, a session's new title. A put-back (renamer) reports on its own
// channel; its end may ask for a pass. A stopping daemon waits for its
// renames' echoes (renamer.Await). Restore and lock are the rooms restore
// and mark, which use the same renamer.
//
// # Words
//
//   - pass: one read of the session and what follows from it: a plan, its
//     renames sent. A full pass looks at every tab; a nudge pass asks
//     herdr about the nudged panes' programs.
//   - news: an event that may change a name the last snapshot would give;
//     old news (a replayed event, the echo of our rename, a metadata
//     spinner) costs nothing (package triage).
//   - edge: the first news after a quiet spell runs a pass at once; news
//     inside the debounce window that follows waits for its end.
//   - schedule: when passes run: the edge, the nudge gap, preexec
//     read-aheads, --settle's pass and the polls' plan; a value with no
//     clock or timer of its own (schedule.go).
//   - young snapshot: one under youngSnapshot old, which stands in for the
//     re-read before a tab's rename while the stream watches for the echo.
//   - replay: what a 0.7/0.8 subscription sends first, the ring of up to
//     512 old events; live: an entry past it (0.9 never replays).
//   - flight, echo, landing, put back, give back, held: the renamer's (see
//     its package doc).
//   - fate, verdict: whose a label is and what becomes of it (package
//     owner).
//   - preexec wait: after a preexec nudge, looks at the pane until its
//     program appears (or a title set at the prompt starts none).
//   - local watch: the kernel's watch of local shells, and the registry
//     of the shells each pass found local (package localwatch).
//   - seen watch: while an agent is done in the focused tab, the kernel's
//     watch of the terminals of herdr's clients here, whose input may be
//     the person's return that herdr turns done into idle for, telling
//     no one (seen.go; the status poll stands in where it cannot run).
//   - herdr's session: herdr's workspaces, tabs and panes, read as a
//     snapshot; an agent session is an agent's own conversation, whose
//     title {session} shows (facts/session).
//   - settle: --settle, how long a new program runs before it names its
//     tab.
//   - health: what the running daemon cannot do, recorded for status.
//
// # Who owns what
//
// The goroutine running Run (the loop) owns the Daemon's fields and the
// loop's: the options, the view of the session, the planner, the
// renamer, the shells, the schedule and its timers. Passes run on it.
// Other goroutines touch only what is theirs or safe to share:
//
//   - the feed (herdr.Feed) reads the stream and hands its items to the
//     loop through one channel, in order;
//   - a pass's rename workers and the put-backs the renamer starts share
//     only the memory (safe for concurrent use) and herdr, and hand back
//     what they did (see package renamer);
//   - a look whether a created tab or pane is there (lookFor) and a tied
//     daemon's plugin.list (pluginGone) only ask herdr, and answer
//     through the loop's channels;
//   - preexec waits read only what the loop gave them (arm, and the probe
//     foregroundProbe captured);
//   - the health record is written from whichever goroutine found out,
//     under its own lock;
//   - the nudge listener, the local watch, the seen watch and the agents'
//     sessions (facts/session) signal through channels and guard their
//     own fields.
//
// The timings that tie these together are in timing.go; the traced
// moments tests wait on, in trace.go.
package daemon
