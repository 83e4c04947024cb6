// Package herdr talks to a herdr server over its JSON socket API: one
// request per connection, typed errors (herdr's codes with a meaning for
// a client have sentinels errors.Is matches: ErrNotFound and its kinds,
// ErrServerGoingAway, ErrUnsupported, ...), typed events (a kind and a
// payload each) and the event stream (Feed). herdr reads a new
// connection's request up to 100 ms late when the request line is not
// there at its first look, so on Linux every request goes out as one
// io_uring submission that connects and sends (transport.go, package
// uring); where io_uring is refused, requests take a plain connect and
// write, and reads that come late are sent again on a second connection
// (hedge.go). It knows nothing about naming tabs. docs/herdr.md in this
// repository describes every herdr behaviour handled here, with the herdr
// source it comes from; comments cite it as docs/herdr.md §N.
//
// # Who calls what
//
// A Client is safe for concurrent use; a Feed belongs to the goroutine
// that runs it and hands its items over one channel, in order.
// herdrsim, the simulator, and herdrtest, the simulator checked against
// herdr's schemas, are for tests, integration/ and the demo.
package herdr
