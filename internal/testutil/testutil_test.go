package testutil

import (
	"fmt"
	"sync"
	"testing"
)

func TestBufferConcurrentWritesAndLines(t *testing.T) {
	var b Buffer
	if got := b.Lines(); got != nil {
		t.Fatalf("empty buffer lines = %q", got)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fmt.Fprintf(&b, "line %d\n", i)
			_ = b.String()
		}()
	}
	wg.Wait()
	if n := len(b.Lines()); n != 8 {
		t.Fatalf("%d lines, want 8: %q", n, b.String())
	}
}
