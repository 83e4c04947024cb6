// Package herdr talks to a herdr server over its JSON socket API: one
// request per connection, typed errors, and an event stream. herdr reads
// a new connection's request up to 100 ms late when the request line is
// not there at its first look, so on Linux every request goes out as one
// io_uring submission that connects and sends (transport.go, package
// uring); where io_uring is refused, requests take a plain connect and
// write, and reads that come late are sent again on a second connection
// (hedge.go). It knows nothing about naming tabs. docs/herdr.md in this
// repository describes every herdr behaviour handled here, with the herdr
// source it comes from; comments cite it as docs/herdr.md §N.
package herdr
