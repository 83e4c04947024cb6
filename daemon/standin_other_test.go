//go:build !linux

package daemon

import (
	"fmt"
	"os"
)

// standInRole: see standin_linux_test.go; the stand-in client runs on
// Linux only.
const standInRole = "HTR_DAEMON_TEST_STAND_IN"

func standInMain(role string) int {
	fmt.Fprintln(os.Stderr, "stand-in", role+": Linux only")
	return 1
}
