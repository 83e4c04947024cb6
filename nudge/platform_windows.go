//go:build windows

package nudge

import (
	"errors"
	"fmt"
)

// platformErr: Windows' AF_UNIX sockets are stream-only, and a nudge must
// be one datagram nobody waits on. The daemon renames from herdr's events
// and its poll there; no shell hooks are offered (README, "Platforms").
func platformErr() error {
	return fmt.Errorf("nudges need Unix datagram sockets, which Windows lacks: %w", errors.ErrUnsupported)
}
