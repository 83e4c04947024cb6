package daemon

import (
	"fmt"
	"os"
	"testing"
)

// TestMain gives the package's daemons one private runtime directory.
// Their files there are keyed by herdr's socket, which each test makes
// its own, so tests need not set $XDG_RUNTIME_DIR one at a time and may
// run in parallel. Started as a stand-in for herdr's client
// (standInRole), the binary plays that part instead.
func TestMain(m *testing.M) {
	if role := os.Getenv(standInRole); role != "" {
		os.Exit(standInMain(role))
	}
	dir, err := os.MkdirTemp("", "htr-daemon-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "daemon tests: runtime dir:", err)
		os.Exit(1)
	}
	os.Setenv("XDG_RUNTIME_DIR", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
