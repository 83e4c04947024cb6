// Package testutil holds the small helpers that tests in several packages
// need alike: a Buffer a process may write while the test reads it, and
// WaitFor, the one way a test waits for something to happen (poll a
// condition, fail with what it waited for), so that no test sleeps a fixed
// time and hopes; CaughtUp and its kin, the fences that daemon and
// integration tests read off the daemon's debug log; WaitForeground, the
// fence before typing into a program's terminal; and NearestRank, the one
// percentile every benchmark reports.
package testutil

import (
	"bytes"
	"strings"
	"sync"
)

// Buffer is a bytes.Buffer that a process or logger may write while a test
// reads it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String is everything written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// Lines is everything written so far, one element per line, without
// surrounding blank lines.
func (b *Buffer) Lines() []string {
	s := strings.TrimSpace(b.String())
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
