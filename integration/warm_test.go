package integration

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// After a shell hook's nudge the daemon keeps connections open
// so that the renames that follow skip herdr's 100 ms read poll; with no
// nudge it holds none, and it never lets herdr time one out.

// warmPool is the size of the client's pool (herdr/pool.go).
const warmPool = 16

var passLine = regexp.MustCompile(`trace=pass renames=(\d+) warm=(\d+)`)

// passRenames lists, per pass that renamed something, how many renames
// it made and how many requests it sent on warm connections (the rename,
// and the re-read of the tab before it when the snapshot was old), from
// the daemon's debug pass lines.
func passRenames(log string) (renames, warm []int) {
	for _, m := range passLine.FindAllStringSubmatch(log, -1) {
		r, _ := strconv.Atoi(m[1])
		w, _ := strconv.Atoi(m[2])
		if r > 0 {
			renames, warm = append(renames, r), append(warm, w)
		}
	}
	return renames, warm
}

// The server makes every fresh connection miss herdr's first look, so the
// daemon's client learns that a warm connection is the better choice
// (herdr/pool.go weighs the two) and the test does not hang on timing.
func TestNudgeWarmsConnectionsForTheRenamesThatFollow(t *testing.T) {
	srv := startServer(t, herdrsim.WithLateWrites())
	_, tab, pane := srv.NewWorkspace("w", "/home/u/a")
	d := startDaemon(t, srv, "--poll", "0", "--format", "{proc|dir}", "--log-level", "debug")
	waitLabel(t, srv, tab, "a")
	// No nudge yet: only the event stream stays open.
	testutil.WaitFor(t, "only the event stream open before any nudge", func() bool { return srv.OpenConnections() == 1 })

	d.Nudge(t, "precmd", pane)
	testutil.WaitFor(t, "the warm pool", func() bool { return srv.OpenConnections() >= 1+warmPool })

	for i, prog := range []string{"vim", "htop", "make"} {
		srv.SetForeground(pane, herdrsim.Proc{Argv: []string{prog}})
		d.Nudge(t, "precmd", pane)
		waitLabel(t, srv, tab, prog)
		// The pass logs its line just after its rename is answered.
		testutil.WaitFor(t, fmt.Sprintf("%d nudged renames, each with a warm connection", i+1), func() bool {
			renames, warm := passRenames(d.Log())
			if len(renames) != i+2 {
				return false
			}
			for k := 1; k < len(renames); k++ { // the first pass came before any nudge
				if warm[k] < renames[k] {
					return false
				}
			}
			return true
		}, func() string { return "log:\n" + d.Log() })
	}
	if n := srv.Calls("tab.rename"); n != 4 {
		t.Errorf("herdr got %d tab.rename requests, want 4 (a, vim, htop, make): each once", n)
	}
	if n := srv.ReadTimeouts(); n != 0 {
		t.Errorf("herdr timed out %d idle connections (a warning in its log each)", n)
	}
	d.Stop()
	testutil.WaitFor(t, "every connection closed after the daemon stopped", func() bool { return srv.OpenConnections() == 0 })
}

// The spell ends --warm after the last nudge; --warm 0 opens nothing.
func TestWarmSpellEnds(t *testing.T) {
	for _, warm := range []string{"0", "300ms"} {
		t.Run(warm, func(t *testing.T) {
			srv := startServer(t)
			_, tab, pane := srv.NewWorkspace("w", "/home/u/a")
			d := startDaemon(t, srv, "--poll", "0", "--format", "{proc|dir}", "--warm", warm)
			waitLabel(t, srv, tab, "a")
			d.Nudge(t, "precmd", pane)
			srv.SetForeground(pane, herdrsim.Proc{Argv: []string{"vim"}})
			d.Nudge(t, "precmd", pane)
			waitLabel(t, srv, tab, "vim")
			fence(t, srv, 1)
			// The fence's own nudge warmed the pool again: wait for
			// the spell to end, or see that none began.
			testutil.WaitFor(t, fmt.Sprintf("only the event stream open with --warm %s", warm), func() bool { return srv.OpenConnections() == 1 })
			// Every connection carries a request, except warm ones
			// closed unused.
			idle := srv.Connections() - srv.Calls("")
			if warm == "0" && idle != 0 {
				t.Errorf("--warm 0: %d connections carried no request: the pool ran", idle)
			}
			if warm != "0" && idle < warmPool/2 {
				t.Errorf("--warm %s: %d connections carried no request, want most of a pool of %d closed unused", warm, idle, warmPool)
			}
		})
	}
}
