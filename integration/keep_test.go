package integration

// What the daemon and its commands keep, tried from outside on a real
// herdr 0.8.2 and on herdrsim playing the same release, through the
// binary, its CLI, the state file's JSON and herdr's own CLI and API only:
//
//   - a label we asked for long ago is a person's to choose, however often
//     we renamed the tab since (keep_names_test.go);
//   - a put-back of a person's name counts a pass's rename made meanwhile
//     as ours, and a person's rename inside a put-back or inside restore's
//     give-back goes back too (keep_names_test.go);
//   - a state file that does not read is never written over, and while it
//     lasts nothing is renamed (keep_state_test.go);
//   - behind a forwarded socket, a herdr restarted without its session
//     inherits no lock and no label of ours (keep_state_test.go);
//   - status does not take a process that reuses a killed daemon's pid for
//     the daemon (keep_state_test.go);
//   - a tab locked while our rename of it is on its way never shows that
//     rename after lock returned (keep_lock_test.go).
//
// Where the protocol matters they run on herdrsim playing 0.7 (17), 0.8.0
// (19) and 0.9 (22) too. A daemon that reaches herdr through a requestRelay (relayed) lets a test
// hold one request on its way: the window between a look and herdr
// applying a rename, held open while a person acts.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
)

// relayed is a world whose daemon and commands reach herdr through a
// requestRelay, which can hold one request of a method from herdr: the
// window between a look and herdr applying a rename, held open.
type relayed struct {
	w     world
	relay *requestRelay
}

// newRelayed starts a relay to w's herdr in a short folder of its own (a
// socket path holds 108 bytes, and test names are long).
func newRelayed(t *testing.T, w world) *relayed {
	t.Helper()
	dir, err := os.MkdirTemp("", "kr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return &relayed{w: w, relay: startRequestRelay(t, dir, w.Socket())}
}

// daemon starts a daemon through the relay that renames only when nudged:
// no poll and no local watch, so every pass is one the test asked for.
func (r *relayed) daemon(t *testing.T, args ...string) *daemonProc {
	t.Helper()
	return startDaemonAt(t, r.w, r.relay.path, append([]string{"--poll", "0", "--no-local-watch"}, args...)...)
}

// nudge asks the daemon behind the relay for a pass over pane now.
func (r *relayed) nudge(t *testing.T, pane string) {
	t.Helper()
	if err := nudge.Send(r.w.Sandbox().NudgeSocket(r.relay.path), pane, nudge.WhenNow); err != nil {
		t.Fatal(err)
	}
}

// hold keeps the next request of method from herdr until release, which
// the test's end calls too (a held request would keep the relay open).
func (r *relayed) hold(t *testing.T, method string) (arrived <-chan struct{}, release func()) {
	t.Helper()
	arrived, release = r.relay.holdNext(method)
	t.Cleanup(release)
	return arrived, release
}

// cli runs the binary against herdr through the relay, with the world's
// state file.
func (r *relayed) cli(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	sb := r.w.Sandbox()
	return runCLI(t, sb, append(args, "--socket", r.relay.path, "--state", sb.StatePath)...)
}

// liveStream waits until d's event stream is live: on 0.7/0.8 its
// tab.renamed entry has replayed herdr's history, so the echo of a rename
// decides its fate at once.
func liveStream(t *testing.T, w world, d *daemonProc) {
	t.Helper()
	if sim, ok := w.(*simWorld); ok && sim.proto >= 22 {
		return
	}
	if !poll(waitTimeout, func() bool { return replayOver(d) }) {
		t.Fatalf("%s: the daemon's stream never ended its replay\n%s", w.Name(), d.Log())
	}
}

// namedTab makes a workspace whose shell starts in home/name and waits
// until the daemon named its tab name and its event stream brought the
// echo of that rename: a trial then starts with nothing of the daemon's
// still on its way.
func (r *relayed) namedTab(t *testing.T, d *daemonProc, name string) (tab, pane string) {
	t.Helper()
	_, tab, pane = r.w.NewWorkspace(t, mkdirs(t, r.w.Sandbox(), name)[0])
	r.nudge(t, pane)
	waitWorldLabel(t, r.w, tab, name, d.Log)
	if !poll(waitTimeout, func() bool {
		return slices.ContainsFunc(daemonRecords(d), func(m map[string]any) bool {
			return m["kind"] == "tab.renamed" && m["tab"] == tab && m["label"] == name
		})
	}) {
		t.Fatalf("%s: the daemon's stream never brought the echo of its rename of %s to %q\n%s", r.w.Name(), tab, name, d.Log())
	}
	return tab, pane
}

// heldRename moves pane's shell to home/name, nudges the daemon and
// returns once its rename to name is held in the relay.
func (r *relayed) heldRename(t *testing.T, pane, name string) (release func()) {
	t.Helper()
	arrived, release := r.hold(t, "tab.rename")
	cdAndWait(t, r.w, pane, r.w.Sandbox().HomePath(name))
	r.nudge(t, pane)
	waitArrived(t, arrived, "the daemon's rename to "+name)
	r.heldIs(t, "tab.rename", "label", name)
	return release
}

// heldIs fails the test unless the request of method the relay holds (the
// last one it saw) has param set to value: a test that holds another
// request than the one it means proves nothing.
func (r *relayed) heldIs(t *testing.T, method, param, value string) {
	t.Helper()
	reqs := r.relay.requests(method)
	want, _ := json.Marshal(value)
	if len(reqs) == 0 || !strings.Contains(reqs[len(reqs)-1], `"`+param+`":`+string(want)) {
		t.Fatalf("the %s held has no %s %s: %q", method, param, want, reqs[max(0, len(reqs)-1):])
	}
}

// waitArrived waits until the relay holds the request it was to hold.
func waitArrived(t *testing.T, arrived <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-arrived:
	case <-time.After(waitTimeout):
		t.Fatalf("no %s came within %v", what, waitTimeout)
	}
}

