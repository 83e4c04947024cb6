// Package herdr talks to a herdr server over its JSON socket API: one
// request per connection, typed errors, and an event stream. It knows
// nothing about naming tabs. docs/herdr.md in this repository describes
// every herdr behaviour handled here, with the herdr source it comes from;
// comments cite it as docs/herdr.md §N.
package herdr
