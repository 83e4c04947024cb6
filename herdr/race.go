package herdr

import (
	"context"
	"sync"
	"time"
)

// Mechanism and policy. A late read can go out twice. How two sends race
// is the mechanism, here: raceTwo knows nothing of herdr. When a second
// send is due and whether the budget allows it is policy: the hedge
// (hedge.go), which learns from what happens to requests (outcome).

// raceResult says how a race of two sends ended.
type raceResult struct {
	secondSent bool // the second send was started
	secondWon  bool // the second send's answer was taken
}

// raceTwo starts first at once. When due delivers, it asks admit and, if
// admit agrees, starts second as well; a nil due never starts it. The
// first success wins: the other send's context is cancelled, and raceTwo
// returns only once both sends have returned, so the loser has cleaned up
// (closed its connection) by then. A first send that fails before the
// second starts ends the race, since the second is for lateness, not a
// retry. When both fail, the first's error is returned. Both sends run
// under ctx; due is read at most once.
func raceTwo[T any](ctx context.Context, first, second func(context.Context) (T, error), due <-chan time.Time, admit func() bool) (T, raceResult, error) {
	rctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait() // after cancel: deferred calls run last-in first-out
	defer cancel()
	type answer struct {
		v      T
		err    error
		second bool
	}
	answers := make(chan answer, 2)
	start := func(send func(context.Context) (T, error), second bool) {
		wg.Go(func() {
			v, err := send(rctx)
			answers <- answer{v, err, second}
		})
	}
	start(first, false)
	pending := 1
	var res raceResult
	var firstErr error
	for {
		select {
		case <-due:
			due = nil
			if admit() {
				start(second, true)
				pending++
				res.secondSent = true
			}
		case a := <-answers:
			pending--
			if a.err == nil {
				res.secondWon = a.second
				return a.v, res, nil
			}
			if firstErr == nil || !a.second {
				firstErr = a.err
			}
			if pending == 0 {
				var zero T
				return zero, res, firstErr
			}
		}
	}
}

// outcomeKind is what happened to one request, or to one race.
type outcomeKind int

const (
	// freshAnswered: a request on a fresh connection was answered, took
	// after the dial began.
	freshAnswered outcomeKind = iota
	// secondWon: a race's second send answered while the first, on a
	// fresh connection, still waited: the first missed herdr's first look.
	secondWon
	// lateAlone: a read the hedge gave no second send answered (or
	// failed) later than the wait a hedge would have had.
	lateAlone
)

// outcome is one thing the hedge learns from.
type outcome struct {
	kind   outcomeKind
	method string
	took   time.Duration // freshAnswered
	// hedging: the hedge planned the call, so its answer times are the
	// ones the wait before a hedge follows.
	hedging bool
}
