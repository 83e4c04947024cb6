package daemon

import (
	"context"
	"sync"
	"time"
)

// putBacks runs the put-backs of names a person set inside our renames
// off the loop goroutine: the look at the target and the rename are
// socket calls, and the event triage must wait on none. What came of each
// comes back to the loop through results, which settles it.
type putBacks struct {
	done chan putBackDone
	stop chan struct{}
	wg   sync.WaitGroup
}

// putBackDone is a put-back sent, and the flight it was for.
type putBackDone struct {
	r *rename
	f *flight
}

func newPutBacks() *putBacks {
	return &putBacks{done: make(chan putBackDone, 16), stop: make(chan struct{})}
}

// start sends r for f on a goroutine of its own, bounded by timeout. It
// outlives a stopping daemon's context, as the rename must: end waits for
// it.
func (p *putBacks) start(d *Daemon, r *rename, f *flight, timeout time.Duration) {
	p.wg.Go(func() {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		rn := &renamer{d: d}
		r.out, _ = rn.one(ctx, r)
		select {
		case p.done <- putBackDone{r, f}:
		case <-p.stop:
		}
	})
}

// results is where finished put-backs arrive; none without a loop.
func (p *putBacks) results() <-chan putBackDone {
	if p == nil {
		return nil
	}
	return p.done
}

// end waits for the put-backs still on their way; what came of them is
// no longer settled (the daemon is stopping).
func (p *putBacks) end() {
	close(p.stop)
	p.wg.Wait()
}
