package resident

import (
	"runtime"
	"runtime/debug"
	"time"
)

// HandBack returns the heap's free pages to the kernel and unmaps the
// program's read-only file pages; the pages in use come back on their
// next touch. It costs one collection and, on Linux, a read of
// /proc/self/smaps and one madvise per mapping.
func HandBack() {
	debug.FreeOSMemory()
	dropFilePages()
}

// Settled hands back now, and once more after again: a process that is
// past its start-up when it calls this, but whose first minute still
// differs from the rest of its life (a replay to read, caches to fill),
// rests on the second one.
func Settled(again time.Duration) {
	HandBack()
	time.AfterFunc(again, HandBack)
}

// init turns the runtime's heap profiling off, as early as a package can:
// the daemon never writes a heap profile, and each sample would record a
// stack (its frames' tables paged in) in buckets of a 1.4 MB table that
// stays mapped. `go test -memprofile` sets its own rate after init.
func init() { runtime.MemProfileRate = 0 }
