package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/realherdr"
)

// world is a herdr that an end-to-end case runs against: a real herdr
// 0.8.2 built from source, or herdrsim playing protocol 20 with a real
// shell behind every pane. A case written against world runs on both, so
// a difference between them shows up as one passing and one failing.
type world interface {
	Name() string
	Socket() string
	// Sandbox is the user's world the daemon runs in: for real herdr the
	// same home and runtime folder as the panes, so their hooks find it.
	Sandbox() *sandbox
	// NewWorkspace makes a workspace whose one tab's shell starts in cwd.
	NewWorkspace(t *testing.T, cwd string) (ws, tab, pane string)
	NewTab(t *testing.T, ws, cwd string) (tab, pane string)
	// Type writes text and Enter to the pane's shell, as `herdr pane run`.
	Type(t *testing.T, pane, text string)
	// EOF sends Ctrl-D to the pane's foreground program.
	EOF(t *testing.T, pane string)
	// PersonRename renames a tab the way a person does (herdr's CLI).
	PersonRename(t *testing.T, tab, label string)
	// MoveTab puts tab at position index (0-based) of its workspace.
	MoveTab(t *testing.T, tab string, index int)
	CloseTab(t *testing.T, tab string)
	// Restart stops the server and starts it again on the same socket;
	// herdr restores the session it saved.
	Restart(t *testing.T)
	Snapshot(t *testing.T) herdr.Snapshot
}

// onWorlds runs c once against herdrsim (protocol 20) and once against
// real herdr, as subtests named "herdrsim" and "RealHerdr". The real one
// skips, with the build command, when no real herdr is built.
//
// The worlds run in parallel with each other and with the package's other
// tests (see TestMain), unless opts.InTurn: each is a herdr of its own
// (herdrsim on its own socket, or a real herdr server that
// internal/realherdr starts in its own folders) with its own sandbox and
// daemons, so c must keep to w and what it makes, and must not call
// t.Parallel itself. onWorlds is the last statement of its caller: the
// worlds run after the caller returns.
func onWorlds(t *testing.T, opts worldOptions, c func(t *testing.T, w world)) {
	t.Helper()
	run := func(name string, w func(t *testing.T) world) {
		t.Run(name, func(t *testing.T) {
			if !opts.InTurn {
				t.Parallel()
			}
			c(t, w(t))
		})
	}
	run("herdrsim", func(t *testing.T) world { return newSimWorld(t, opts, 20) })
	for _, p := range opts.Protocols {
		run(fmt.Sprintf("herdrsim%d", p), func(t *testing.T) world { return newSimWorld(t, opts, p) })
	}
	run("RealHerdr", func(t *testing.T) world { return newRealWorld(t, opts) })
}

// worldOptions shape both kinds of world alike.
type worldOptions struct {
	Shell string   // the panes' shell; /bin/sh if empty
	Env   []string // more environment for the panes' shells
	// HerdrConfig is more of real herdr's config.toml (herdrsim has no
	// config).
	HerdrConfig string
	// Protocols adds worlds of herdrsim playing these protocols besides
	// 20 (herdr 0.8.2's, the real herdr's).
	Protocols []int
	// InTurn runs the worlds one at a time, for a case that must run
	// alone (serialTests): one that races a person against the daemon's
	// passes on a herdrsim in this -race test binary, whose event pacing a
	// busy machine slows past the daemon's watch for its echoes.
	InTurn bool
}

// realHerdrBinary is the real herdr to test against, or a skip naming the
// build command; under CI=true a missing binary fails instead, since
// .ci/run builds it.
func realHerdrBinary(t testing.TB) string {
	t.Helper()
	bin, err := realherdr.Binary()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but %v", err)
		}
		t.Skip(err)
	}
	return bin
}

// startRealHerdr starts a real herdr server for t and stops it when t
// ends, failing t if any process of it is left running.
func startRealHerdr(t testing.TB, opts realherdr.Options) *realherdr.Server {
	t.Helper()
	srv, err := realherdr.Start(realHerdrBinary(t), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("stopping real herdr: %v", err)
		}
	})
	return srv
}

// realWorld is a real herdr server.
type realWorld struct {
	srv    *realherdr.Server
	sb     *sandbox
	client *herdr.Client
}