// renamed is one tab.renamed event.
type renamed struct{ tab, label string }

// renameEvents are herdr's tab.renamed events in the order herdr applied
// the renames (one subscription delivers its kind in the order of herdr's
// ring, replay first).
type renameEvents struct {
	mu  sync.Mutex
	got []renamed
}

// watchRenames subscribes to herdr's tab.renamed events until the test
// ends.
func watchRenames(t *testing.T, socket string) *renameEvents {
	t.Helper()
	c, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.Write([]byte(`{"id":"keep","method":"events.subscribe","params":{"subscriptions":[{"type":"tab.renamed"}]}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	e := &renameEvents{}
	go func() {
		sc := bufio.NewScanner(c)
		for sc.Scan() {
			var line struct {
				Data struct {
					Tab   string `json:"tab_id"`
					Label string `json:"label"`
				} `json:"data"`
			}
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Data.Tab != "" {
				e.mu.Lock()
				e.got = append(e.got, renamed{line.Data.Tab, line.Data.Label})
				e.mu.Unlock()
			}
		}
	}()
	return e
}

// until waits for the event renaming tab to label and returns every event
// up to it.
func (e *renameEvents) until(t *testing.T, tab, label string) []renamed {
	t.Helper()
	var got []renamed
	if !poll(waitTimeout, func() bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		i := slices.Index(e.got, renamed{tab, label})
		got = slices.Clone(e.got[:i+1])
		return i >= 0
	}) {
		t.Fatalf("herdr's events never renamed %s to %q", tab, label)
	}
	return got
}

// landedAfter waits until herdr renamed tab to then after it renamed it
// to first: a rename held in the relay has landed over a person's.
func (e *renameEvents) landedAfter(t *testing.T, tab, first, then string) {
	t.Helper()
	if !poll(waitTimeout, func() bool {
		e.mu.Lock()
		defer e.mu.Unlock()
		i := slices.Index(e.got, renamed{tab, first})
		return i >= 0 && slices.Contains(e.got[i:], renamed{tab, then})
	}) {
		t.Fatalf("herdr never renamed %s to %q after %q", tab, then, first)
	}
}

// bgCommand is a command of the binary running in the background, for a
// test that acts while it runs.
type bgCommand struct {
	args     []string
	out, err bytes.Buffer
	done     chan error
	cmd      *exec.Cmd
}

// startBackground starts the binary with args in sb; the test's end kills
// it if it still runs.
func startBackground(t *testing.T, sb *sandbox, args ...string) *bgCommand {
	t.Helper()
	c := &bgCommand{args: args, done: make(chan error, 1)}
	c.cmd = exec.Command(binPath, args...)
	c.cmd.Env = sb.Environ()
	c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.err
	if err := c.cmd.Start(); err != nil {
		t.Fatalf("start %v: %v", args, err)
	}
	go func() { c.done <- c.cmd.Wait() }()
	t.Cleanup(func() {
		_ = c.cmd.Process.Kill()
	})
	return c
}

// wait waits for the command to end (at most waitTimeout) and returns its
// output and exit status.
func (c *bgCommand) wait(t *testing.T) (stdout, stderr string, code int) {
	t.Helper()
	select {
	case err := <-c.done:
		c.done <- err // a second wait sees the same end
		var ee *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &ee):
			code = ee.ExitCode()
		default:
			t.Fatalf("%v: %v", c.args, err)
		}
		return c.out.String(), c.err.String(), code
	case <-time.After(waitTimeout):
		t.Fatalf("herdrtabrenamer %v did not finish within %v\nstderr:\n%s", c.args, waitTimeout, c.err.String())
	}
	return "", "", -1
}

// keptTab is what the state file's JSON holds of a tab, as far as these
// tests look.
type keptTab struct {
	Label       string `json:"label"`
	Locked      bool   `json:"locked"`
	LockedLabel string `json:"locked_label"`
}

// keptTabs reads the state file's tabs; a missing file holds none.
func keptTabs(t *testing.T, path string) map[string]keptTab {
	t.Helper()
	var f struct {
		Tabs map[string]keptTab `json:"tabs"`
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatalf("state file %s does not parse: %v\n%s", path, err, b)
	}
	return f.Tabs
}

// statusLine is the line of status's report about name ("daemon",
// "state", ...), its mark and text; "" when there is none.
func statusLine(out, name string) string {
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && (f[0] == "ok" || f[0] == "FIX") && f[1] == name {
			return l
		}
	}
	return ""
}

// tabRecords are d's log lines about tab, for a failure's message.
func tabRecords(d *daemonProc, tab string) string {
	var out []string
	for _, l := range strings.Split(d.Log(), "\n") {
		if strings.Contains(l, `"`+tab+`"`) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
