// Package herdrsim simulates a herdr server: a real Unix socket speaking
// herdr's JSON API for protocols 17, 19 and 20, quirks included
// (PROTOCOL.md §12): one request per connection, invalid_request with an
// empty id for bad lines, positional tab labels that renumber silently,
// replayed 512-event backlogs drained one event per tick per subscription,
// and the event gaps of real herdr.
//
// Tests use it through herdrtest, which adds schema validation of every
// line and ties the server to a testing.TB. `herdrtabrenamer demo` embeds
// it directly; keeping the schema library out of this package keeps it out
// of the binary (its package init alone cost ~10 ms per `nudge`).
//
// The session is driven through the mutation API (NewWorkspace, Split,
// SetForeground, SetTitle, ...); faults are injected with InjectFault,
// SetLatency, Stop/Restart and DropSubscriptions.
package herdrsim
