package integration

import (
	"os"
	"strings"
	"testing"
)

// TestStatusTellsAStateItCannotSave: a daemon whose state file cannot be
// written renames nothing (no rename without its record saved first) but
// runs on; status must say so, and exit 1, instead of "ok daemon running".
// Here the state file is to be in a folder under /proc, which no one can
// make or write into, root included, while status finds no file there to
// complain of (as for a folder a person made read-only).
func TestStatusTellsAStateItCannotSave(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skip("needs /proc")
	}
	srv := startServer(t)
	sb := newSandbox(t)
	srv.NewWorkspace("work", sb.HomePath("rmk"))
	state := "/proc/herdrtabrenamer-test/state.json"
	d := startDaemonIn(t, sb, srv, "--state", state, "--log-level", "debug")
	// The pass that wanted to rename has run and could not save.
	if !poll(waitTimeout, func() bool { return strings.Contains(d.Log(), "not renaming") }) {
		t.Fatalf("the daemon never tried to rename\n%s", d.Log())
	}
	if got := label(srv, "w1:t1"); got != "1" {
		t.Fatalf("tab renamed to %q with no state saved", got)
	}
	out, _, code := runCLIEnv(t, sb, []string{"HERDR_SOCKET_PATH=" + srv.SocketPath()}, "status", "--state", state)
	line := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "state") && strings.HasPrefix(l, "FIX  daemon") {
			line = l
		}
	}
	if code != 1 || line == "" {
		t.Fatalf("status exit %d with a daemon that cannot save its state; want 1 and a FIX daemon line about it:\n%s", code, out)
	}
}
