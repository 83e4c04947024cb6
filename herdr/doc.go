// Package herdr talks to a herdr server over its JSON socket API: one
// request per connection, typed errors, and an event stream. It knows
// nothing about naming tabs. PROTOCOL.md in the shared herdr-api folder is
// the source for every quirk handled here.
package herdr
