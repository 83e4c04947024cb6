// Package pass decides what a tab should be called: a value in (a
// snapshot of herdr's session, the memory, what the caller learnt), a
// plan out (a report per tab, the renames to send, what the memory
// learns). Its phases:
//
//	plan    a row per tab: its lead pane, and which facts its name needs
//	gather  the programs (herdr's pane.process_info, or this machine's
//	        /proc for a shell known to be local) and agent session titles
//	decide  each row's wanted name and its report (what explain shows)
//	judge   whose each label is (package owner), and so what to do: keep,
//	        rename, put back, prefix
//
// It sends nothing: the renamer sends the plan's renames and Conclude
// takes what they did into the reports. What outlives a pass, the cache
// of each pane's program (herdr's answers, checked against the kernel),
// is the Planner's own; which shells run on this machine it asks of a
// Local (package localwatch), and a plan hands back the shells it found
// local (Plan.Shells) rather than keeping a registry of them. One
// goroutine at a time calls a Planner; Plan's gather phase asks herdr
// from several goroutines of its own and waits for them.
package pass
