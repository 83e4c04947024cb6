package daemon

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
)

// A shell with no hooks that sets no title: only the kernel tells the
// daemon (which does not poll in between) that a program started or
// exited or the shell changed directory, and the tab follows each. With
// the one tab's shell watched, the full poll rests.
func TestLocalWatchNamesWithoutHooks(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	dir := filepath.Join(t.TempDir(), "rmk")
	if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, "{proc|dir}", func(o *Options) {
		o.Poll, o.RestPoll, o.LocalWatch, o.Inspector = 3*time.Second, time.Minute, true, procinfo.Local()
	})
	_, _, p1 := f.srv.NewWorkspace("main", dir)
	cmd, tty := testutil.PlainShell(t, dir)
	f.srv.AttachProcess(p1, cmd.Process.Pid)
	runDaemon(t, f, nil)
	waitFor(t, "first pass", func() bool { return f.labels()[0] == "rmk" })
	waitFor(t, "the full poll at rest", func() bool { return lastPolls(f).Poll == time.Minute })
	for _, step := range []struct{ keys, want string }{
		{"sleep 30\n", "sleep"},
		{"\x03", "rmk"},
		{"cd sub\n", "sub"},
	} {
		watched := len(f.traces.of(TraceWatched))
		if _, err := io.WriteString(tty, step.keys); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "label "+step.want, func() bool { return f.labels()[0] == step.want })
		if !slices.ContainsFunc(f.traces.of(TraceWatched)[watched:], func(tr Trace) bool { return tr.Pane == p1 }) {
			t.Fatalf("the tab became %q with no report of the local watch", step.want)
		}
	}
}
