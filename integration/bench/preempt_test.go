//go:build unix

package main

import "testing"

// Each place the kernel tells its preemption mode, read as it writes it.
func TestPreemptionSources(t *testing.T) {
	if m, ok := schedPreempt([]byte("none (voluntary) full lazy\n")); !ok || m != "voluntary" {
		t.Errorf("debugfs: %q, %v", m, ok)
	}
	if m, ok := cmdlinePreempt([]byte("console=ttyS0 preempt=full quiet\n")); !ok || m != "full" {
		t.Errorf("cmdline: %q, %v", m, ok)
	}
	if _, ok := cmdlinePreempt([]byte("console=ttyS0 quiet\n")); ok {
		t.Error("cmdline without preempt= read as one")
	}
	cfg := "CONFIG_PREEMPT_BUILD=y\nCONFIG_PREEMPT_NONE=y\n# CONFIG_PREEMPT_VOLUNTARY is not set\n# CONFIG_PREEMPT is not set\nCONFIG_PREEMPT_DYNAMIC=y\n"
	if m, ok := configPreempt([]byte(cfg)); !ok || m != "none (PREEMPT_DYNAMIC)" {
		t.Errorf("config: %q, %v", m, ok)
	}
	if m, ok := configPreempt([]byte("CONFIG_PREEMPT=y\n")); !ok || m != "full" {
		t.Errorf("config full: %q, %v", m, ok)
	}
	if m := unamePreempt("#1 SMP PREEMPT_DYNAMIC @0"); m != "dynamic, mode unknown" {
		t.Errorf("uname: %q", m)
	}
}
