package testutil

import (
	"fmt"
	"testing"
	"time"
)

// Timeout is how long WaitFor waits for something that should take
// milliseconds. Generous on purpose: a shared 2-core machine running -race
// can stall a process for whole seconds, and a wait that returns as soon as
// its condition holds costs nothing extra when the machine is fast.
const Timeout = 30 * time.Second

// Poll calls cond until it returns true or timeout has passed, and reports
// whether it did. It looks again after 1 ms, then backs off to every 10 ms,
// so a fence that is already down costs next to nothing.
func Poll(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	every := time.Millisecond
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(every)
		every = min(2*every, 10*time.Millisecond)
	}
}

// WaitFor polls cond for up to Timeout and fails t when it never holds.
// what names the awaited thing ("tab w1:t1 renamed to btop"); detail, when
// given, is called once on failure for the state the test saw last.
func WaitFor(t testing.TB, what string, cond func() bool, detail ...func() string) {
	t.Helper()
	WaitForWithin(t, Timeout, what, cond, detail...)
}

// WaitForWithin is WaitFor with its own timeout.
func WaitForWithin(t testing.TB, timeout time.Duration, what string, cond func() bool, detail ...func() string) {
	t.Helper()
	if Poll(timeout, cond) {
		return
	}
	msg := fmt.Sprintf("gave up after %v waiting for %s", timeout, what)
	for _, d := range detail {
		msg += "\n" + d()
	}
	t.Fatal(msg)
}
