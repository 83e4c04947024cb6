package herdr

import (
	"context"
	"sync"
	"time"
)

// Mechanism and policy. A request can go out on a fresh connection or on
// a warm one, and a late read can go out twice. How two sends race is the
// mechanism, here: raceTwo knows nothing of herdr. When a second send is
// due, whether the budget allows it and which connection a request takes
// are policy: the hedge (hedge.go) and the warm pool (pool.go). Both learn
// from what happens to requests through one interface, policy, so the
// code that sends says what happened once and each policy keeps what
// concerns it.

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
	// warmAnswered: a request on a warm connection opened at phase was
	// answered.
	warmAnswered
	// warmClosed: the warm connection taken for a request had been closed
	// by herdr (a restart), so the request never left on it.
	warmClosed
	// secondWon: a race's second send answered while the first, on a
	// fresh connection, still waited: the first missed herdr's first look.
	secondWon
	// lateAlone: a read the hedge gave no second send answered (or
	// failed) later than the wait a hedge would have had.
	lateAlone
)

// outcome is one thing the client's policies learn from.
type outcome struct {
	kind   outcomeKind
	method string
	took   time.Duration // freshAnswered
	phase  time.Time     // warmAnswered
	// hedging: the hedge planned the call, so its answer times on fresh
	// connections are the ones the wait before a hedge follows.
	hedging bool
}

// policy is a rule for sending that learns from outcomes: the hedge
// learns how long each read usually takes and spends its budget, the warm
// pool learns how often fresh connections miss herdr's first look and how
// late its looks at warm ones run.
type policy interface {
	observe(outcome)
}

// observe tells every policy of the client what happened.
func (c *Client) observe(o outcome) {
	for _, p := range c.policies {
		p.observe(o)
	}
}
