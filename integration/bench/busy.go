//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// Busy loops: processes that only spin, as a build or a test run beside
// the daemon keeps the cores busy. Each is this program run again with
// spinArg.

// spinArg re-runs this program as one busy loop that spins until killed.
const spinArg = "-spin"

// spin never returns.
func spin() {
	for i := 0; ; i++ {
		_ = i
	}
}

// busyLoops are the loops the second round of samples runs beside, from
// the command line.
var busyLoops int

// startBusy starts n busy loops and returns what stops them.
func startBusy(n int) (stop func(), err error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	var cmds []*exec.Cmd
	stop = func() {
		for _, c := range cmds {
			_ = c.Process.Kill()
			_ = c.Wait()
		}
	}
	for range n {
		c := exec.Command(self, spinArg)
		if err := c.Start(); err != nil {
			stop()
			return nil, fmt.Errorf("start a busy loop: %w", err)
		}
		cmds = append(cmds, c)
	}
	return stop, nil
}

// loadAverage is the kernel's 1-minute load average, as /proc/loadavg
// says it ("?" where there is none).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return "?"
}
