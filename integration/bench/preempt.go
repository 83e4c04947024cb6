//go:build unix

package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
)

// How far the linked io_uring connect + send goes depends on the
// kernel's preemption mode: it puts the request line in the socket
// before io_uring_enter returns, and only a kernel that preempts inside
// that call (voluntary at its points, full almost anywhere) can run
// herdr's thread in between. The bench says which mode it measured.

// preemption is the kernel's preemption mode and where that was read:
// the scheduler's own word (debugfs), the boot command line, or the
// build configuration with PREEMPT_DYNAMIC's default.
func preemption() (mode, source string) {
	if b, err := os.ReadFile("/sys/kernel/debug/sched/preempt"); err == nil {
		if m, ok := schedPreempt(b); ok {
			return m, "/sys/kernel/debug/sched/preempt"
		}
	}
	if b, err := os.ReadFile("/proc/cmdline"); err == nil {
		if m, ok := cmdlinePreempt(b); ok {
			return m, "preempt= on the kernel command line"
		}
	}
	if b, err := readConfig(); err == nil {
		if m, ok := configPreempt(b); ok {
			return m, "the kernel's build default (/proc/config.gz), no preempt= on its command line"
		}
	}
	if out, err := exec.Command("uname", "-v").Output(); err == nil {
		return unamePreempt(string(out)), "uname -v"
	}
	return "unknown", "nothing readable"
}

// schedPreempt reads debugfs's "none (voluntary) full": the mode in
// parentheses is in force.
func schedPreempt(b []byte) (string, bool) {
	m := regexp.MustCompile(`\((\w+)\)`).FindSubmatch(b)
	if m == nil {
		return "", false
	}
	return string(m[1]), true
}

// cmdlinePreempt reads preempt= from the kernel's command line.
func cmdlinePreempt(b []byte) (string, bool) {
	for _, f := range strings.Fields(string(b)) {
		if v, ok := strings.CutPrefix(f, "preempt="); ok {
			return v, true
		}
	}
	return "", false
}

// readConfig is /proc/config.gz, unpacked.
func readConfig() ([]byte, error) {
	f, err := os.Open("/proc/config.gz")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(io.LimitReader(z, 4<<20))
}

// configPreempt reads the build's preemption choice from a kernel
// configuration.
func configPreempt(b []byte) (string, bool) {
	b = append([]byte("\n"), b...)
	dynamic := bytes.Contains(b, []byte("\nCONFIG_PREEMPT_DYNAMIC=y"))
	for _, c := range []struct{ key, mode string }{
		{"CONFIG_PREEMPT_RT=y", "rt"}, {"CONFIG_PREEMPT=y", "full"}, {"CONFIG_PREEMPT_LAZY=y", "lazy"},
		{"CONFIG_PREEMPT_VOLUNTARY=y", "voluntary"}, {"CONFIG_PREEMPT_NONE=y", "none"},
	} {
		if bytes.Contains(b, []byte("\n"+c.key)) {
			if dynamic {
				return c.mode + " (PREEMPT_DYNAMIC)", true
			}
			return c.mode, true
		}
	}
	return "", false
}

// unamePreempt guesses from uname -v's build flags.
func unamePreempt(v string) string {
	switch {
	case strings.Contains(v, "PREEMPT_RT"):
		return "rt"
	case strings.Contains(v, "PREEMPT_DYNAMIC"):
		return "dynamic, mode unknown"
	case strings.Contains(v, "PREEMPT "):
		return "full"
	}
	return "none or voluntary"
}

// kernelNote is the table's line about the kernel the run measured.
func kernelNote() string {
	mode, source := preemption()
	release := "?"
	if out, err := exec.Command("uname", "-r").Output(); err == nil {
		release = strings.TrimSpace(string(out))
	}
	return "Kernel " + release + ", preemption " + mode + " (read from " + source + "). The io_uring rows rest on the request line reaching the socket before io_uring_enter returns; a kernel that preempts inside that call (voluntary, full) may let herdr's thread look first now and then: only this mode was measured."
}
