//go:build !linux

package herdr

import (
	"errors"
	"runtime"
)

// errRingBroken is never returned where there is no io_uring.
var errRingBroken = errors.New("no io_uring")

// openRing: io_uring is Linux's.
func openRing() (ringSender, RequestPath) {
	return nil, RequestPath{Why: "no io_uring on " + runtime.GOOS}
}
