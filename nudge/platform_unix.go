//go:build unix

package nudge

// platformErr: Unix has datagram sockets, so nudges work.
func platformErr() error { return nil }
