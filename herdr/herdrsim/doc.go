// Package herdrsim simulates a herdr server: a real Unix socket speaking
// herdr's JSON API as the releases people run speak it (docs/herdr.md §1):
// 0.7.5 (protocol 17), 0.8.0 (19), 0.8.2 (20) and 0.9.x (22, the default),
// quirks included: one request per connection, read with herdr's 100 ms
// poll (§2); invalid_request with an empty id for bad lines (§3);
// positional tab labels that renumber silently (§6); up to 20, replayed
// 512-event backlogs drained one event per tick per subscription, and on
// 22 live subscriptions drained in bursts and ended by events_lost (§7);
// herdr's own title stripping per release (§8); and the event gaps of real
// herdr.
//
// Tests use it through herdrtest, which adds schema validation of every
// line and ties the server to a testing.TB. `herdrtabrenamer demo` embeds
// it directly; keeping the schema library out of this package keeps it out
// of the binary (its package init alone cost ~10 ms per `nudge`).
//
// The session is driven through the mutation API (NewWorkspace, Split,
// SetForeground, SetTitle, ...); faults are injected with InjectFault,
// SetLatency, Stop/Restart, DropSubscriptions and LoseEvents. Counters
// (Calls, Connections, ReadPolls, EmptyLooks, ReadTimeouts,
// DeliveryRounds(Of), EventsLost, OpenStreams, OpenConnections,
// Undelivered, EventsDelivered) let tests assert behaviour without timing
// it, and wait on what happened instead of sleeping:
// Undelivered() == 0 is "every subscriber has been sent its backlog", and
// EventsDelivered is how many event lines a client should have read then.
package herdrsim
