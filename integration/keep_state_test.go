package integration

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
)

// damagedStates are the state files that do not read, each holding a
// lock on a tab (made by content from the tab's id and the label it was
// locked with). copied: a copy is kept beside it; refusal: what lock's
// refusal says.
var damagedStates = []struct {
	name    string
	content func(tab, label string) []byte
	copied  bool
	refusal string
}{
	{"cut short", func(tab, label string) []byte {
		return fmt.Appendf(nil, `{"version":1,"tabs":{%q:{"locked":true,"locked_label":%q}`, tab, label)
	}, true, "cannot be read"},
	{"one wrong type", func(tab, label string) []byte {
		return fmt.Appendf(nil, `{"version":1,"tabs":{%q:{"locked":true,"locked_label":%q,"label":7}}}`, tab, label)
	}, true, "cannot be read"},
	{"newer version", func(tab, label string) []byte {
		// A downgrade: a later herdrtabrenamer wrote it.
		return fmt.Appendf(nil, `{"version":2,"tabs":{%q:{"locked":true,"locked_label":%q}}}`, tab, label)
	}, false, "newer herdrtabrenamer"},
	{"over 16 MiB", func(tab, label string) []byte {
		// Well-formed, only too large to be read.
		pad := strings.Repeat("x", 16<<20)
		return fmt.Appendf(nil, `{"version":1,"tabs":{%q:{"locked":true,"locked_label":%q}},"notes":%q}`, tab, label, pad)
	}, true, "cannot be read"},
}

// TestRealHerdrKeepDamagedStateFile: a state file that does not read (cut
// short, one wrong type, a newer version, over 16 MiB), with a lock in it,
// is never written over. While it lasts the daemon renames nothing (the
// locked tab, nor another), lock refuses, status exits 1 with a FIX that
// says what to do, and a copy of a file that does not parse is kept
// beside it. A person removing it hands naming back.
func TestRealHerdrKeepDamagedStateFile(t *testing.T) {
	t.Parallel()
	for _, k := range damagedStates {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
				damagedStateTrial(t, w, k.content, k.copied, k.refusal)
			})
		})
	}
}

// damagedStateTrial runs the daemon, status and lock over a damaged state
// file locking one of two tabs, then removes the file.
func damagedStateTrial(t *testing.T, w world, content func(tab, label string) []byte, copied bool, refusal string) {
	sb := w.Sandbox()
	dirs := mkdirs(t, sb, "projects/rmk", "src/web")
	ws, locked, _ := w.NewWorkspace(t, dirs[0])
	other, _ := w.NewTab(t, ws, dirs[1])
	before := worldLabels(t, w, ws)
	damaged := content(locked, worldLabel(t, w, locked))
	writeFile(t, sb.StatePath, string(damaged))
	d := startWorldDaemon(t, w)
	nudgedPasses(t, w, d, 3)
	if got := worldLabels(t, w, ws); !slices.Equal(got, before) {
		t.Errorf("%s: labels %q became %q over a state file that does not read", w.Name(), before, got)
	}
	out, _, code := runCLI(t, sb, "status", "--socket", w.Socket(), "--state", sb.StatePath)
	if l := statusLine(out, "state"); code != 1 || !strings.HasPrefix(l, "FIX") || !strings.Contains(out, "rm ") {
		t.Errorf("%s: status exit %d, want 1 with a FIX for the state saying what to remove:\n%s", w.Name(), code, out)
	}
	out, stderr, code := runCLI(t, sb, "lock", other, "--socket", w.Socket(), "--state", sb.StatePath)
	if code != 1 || out != "" || !strings.Contains(stderr, refusal) {
		t.Errorf("%s: lock over a damaged state: exit %d, stdout %q, stderr %q; want 1 saying %q", w.Name(), code, out, stderr, refusal)
	}
	nudgedPasses(t, w, d, 1)
	if b, _ := os.ReadFile(sb.StatePath); !bytes.Equal(b, damaged) {
		t.Fatalf("%s: the damaged state file was written over (%d bytes, was %d)", w.Name(), len(b), len(damaged))
	}
	copies, _ := filepath.Glob(sb.StatePath + ".damaged-*")
	if copied && len(copies) != 1 {
		t.Errorf("%s: copies kept of the damaged file: %q, want one", w.Name(), copies)
	}
	if err := os.Remove(sb.StatePath); err != nil {
		t.Fatal(err)
	}
	nudgedPasses(t, w, d, 1)
	waitWorldLabels(t, w, ws, "rmk", "web")
}