func newRealWorld(t *testing.T, opts worldOptions) *realWorld {
	t.Helper()
	srv := startRealHerdr(t, realherdr.Options{Shell: opts.Shell, Env: opts.Env, Config: opts.HerdrConfig})
	base := t.TempDir()
	sb := &sandbox{Home: srv.Home, Runtime: srv.Runtime, ConfigHome: srv.ConfigHome,
		StateHome: filepath.Join(base, "state"), StatePath: filepath.Join(base, "state.json")}
	if err := os.MkdirAll(sb.StateHome, 0o700); err != nil {
		t.Fatal(err)
	}
	return &realWorld{srv: srv, sb: sb, client: herdr.New(srv.Socket, herdr.WithTimeout(10*time.Second))}
}

func (w *realWorld) Name() string      { return "real herdr" }
func (w *realWorld) Socket() string    { return w.srv.Socket }
func (w *realWorld) Sandbox() *sandbox { return w.sb }

// cliJSON runs herdr's CLI and decodes its JSON answer's result.
func (w *realWorld) cliJSON(t *testing.T, out any, args ...string) {
	t.Helper()
	b, err := w.srv.CLI(args...)
	if err != nil {
		t.Fatalf("%v\nserver output:\n%s", err, w.srv.Output())
	}
	if out == nil {
		return
	}
	var env struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(b, &env); err != nil || env.Result == nil {
		t.Fatalf("herdr %s answered %q: %v", strings.Join(args, " "), b, err)
	}
	if err := json.Unmarshal(env.Result, out); err != nil {
		t.Fatalf("herdr %s: decode %s: %v", strings.Join(args, " "), env.Result, err)
	}
}

// createdIDs is the part of herdr's answer to workspace.create and
// tab.create that tests use.
type createdIDs struct {
	Workspace herdr.Workspace `json:"workspace"`
	Tab       herdr.Tab       `json:"tab"`
	RootPane  herdr.Pane      `json:"root_pane"`
}

func (w *realWorld) NewWorkspace(t *testing.T, cwd string) (ws, tab, pane string) {
	t.Helper()
	var r createdIDs
	w.cliJSON(t, &r, "workspace", "create", "--cwd", cwd, "--no-focus")
	if r.Workspace.ID == "" || r.Tab.ID == "" || r.RootPane.ID == "" {
		t.Fatalf("workspace create answered no ids: %+v", r)
	}
	return r.Workspace.ID, r.Tab.ID, r.RootPane.ID
}

func (w *realWorld) NewTab(t *testing.T, ws, cwd string) (tab, pane string) {
	t.Helper()
	var r createdIDs
	w.cliJSON(t, &r, "tab", "create", "--workspace", ws, "--cwd", cwd, "--no-focus")
	if r.Tab.ID == "" || r.RootPane.ID == "" {
		t.Fatalf("tab create answered no ids: %+v", r)
	}
	return r.Tab.ID, r.RootPane.ID
}

func (w *realWorld) Type(t *testing.T, pane, text string) {
	t.Helper()
	w.cliJSON(t, nil, "pane", "run", pane, text)
}

func (w *realWorld) EOF(t *testing.T, pane string) {
	t.Helper()
	w.cliJSON(t, nil, "pane", "send-keys", pane, "ctrl+d")
}

func (w *realWorld) PersonRename(t *testing.T, tab, label string) {
	t.Helper()
	w.cliJSON(t, nil, "tab", "rename", tab, label)
}

