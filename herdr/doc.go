// Package herdr talks to a herdr server over its JSON socket API: one
// request per connection, typed errors, and an event stream. Because herdr
// reads a new connection's request up to 100 ms late, reads that come late
// are sent again on a second connection (hedge.go), and while renames are
// expected the client holds idle connections open to send them on
// (pool.go). It knows nothing about naming tabs. docs/herdr.md in this
// repository describes every herdr behaviour handled here, with the herdr
// source it comes from; comments cite it as docs/herdr.md §N.
package herdr