// TestRealHerdrKeepFreshServerBehindAForwarder: the daemon reaches herdr
// through a forwarded socket (the relay: its peer is the test process,
// not herdr, and it outlives herdr), and herdr restarts without its
// session, counting tab ids from 1 again. The new server's tabs inherit
// nothing: status says the state describes an earlier server (or that
// it cannot be told), the old lock does not hold the tab that reuses its
// id, and a person naming a tab with a label that was ours on the old
// server keeps it.
func TestRealHerdrKeepFreshServerBehindAForwarder(t *testing.T) {
	t.Parallel()
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		sb := w.Sandbox()
		dirs := mkdirs(t, sb, "projects/rmk", "src/web", "src/api", "src/docs")
		r := newRelayed(t, w)
		ws, t1, _ := w.NewWorkspace(t, dirs[0])
		t2, _ := w.NewTab(t, ws, dirs[1])
		d := r.daemon(t)
		waitWorldLabels(t, w, ws, "rmk", "web")
		if out, stderr, code := r.cli(t, "lock", t2); code != 0 {
			t.Fatalf("lock %s: exit %d: %s%s", t2, code, out, stderr)
		}
		if code := d.Stop(); code != 0 {
			t.Fatalf("daemon exit %d\n%s", code, d.Log())
		}
		w = restartWithoutSession(t, w)
		r.w = w
		ws, n1, _ := w.NewWorkspace(t, dirs[2])
		n2, _ := w.NewTab(t, ws, dirs[3])
		if n1 != t1 || n2 != t2 {
			t.Fatalf("%s: the new server's tabs are %s and %s, not the old ids %s and %s: the test cannot hold", w.Name(), n1, n2, t1, t2)
		}
		out, _, _ := r.cli(t, "status")
		l := statusLine(out, "state")
		if !strings.Contains(l, "earlier herdr server") && !strings.Contains(l, "cannot be told") {
			t.Errorf("%s: status does not say the state describes an earlier server, or that it cannot tell:\n%s", w.Name(), out)
		}
		t.Logf("%s: status through the relay: %s", w.Name(), l)
		d = r.daemon(t)
		waitWorldLabel(t, w, n1, "api")
		// At once: a label we asked for on the old server would read as
		// ours for a while yet.
		w.PersonRename(t, n1, "rmk")
		relayedPasses(t, w, d, r.relay, 3)
		if got := worldLabel(t, w, n1); got != "rmk" {
			t.Errorf("%s: a person named tab %s %q, a label ours on the old server; it shows %q\n%s", w.Name(), n1, "rmk", got, d.Log())
		}
		if got := worldLabel(t, w, n2); got != "docs" {
			t.Errorf("%s: tab %s shows %q, not %q: the old server's lock on its id holds it", w.Name(), n2, got, "docs")
		}
	})
}

// restartWithoutSession stops w's herdr and starts a new server on the
// same socket that knows nothing of the old session: real herdr with its
// saved sessions removed, herdrsim as a new server in the same folder. It
// returns the world served now.
func restartWithoutSession(t *testing.T, w world) world {
	t.Helper()
	switch w := w.(type) {
	case *realWorld:
		if err := w.srv.Stop(); err != nil {
			t.Fatal(err)
		}
		removeSessions(t, w.srv.Home, w.srv.ConfigHome)
		if err := w.srv.Restart(); err != nil {
			t.Fatal(err)
		}
		return w
	case *simWorld:
		if err := w.srv.Stop(); err != nil {
			t.Fatal(err)
		}
		srv := startServer(t, herdrsim.WithProtocol(w.proto), herdrsim.WithTick(100*time.Millisecond),
			herdrsim.WithDir(filepath.Dir(w.srv.SocketPath())))
		return &simWorld{proto: w.proto, srv: srv, sb: w.sb, opts: w.opts,
			ttys: map[string]*os.File{}, kills: map[string]func(){}}
	}
	t.Fatalf("no restart without a session for %T", w)
	return nil
}

