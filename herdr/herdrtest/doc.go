// Package herdrtest is a fake herdr server for tests: a real Unix socket
// speaking herdr's JSON API for protocols 17, 19 and 20, quirks included
// (PROTOCOL.md §12): one request per connection, invalid_request with an
// empty id for bad lines, positional tab labels that renumber silently,
// replayed 512-event backlogs drained one event per tick per subscription,
// and the event gaps of real herdr. Every request received and every line
// sent is validated against the played protocol's JSON schema.
//
// Tests drive the session through the mutation API (NewWorkspace, Split,
// SetForeground, SetTitle, ...) and inject faults (InjectFault, SetLatency,
// Stop/Restart, DropSubscriptions). `herdrtabrenamer demo` embeds a Server
// through New, which needs no testing.TB.
package herdrtest