// MoveTab puts tab at position index. herdr's insert_index is a place
// among the tabs before the move, so a move to the right names the place
// after the tab it lands behind.
func (w *realWorld) MoveTab(t *testing.T, tab string, index int) {
	t.Helper()
	insert := index
	var pos, ws = -1, ""
	snap := w.Snapshot(t)
	for _, tb := range snap.Tabs {
		if tb.ID == tab {
			ws = tb.WorkspaceID
		}
	}
	for _, tb := range snap.Tabs {
		if tb.WorkspaceID == ws {
			pos++
			if tb.ID == tab {
				break
			}
		}
	}
	if index > pos {
		insert = index + 1
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := w.client.Call(ctx, "tab.move", map[string]any{"tab_id": tab, "insert_index": insert}, nil); err != nil {
		t.Fatalf("tab.move %s to %d: %v", tab, index, err)
	}
}

func (w *realWorld) CloseTab(t *testing.T, tab string) {
	t.Helper()
	w.cliJSON(t, nil, "tab", "close", tab)
}

func (w *realWorld) Restart(t *testing.T) {
	t.Helper()
	if err := w.srv.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := w.srv.Restart(); err != nil {
		t.Fatal(err)
	}
}

func (w *realWorld) Snapshot(t *testing.T) herdr.Snapshot {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	snap, err := w.client.Snapshot(ctx)
	if err != nil {
		t.Fatalf("session.snapshot: %v\nserver output:\n%s", err, w.srv.Output())
	}
	return *snap
}

// simWorld is herdrsim playing a herdr release (herdr 0.8.2's protocol 20
// unless asked for another), with a real shell under a pty behind each
// pane, so that programs, directories and hooks are real and only herdr
// is played.
type simWorld struct {
	proto int
	srv   *herdrsim.Server
	sb    *sandbox
	opts  worldOptions
	mu    sync.Mutex
	ttys  map[string]*os.File // pane id -> its shell's terminal
	kills map[string]func()   // pane id -> ends its shell
}

func newSimWorld(t *testing.T, opts worldOptions, proto int) *simWorld {
	t.Helper()
	srv := startServer(t, herdrsim.WithProtocol(proto), herdrsim.WithTick(100*time.Millisecond))
	return &simWorld{proto: proto, srv: srv, sb: newSandbox(t), opts: opts,
		ttys: map[string]*os.File{}, kills: map[string]func(){}}
}

func (w *simWorld) Name() string {
	if w.proto == 20 {
		return "herdrsim"
	}
	return fmt.Sprintf("herdrsim (protocol %d)", w.proto)
}
func (w *simWorld) Socket() string    { return w.srv.SocketPath() }
func (w *simWorld) Sandbox() *sandbox { return w.sb }

// shell starts the pane's shell in cwd, with the environment herdr gives
// its panes, and attaches it to the pane.
func (w *simWorld) shell(t *testing.T, ws, tab, pane, cwd string) {
	t.Helper()
	sh := w.opts.Shell
	if sh == "" {
		sh = "/bin/sh"
	}
	cmd := exec.Command(sh, "-i")
	cmd.Dir = cwd
	cmd.Env = w.sb.Environ(append([]string{"SHELL=" + sh, "TERM=xterm-256color", "HERDR_ENV=1",
		"HERDR_SOCKET_PATH=" + w.srv.SocketPath(), "HERDR_WORKSPACE_ID=" + ws,
		"HERDR_TAB_ID=" + tab, "HERDR_PANE_ID=" + pane}, w.opts.Env...)...)
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatalf("start %s under a pty: %v", sh, err)
	}
	copied := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, tty); close(copied) }()
	var once sync.Once
	kill := func() {
		once.Do(func() {
			// A program the shell runs in front (its own process group)
			// holds the terminal open after the shell dies: it goes too,
			// or the copy never ends.
			if pg, err := unix.IoctlGetInt(int(tty.Fd()), unix.TIOCGPGRP); err == nil && pg > 0 {
				_ = syscall.Kill(-pg, syscall.SIGKILL)
			}
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			tty.Close()
			select {
			case <-copied:
			case <-time.After(waitTimeout):
				t.Logf("pane %s: its terminal stayed open after its shell was killed", pane)
			}
		})
	}
	t.Cleanup(kill)
	w.srv.AttachProcess(pane, cmd.Process.Pid)
	w.srv.SetCwd(pane, cwd)
	w.mu.Lock()
	w.ttys[pane], w.kills[pane] = tty, kill
	w.mu.Unlock()
}

func (w *simWorld) NewWorkspace(t *testing.T, cwd string) (ws, tab, pane string) {
	t.Helper()
	ws, tab, pane = w.srv.NewWorkspace("", cwd)
	w.shell(t, ws, tab, pane, cwd)
	return ws, tab, pane
}

func (w *simWorld) NewTab(t *testing.T, ws, cwd string) (tab, pane string) {
	t.Helper()
	tab, pane = w.srv.NewTab(ws, cwd)
	w.shell(t, ws, tab, pane, cwd)
	return tab, pane
}

func (w *simWorld) tty(t *testing.T, pane string) *os.File {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	tty := w.ttys[pane]
	if tty == nil {
		t.Fatalf("herdrsim: no shell behind pane %s", pane)
	}
	return tty
}