// TestRealHerdrKeepStatusAfterSIGKILLAndPidReuse: status says running for
// a live daemon. A daemon killed with SIGKILL leaves its "pid N since
// TIME start S" line in its lock file, and its pid may belong to another
// process by then: status must say it is not running (exit 1, FIX
// daemon). Given to a process at once, within the second after the
// daemon took its lock (the line as the daemon wrote it, but for its pid
// and a time half a second before that process started); and to a later
// process, in a line without a start as daemons wrote it before. Three
// rounds per world, each with a daemon of its own.
func TestRealHerdrKeepStatusAfterSIGKILLAndPidReuse(t *testing.T) {
	t.Parallel()
	onWorlds(t, worldOptions{}, func(t *testing.T, w world) {
		sb := w.Sandbox()
		w.NewWorkspace(t, mkdirs(t, sb, "projects/rmk")[0])
		notRunning := func(round int, what string, pid int) {
			t.Helper()
			out, _, code := runCLI(t, sb, "status", "--socket", w.Socket(), "--state", sb.StatePath)
			if l := statusLine(out, "daemon"); code != 1 || !strings.HasPrefix(l, "FIX") || !strings.Contains(l, "not running") {
				t.Fatalf("%s round %d: the killed daemon's pid %d went to %s; status exit %d:\n%s", w.Name(), round, pid, what, code, out)
			}
		}
		for round := range 3 {
			d := startWorldDaemon(t, w)
			lock := daemonLockFile(t, sb, w.Socket())
			since, start := holderLine(t, lock, d.Cmd.Process.Pid)
			out, _, _ := runCLI(t, sb, "status", "--socket", w.Socket(), "--state", sb.StatePath)
			if l := statusLine(out, "daemon"); !strings.HasPrefix(l, "ok") || !strings.Contains(l, fmt.Sprintf("pid %d ", d.Cmd.Process.Pid)) {
				t.Fatalf("%s round %d: status does not say daemon %d runs:\n%s", w.Name(), round, d.Cmd.Process.Pid, out)
			}
			d.Kill()
			quick := startProcess(t)
			taken := time.Now().Add(-500 * time.Millisecond)
			writeFile(t, lock, fmt.Sprintf("pid %d since %s%s\n", quick, taken.Format(time.RFC3339Nano), start))
			notRunning(round, "a process started half a second after its lock", quick)
			other := laterProcess(t, since)
			writeFile(t, lock, fmt.Sprintf("pid %d since %s\n", other, since.Format(time.RFC3339Nano)))
			notRunning(round, "a later process", other)
		}
	})
}

// daemonLockFile is the daemon's single-instance lock for the herdr
// server at socket, in the sandbox's runtime folder.
func daemonLockFile(t *testing.T, sb *sandbox, socket string) string {
	t.Helper()
	id, ok := rundir.ServerID(socket)
	if !ok {
		t.Fatalf("no herdr socket at %s", socket)
	}
	return filepath.Join(sb.Runtime, rundir.Name, id+".lock")
}

// holderLine waits until the lock file's line is "pid N since TIME" for
// pid, or that with " start S" after it, and returns its time and its
// " start S" ("" when it has none). The killed daemon before it left its
// nudge socket behind, so only this line says the daemon took its claim.
func holderLine(t *testing.T, lock string, pid int) (since time.Time, start string) {
	t.Helper()
	var b []byte
	if !poll(waitTimeout, func() bool {
		b, _ = os.ReadFile(lock)
		pidText, rest, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(string(b)), "pid "), " since ")
		sinceText, startText, hasStart := strings.Cut(rest, " start ")
		start = ""
		if hasStart {
			start = " start " + startText
		}
		var err error
		since, err = time.Parse(time.RFC3339Nano, sinceText)
		return ok && err == nil && pidText == strconv.Itoa(pid)
	}) {
		t.Fatalf("lock file %s holds %q, want pid %d since a time", lock, b, pid)
	}
	return since, start
}

// laterProcess starts a process (ended when the test ends) that began
// well after since, as a process that reuses a dead daemon's pid has:
// more than the second by which the kernel's start times are coarse. It
// returns its pid.
func laterProcess(t *testing.T, since time.Time) int {
	t.Helper()
	// An input, not a wait for readiness: the process must be younger
	// than the lock's line by more than the kernel can blur.
	time.Sleep(time.Until(since.Add(2500 * time.Millisecond)))
	return startProcess(t)
}

// startProcess starts a process, ended when the test ends, and returns
// its pid.
func startProcess(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd.Process.Pid
}
