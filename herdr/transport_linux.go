package herdr

import (
	"errors"
	"runtime"
	"syscall"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/uring"
)

// errRingBroken matches a ring failure after which a request goes the
// plain way: nothing of it was sent.
var errRingBroken = uring.ErrBroken

// openRing opens the process's rings: as many as requests may run at
// once on this machine's cores, each a few pages.
func openRing() (ringSender, RequestPath) {
	pool, err := uring.NewPool(runtime.GOMAXPROCS(0))
	if err != nil {
		path := RequestPath{Why: "io_uring refused: " + err.Error()}
		var refused *uring.RefusedError
		switch {
		case errors.As(err, &refused) && refused.Missing != "":
			path.Why = "io_uring lacks " + refused.Missing
		case errors.As(err, &refused):
			path.Why = "io_uring refused: " + refused.Short()
			path.Errno = syscall.Errno(refused.Errno)
		}
		return nil, path
	}
	return pool, RequestPath{Ring: true}
}