func (w *simWorld) Type(t *testing.T, pane, text string) {
	t.Helper()
	if _, err := w.tty(t, pane).Write([]byte(text + "\r")); err != nil {
		t.Fatalf("type into %s: %v", pane, err)
	}
}

func (w *simWorld) EOF(t *testing.T, pane string) {
	t.Helper()
	if _, err := w.tty(t, pane).Write([]byte{4}); err != nil {
		t.Fatalf("Ctrl-D into %s: %v", pane, err)
	}
}

func (w *simWorld) PersonRename(t *testing.T, tab, label string) { w.srv.HumanRename(tab, label) }
func (w *simWorld) MoveTab(t *testing.T, tab string, index int)  { w.srv.MoveTab(tab, index) }

func (w *simWorld) CloseTab(t *testing.T, tab string) {
	t.Helper()
	var panes []string
	for _, p := range w.srv.Snapshot().Panes {
		if p.TabID == tab {
			panes = append(panes, p.ID)
		}
	}
	w.srv.CloseTab(tab)
	for _, p := range panes {
		w.mu.Lock()
		kill := w.kills[p]
		w.mu.Unlock()
		if kill != nil {
			kill()
		}
	}
}

func (w *simWorld) Restart(t *testing.T) {
	t.Helper()
	if err := w.srv.Restart(); err != nil {
		t.Fatalf("herdrsim restart: %v", err)
	}
}

func (w *simWorld) Snapshot(t *testing.T) herdr.Snapshot { return w.srv.Snapshot() }

// worldLabels are the labels of ws's tabs by position.
func worldLabels(t *testing.T, w world, ws string) []string {
	t.Helper()
	var out []string
	for _, tb := range w.Snapshot(t).Tabs {
		if tb.WorkspaceID == ws {
			out = append(out, tb.Label)
		}
	}
	return out
}

// worldLabel is one tab's label ("" once it is gone).
func worldLabel(t *testing.T, w world, tab string) string {
	t.Helper()
	for _, tb := range w.Snapshot(t).Tabs {
		if tb.ID == tab {
			return tb.Label
		}
	}
	return ""
}

// waitWorldLabels waits until ws's labels are want.
func waitWorldLabels(t *testing.T, w world, ws string, want ...string) {
	t.Helper()
	var got []string
	if !poll(waitTimeout, func() bool { got = worldLabels(t, w, ws); return slices.Equal(got, want) }) {
		t.Fatalf("%s: tab labels = %q, want %q (waited %v)", w.Name(), got, want, waitTimeout)
	}
}

// waitWorldLabel waits until tab's label is want.
func waitWorldLabel(t *testing.T, w world, tab, want string, detail ...func() string) {
	t.Helper()
	var got string
	if !poll(waitTimeout, func() bool { got = worldLabel(t, w, tab); return got == want }) {
		msg := fmt.Sprintf("%s: tab %s label = %q, want %q (waited %v)", w.Name(), tab, got, want, waitTimeout)
		for _, d := range detail {
			msg += "\n" + d()
		}
		t.Fatal(msg)
	}
}

// startWorldDaemon runs `run --apply` against w with the test's flags.
func startWorldDaemon(t *testing.T, w world, args ...string) *daemonProc {
	t.Helper()
	return startDaemonAt(t, w, w.Socket(), args...)
}

// startDaemonAt is startWorldDaemon for a daemon that reaches w's herdr
// through socket (a relay's).
func startDaemonAt(t *testing.T, w world, socket string, args ...string) *daemonProc {
	t.Helper()
	sb := w.Sandbox()
	base := []string{"run", "--apply", "--socket", socket, "--state", sb.StatePath,
		"--poll", "200ms", "--rest-poll", "200ms", "--debounce", "20ms", "--log-format", "json", "--log-level", "debug"}
	d := spawnDaemon(t, sb, nil, append(base, args...)...)
	d.listening(t, socket)
	return d
}

// mkdirs makes folders under the sandbox home and returns their paths.
func mkdirs(t *testing.T, sb *sandbox, rel ...string) []string {
	t.Helper()
	var out []string
	for _, r := range rel {
		p := sb.HomePath(strings.Split(r, "/")...)
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}
