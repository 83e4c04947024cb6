//go:build unix

package nudge

// Available is nil where nudges work, else it says why not. Unix has
// datagram sockets.
func Available() error { return nil }
