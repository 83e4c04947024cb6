//go:build !linux

package claim

import "net"

// listenBeacon: abstract sockets are Linux only; elsewhere the lock file
// in the runtime dir is the whole claim.
func listenBeacon(string) (net.Listener, error) { return nil, nil }
