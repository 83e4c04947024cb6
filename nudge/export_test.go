package nudge

import "time"

// setFullQueueWait sets how long Send waits on a full queue, and returns
// the restore.
func setFullQueueWait(d time.Duration) func() {
	old := fullQueueWait
	fullQueueWait = d
	return func() { fullQueueWait = old }
}
