//go:build windows

package herdr

import (
	"context"
	"fmt"
	"net"

	"github.com/Microsoft/go-winio"
)

// dialSocket connects to herdr's API endpoint on Windows: a named pipe
// whose name is derived from the socket path, while the path itself only
// holds a marker file (docs/herdr.md §2). A missing pipe fails with
// ERROR_FILE_NOT_FOUND, which is syscall.ENOENT on Windows, so connect
// reports it as "no herdr server" like a missing Unix socket.
func dialSocket(ctx context.Context, path string) (net.Conn, error) {
	name := PipeName(path)
	conn, err := winio.DialPipeContext(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("named pipe %s: %w", name, err)
	}
	return conn, nil
}
