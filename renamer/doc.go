// Package renamer sends every rename of ours (our names on tabs and
// workspaces, a person's label with its position in front, and labels
// given back: a locked tab's, a person's set inside our rename, herdr's
// number on restore) with one protocol:
//
//	record   what deciding each rename's fate needs goes into the memory
//	         (package state), in one write before any request: a rename
//	         herdr applies but whose reply is lost still reads as ours
//	         later, and a daemon killed meanwhile leaves its flight to the
//	         next
//	re-read  the target right before its request: a person's rename or a
//	         lock since the pass's snapshot wins
//	request  the rename, from several workers at once
//	settle   what came of each into the memory, in one write, and the
//	         rename followed to its echo
//
// herdr has no conditional rename: between the last look at a target and
// our rename landing, a person's rename can land and be overwritten. herdr
// applies renames in order and reports each on the event stream in that
// order, so the label reported right before the echo of ours is the one
// ours replaced. When that is neither what our look saw nor one of ours,
// a person set it inside the window: it goes back (a put-back, itself a
// rename of ours with a flight of its own).
//
// Whether the label a re-read finds may be replaced, and whether a
// person's label or a lock's may go back over what a target shows, is
// package owner's rule: the renamer asks it with the memory as it is
// right then (Rename.Case, Rename.Over). It talks to herdr and to the
// memory through two small interfaces (Herdr, Memory).
//
// Panes (their labels, pane.rename) go through the same protocol, less
// what needs an echo: herdr tells of no pane rename (docs/herdr.md §13),
// so a pane's re-read always happens, its flight ends with herdr's
// answer, and a label of ours that may still land reads as ours by its
// pending label alone. A person's rename landing between that re-read and
// ours is the one case no one can tell, for want of an echo.
//
// # Words
//
//   - flight: a rename of ours whose fate is not known yet, from its
//     record to its echo (or the end of its watch, flightTTL).
//   - echo: the rename event herdr sends for a rename of ours.
//   - landing: a label we asked for that may still land (state.Pending).
//   - put back: give a target back the label a person set inside our
//     rename, or the label a lock kept.
//   - give back: a rename to a label that is not ours (restore's number,
//     a put-back).
//   - held: a rename of ours not sent because a put-back is on its way to
//     its target; the put-back's end asks the owner for a pass.
//   - live: a subscription entry past its 0.7/0.8 replay; its events
//     happen now.
//
// # Who calls what
//
// A Renamer belongs to one goroutine, its owner (the daemon's loop, or a
// command): Send, Echo, ReplayOver, PutBackDone, Expire, Adopt, Awaiting and Await
// run there, and only there are flights read or changed. Send's workers
// and the put-backs the owner starts off its goroutine (Options.Spawn)
// touch only the memory (safe for concurrent use) and herdr, and hand
// what they did back to the owner: Send waits for its workers, a put-back
// reports on PutBacks. Send and PutBackDone hand back what they did
// (each Rename's outcome, Showing: what its target shows now) for the
// owner to take into its own view; Options.Hooks, which only report how
// the work goes, run on the goroutine that found out.
package renamer
