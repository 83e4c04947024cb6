//go:build windows

package nudge

import (
	"errors"
	"fmt"
)

// Available is nil where nudges work, else it says why not. Windows'
// AF_UNIX sockets are stream-only, and a nudge must be one datagram nobody
// waits on. The daemon renames from herdr's events and its poll there, and
// `init` offers no shell hooks (docs/service.md, "Platforms").
func Available() error {
	return fmt.Errorf("nudges need Unix datagram sockets, which Windows lacks: %w", errors.ErrUnsupported)
}

// Send stops at Available on Windows; these keep it building.
func isRefused(error) bool            { return false }
func senderCheck(dir string) error    { return Available() }
func writeOnce(uintptr, []byte) error { return Available() }
func wouldBlock(error) bool           { return false }
