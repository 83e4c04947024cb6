// Package daemon is herdrtabrenamer's coordinator: it merges the triggers
// (herdr's events, a poll ticker, nudges from shell hooks and the plugin,
// the kernel's word on local shells and on herdr's clients), debounces
// them, and runs passes: a pass reads the session once, the planner
// (package pass) decides every tab's name, and the renamer (package
// renamer) sends the renames where a label differs and is not a person's. It also owns the nudge listener;
// the claim on a herdr server is package claim's, the memory package
// state's, where its files go package rundir's.
//
// # From a trigger to a rename
//
//	herdr.Feed: events, subscribed, replay over ──┐
//	  event ─ triage (events.go): news? ──────────┤
//	  created above every id: a look (lookFor) ───┤
//	nudge (shell hook, plugin) ───────────────────┤
//	preexec wait: a program appeared (preexec.go) ┼─> loop.step (loop.go)
//	local watch (procwatch) ──────────────────────┤      │ one at a time
//	seen watch: herdr's client read (seen.go) ────┤      │
//	polls: full, agent status, rest (polls.go) ───┤      v
//	reload, --settle, a session's title or switch ┘   Daemon.pass (passes.go):
//	                                                    snapshot, claim.Check
//	every rename event ─> renamer.Echo: put back        pass.Planner.Plan
//	replay over ───────> renamer.ReplayOver               (plan, gather,
//	SIGTERM ───────────> renamer.Await                     decide, judge)
//	restore, lock: the renamer, through commands        renamer.Send
//	                                                      (record, re-read,
//	                                                       request, conclude)
//
// Whether a label may be replaced, must go back, or stays is
// namer.Fate's answer alone: the planner's judge phase, the renamer's
// re-read and echoes, event triage, lock and restore all ask it.
//
// # Words
//
//   - pass: one read of the session and what follows from it: a plan, its
//     renames sent. A full pass looks at every tab; a nudge pass asks
//     herdr about the nudged panes' programs.
//   - news: an event that may change a name the last snapshot would give;
//     old news (a replayed event, the echo of our rename, a metadata
//     spinner) costs nothing.
//   - edge: the first news after a quiet spell runs a pass at once; news
//     inside the debounce window that follows waits for its end.
//   - young snapshot: one under youngSnapshot old, which stands in for the
//     re-read before a tab's rename while the stream watches for the echo.
//   - replay: what a 0.7/0.8 subscription sends first, the ring of up to
//     512 old events; live: an entry past it (0.9 never replays).
//   - flight, echo, landing, put back, give back: the renamer's (see its
//     package doc).
//   - preexec wait: after a preexec nudge, looks at the pane until its
//     program appears (or a title set at the prompt starts none).
//   - local watch: the kernel's watch of local shells (procwatch).
//   - seen watch: while an agent is done in the focused tab, the kernel's
//     watch of the terminals of herdr's clients here, whose input may be
//     the person's return that herdr turns done into idle for, telling
//     no one (seen.go; the status poll stands in where it cannot run).
//   - herdr's session: herdr's workspaces, tabs and panes, read as a
//     snapshot; an agent session is an agent's own conversation, whose
//     title {session} shows (facts/session).
//   - settle: --settle, how long a new program runs before it names its
//     tab; the renamer's last step is "conclude".
//
// # Who owns what
//
// The goroutine running Run (the loop) owns the Daemon's fields and the
// loop's: the options, the view of the session (view.go), the planner,
// the renamer, the triggers' timers. Passes run on it. Other goroutines
// touch only what is theirs or safe to share:
//
//   - the feed (herdr.Feed) reads the stream and hands its items to the
//     loop through one channel, in order;
//   - a pass's rename workers and the put-backs the renamer starts share
//     only the memory (safe for concurrent use) and herdr, and hand back
//     what they did (see package renamer);
//   - a look whether a created tab or pane is there (lookFor) and a tied
//     daemon's plugin.list (askPluginList) only ask herdr, and answer
//     through the loop's channels;
//   - preexec waits read only what foregroundProbe captured for them on
//     the loop goroutine;
//   - the nudge listener, the local watch, the seen watch and the agents'
//     sessions (facts/session) signal through channels and guard their
//     own fields.
//
// The timings that tie these together are in timing.go; the traced
// moments tests wait on, in trace.go.
package daemon
