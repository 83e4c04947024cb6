//go:build !windows

package herdr

import (
	"context"
	"net"
)

// dialSocket connects to herdr's API socket: a Unix stream socket at the
// path itself (docs/herdr.md §2).
func dialSocket(ctx context.Context, path string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "unix", path)
}
