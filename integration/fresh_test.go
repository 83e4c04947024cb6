//go:build linux

package integration

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/realherdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
	"github.com/herdrtabrenamer/herdrtabrenamer/procinfo"
	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
)

// The freshness cases that watch the panes' processes through /proc: the
// test sees a change the moment the kernel has it, and times the tab's
// name from there. Every shell is bash with a prompt and nothing else (no
// hooks, no title), as a person's shell is before any setup, and every
// command is typed at a prompt the test saw: nothing is typed ahead.

// freshTrials is how many times each case runs in one world.
const freshTrials = 3

// freshWorld starts the panes' shells as plain bash (see writePlainRC).
func freshWorld(t *testing.T, env ...string) worldOptions {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on PATH")
	}
	return worldOptions{Shell: bash, Env: env}
}

// freshSetup writes the plain rc file and makes folders under the home.
func freshSetup(t *testing.T, w world, dirs ...string) []string {
	t.Helper()
	writePlainRC(t, w.Sandbox(), "bash")
	return mkdirs(t, w.Sandbox(), dirs...)
}

// TestRealHerdrFreshNestedShell: a bash started in the pane's bash is a
// shell too: its cd names the tab after the new folder ({proc|dir}),
// and its exit names the tab after the outer shell's folder.
func TestRealHerdrFreshNestedShell(t *testing.T) {
	t.Parallel()
	onWorlds(t, freshWorld(t), func(t *testing.T, w world) {
		dirs := freshSetup(t, w, "projects/rmk", "projects/rmk/sub")
		_, tab, pane := w.NewWorkspace(t, dirs[0])
		d := freshDaemon(t, w, "--format", "{proc|dir}")
		waitWorldLabel(t, w, tab, "rmk", d.Log)
		shell := paneShell(t, w, pane)
		for i := range freshTrials {
			waitPrompt(t, w, shell, false)
			w.Type(t, pane, "bash")
			inner := waitPrompt(t, w, shell, true)
			freshFollow(t, w, d, fmt.Sprintf("trial %d: cd in a nested bash", i), tab, "sub", typing(t, w, pane, "cd sub"),
				func() bool { return procCwd(inner) == dirs[1] })
			waitPrompt(t, w, shell, true)
			freshFollow(t, w, d, fmt.Sprintf("trial %d: the nested bash exited", i), tab, "rmk", typing(t, w, pane, "exit"),
				func() bool { return frontLeader(shell) == shell })
		}
	})
}

// TestRealHerdrFreshDirectoryChanges: the tab follows a folder change
// in a plain shell, and in a program that changes its own directory: one
// that does so as it starts, and one a second later, which no input and
// no exit announces. With a template that shows the program and its
// folder ({proc}:{dir}), and with one of the folder alone ({dir}).
func TestRealHerdrFreshDirectoryChanges(t *testing.T) {
	t.Parallel()
	onWorlds(t, freshWorld(t), func(t *testing.T, w world) {
		dirs := freshSetup(t, w, "projects/rmk", "projects/rmk/sub")
		fifo := filepath.Join(w.Sandbox().Home, "never")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		_, tab, pane := w.NewWorkspace(t, dirs[0])
		shell := paneShell(t, w, pane)
		for _, tmpl := range []struct{ format, program string }{{"{proc}:{dir}", "sleep:"}, {"{dir}", ""}} {
			d := freshDaemon(t, w, "--format", tmpl.format)
			waitWorldLabel(t, w, tab, "rmk", d.Log)
			f := dirFollower{t: t, w: w, d: d, tab: tab, pane: pane, shell: shell, format: tmpl.format}
			f.cd(dirs[1], "sub")
			f.cd(dirs[0], "rmk")
			for i := range freshTrials {
				f.program("as it starts", "sh -c 'cd %s && exec sleep 300'", tmpl.program, fmt.Sprintf("early%d", i))
				// read -t 1 on a FIFO no one writes waits a second with
				// no child to exit and no input read.
				f.program("a second in", "bash --norc -c 'read -t 1 <>"+fifo+"; cd %s && exec sleep 300'", tmpl.program, fmt.Sprintf("late%d", i))
			}
			if code := d.Stop(); code != 0 {
				t.Fatalf("%s: daemon exited %d\n%s", w.Name(), code, d.Log())
			}
		}
	})
}

// dirFollower types folder changes into a pane and follows its tab.
type dirFollower struct {
	t         *testing.T
	w         world
	d         *daemonProc
	tab, pane string
	shell     int
	format    string
}

// cd types a cd to dir at the prompt; the tab becomes want.
func (f dirFollower) cd(dir, want string) {
	f.t.Helper()
	waitPrompt(f.t, f.w, f.shell, false)
	freshFollow(f.t, f.w, f.d, fmt.Sprintf("%s: cd %s", f.format, filepath.Base(dir)), f.tab, want, typing(f.t, f.w, f.pane, "cd "+dir),
		func() bool { return procCwd(f.shell) == dir })
}

// program runs command (its %s the folder it moves to, made under the
// home as name) at the prompt; the tab becomes prefix+name. Ctrl-C ends
// it, and the tab is named after the shell's folder again.
func (f dirFollower) program(when, command, prefix, name string) {
	f.t.Helper()
	target := mkdirs(f.t, f.w.Sandbox(), "elsewhere/"+name)[0]
	waitPrompt(f.t, f.w, f.shell, false)
	freshFollow(f.t, f.w, f.d, fmt.Sprintf("%s: a program's cd %s", f.format, when), f.tab, prefix+name,
		typing(f.t, f.w, f.pane, fmt.Sprintf(command, target)),
		func() bool { l := frontLeader(f.shell); return l != f.shell && procCwd(l) == target })
	freshFollow(f.t, f.w, f.d, fmt.Sprintf("%s: the program ended", f.format), f.tab, "rmk", interrupting(f.t, f.w, f.pane),
		func() bool { return frontLeader(f.shell) == f.shell })
}

// TestRealHerdrFreshExecAndWrapper: `exec sleep 300` replaces the pane's
// shell, and the tab shows sleep; a wrapper (sh -c) names the tab after
// its newest child, which changes while the wrapper runs on.
func TestRealHerdrFreshExecAndWrapper(t *testing.T) {
	t.Parallel()
	onWorlds(t, freshWorld(t), func(t *testing.T, w world) {
		dirs := freshSetup(t, w, "projects/rmk")
		ws, wrapTab, wrapPane := w.NewWorkspace(t, dirs[0])
		var execTabs, execPanes []string
		for range freshTrials {
			tab, pane := w.NewTab(t, ws, dirs[0])
			execTabs, execPanes = append(execTabs, tab), append(execPanes, pane)
		}
		d := freshDaemon(t, w, "--format", "{proc|dir}")
		waitWorldLabels(t, w, ws, "rmk", "rmk", "rmk", "rmk")
		for i, pane := range execPanes {
			shell := paneShell(t, w, pane)
			waitPrompt(t, w, shell, false)
			freshFollow(t, w, d, fmt.Sprintf("trial %d: exec sleep", i), execTabs[i], "sleep", typing(t, w, pane, "exec sleep 300"),
				func() bool { return procComm(shell) == "sleep" })
		}
		shell := paneShell(t, w, wrapPane)
		for i := range freshTrials {
			waitPrompt(t, w, shell, false)
			// The trailing ':' keeps sh from exec'ing its last program.
			freshFollow(t, w, d, fmt.Sprintf("trial %d: the wrapper's next child", i), wrapTab, "tail",
				typing(t, w, wrapPane, "sh -c 'sleep 1; tail -f /dev/null; :'"),
				func() bool { l := frontLeader(shell); return l != shell && procComm(newestChild(l)) == "tail" })
			freshFollow(t, w, d, fmt.Sprintf("trial %d: the wrapper ended", i), wrapTab, "rmk", interrupting(t, w, wrapPane),
				func() bool { return frontLeader(shell) == shell })
		}
	})
}

// freshRestSpan is how long TestRealHerdrFreshTwoAgentsAtRest counts
// herdr's requests: long enough for several of the status poll's
// one-second reads, were it running.
const freshRestSpan = 6 * time.Second

// TestRealHerdrFreshTwoAgentsAtRest: two agents at rest in one tab, each
// in its own local shell's pane. The local watch sees both terminals, so
// once settled the daemon reads herdr's session for nothing: no
// session.snapshot within freshRestSpan, with its polls ten minutes away
// and the status poll (--agent-poll) at its default.
func TestRealHerdrFreshTwoAgentsAtRest(t *testing.T) {
	t.Parallel()
	onWorlds(t, freshWorld(t, "HERDR_LOG=herdr=debug"), func(t *testing.T, w world) {
		dirs := freshSetup(t, w, "projects/rmk")
		_, tab, p1 := w.NewWorkspace(t, dirs[0])
		p2 := splitPane(t, w, p1, dirs[0])
		for _, p := range []string{p1, p2} {
			reportAgent(t, w, p, "claude", "idle")
		}
		d := freshDaemon(t, w, "--format", "{icon}{proc|dir}")
		waitWorldLabel(t, w, tab, "⚪rmk", d.Log)
		idle(t, d)
		// The plan of polls after the watch took both shells up.
		if !poll(15*time.Second, func() bool { p, ok := lastPolls(d); return ok && p["agent_poll"] == float64(0) }) {
			p, _ := lastPolls(d)
			t.Errorf("%s: the status poll never stopped for two agents at rest; last plan %v", w.Name(), p)
		}
		counts := herdrRequestsDuring(t, w, freshRestSpan)
		t.Logf("%s: herdr's requests over %v at rest: %v", w.Name(), freshRestSpan, counts)
		if n := counts["session.snapshot"]; n != 0 {
			t.Errorf("%s: %d session.snapshot requests over %v at rest, want 0 (polls are 10m away)\n%s", w.Name(), n, freshRestSpan, d.Log())
		}
	})
}

// lastPolls is the daemon's last plan of polls (its trace=polls record).
func lastPolls(d *daemonProc) (map[string]any, bool) {
	var last map[string]any
	for _, m := range daemonRecords(d) {
		if m["trace"] == "polls" {
			last = m
		}
	}
	return last, last != nil
}

// noInotify is the script unshare runs a program under: in a user
// namespace of its own, whose inotify instances it caps at none, so that
// inotify_init fails there as on a machine whose instances are used up.
const noInotify = `echo 0 > /proc/sys/user/max_inotify_instances && exec "$@"`

// TestRealHerdrFreshWithoutInotify: a daemon that the kernel gives no
// inotify instance (a user's instances used up) says so in status with
// the limit to raise, still names a plain shell's program at once (the
// local watch looks at the shell instead of waiting for its input) and
// still follows a Claude Code /rename (the session file is looked at
// instead of watched).
//
// The daemon runs in a user namespace whose inotify instances are capped
// at none. The kernel lets a process of one user namespace read the /proc
// of another's (a shell's pid namespace, its parent's files) only with
// privileges there, and the daemon proves a shell local through them: so
// on real herdr the server runs in that namespace too (its own inotify
// capped as well), and the daemon enters it. herdrsim runs in the test's
// own process, whose /proc a daemon in such a namespace may not read: no
// shell of it can be proven local, and there only the /rename is played.
func TestRealHerdrFreshWithoutInotify(t *testing.T) {
	t.Parallel()
	skipWithoutUnshare(t)
	args := []string{"--format", "{session|proc|dir}", "--max-len", "40", "--agent-poll", "0"}
	t.Run("herdrsim", func(t *testing.T) {
		w := newSimWorld(t, freshWorld(t), 20)
		b := newBlindSession(t, w)
		d := startBlindDaemon(t, w, []string{"unshare", "-U", "-r", "sh", "-c", noInotify, "sh"}, args...)
		b.named(t, d)
		b.sessionRenames(t, d)
	})
	t.Run("RealHerdr", func(t *testing.T) {
		if _, err := exec.LookPath("nsenter"); err != nil {
			t.Skip("no nsenter on PATH: cannot run the daemon in real herdr's user namespace")
		}
		w := newBlindRealWorld(t, freshWorld(t))
		b := newBlindSession(t, w)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		peer, err := procinfo.SocketPeer(ctx, w.Socket())
		cancel()
		if err != nil || peer.PID <= 0 {
			t.Fatalf("the process serving herdr's socket: %+v, %v", peer, err)
		}
		d := startBlindDaemon(t, w, []string{"nsenter", "-U", "-t", strconv.Itoa(peer.PID)}, args...)
		b.named(t, d)
		checkBlindStatus(t, w)
		b.programStarts(t, d)
		b.sessionRenames(t, d)
	})
}

// blindSession is a workspace of two tabs of plain shells, the second
// running Claude Code, its session reported and its transcript written
// before the daemon starts: herdr sends no event when a pane's session is
// reported, so one reported later is news only to the next pass.
type blindSession struct {
	w                   world
	dirs                []string
	ws, tab, pane       string
	agentTab, agentPane string
	transcript          string
}

func newBlindSession(t *testing.T, w world) *blindSession {
	t.Helper()
	b := &blindSession{w: w, dirs: freshSetup(t, w, "projects/rmk", "src/api")}
	b.ws, b.tab, b.pane = w.NewWorkspace(t, b.dirs[0])
	b.agentTab, b.agentPane = w.NewTab(t, b.ws, b.dirs[1])
	b.transcript = claudeTranscript(t, w.Sandbox(), b.dirs[1], blindSessionID)
	writeFile(t, b.transcript, claudeRename("first title"))
	reportClaudeSession(t, w, b.agentPane, blindSessionID)
	return b
}

// blindSessionID is the Claude Code session of a blindSession.
const blindSessionID = "4f35e220-c435-4cf7-b9b9-f40426042847"

// named waits for the daemon's first names.
func (b *blindSession) named(t *testing.T, d *daemonProc) {
	t.Helper()
	want := []string{"rmk", "first title"}
	if !poll(waitTimeout, func() bool { return slices.Equal(worldLabels(t, b.w, b.ws), want) }) {
		t.Fatalf("%s: labels %q, want %q\n%s", b.w.Name(), worldLabels(t, b.w, b.ws), want, d.Log())
	}
}

// programStarts starts and ends a program in the first tab's shell.
func (b *blindSession) programStarts(t *testing.T, d *daemonProc) {
	t.Helper()
	shell := paneShell(t, b.w, b.pane)
	for i := range freshTrials {
		waitPrompt(t, b.w, shell, false)
		freshFollow(t, b.w, d, fmt.Sprintf("trial %d: a program started, no inotify", i), b.tab, "sleep", typing(t, b.w, b.pane, "sleep 300"),
			func() bool { return procComm(frontLeader(shell)) == "sleep" })
		freshFollow(t, b.w, d, fmt.Sprintf("trial %d: the program ended, no inotify", i), b.tab, "rmk", interrupting(t, b.w, b.pane),
			func() bool { return frontLeader(shell) == shell })
	}
}

// sessionRenames renames the second tab's Claude Code session (/rename)
// while the daemon runs.
func (b *blindSession) sessionRenames(t *testing.T, d *daemonProc) {
	t.Helper()
	for i := range freshTrials {
		name := fmt.Sprintf("renamed %d", i)
		took := freshFollow(t, b.w, d, fmt.Sprintf("trial %d: a /rename, no inotify", i), b.agentTab, name,
			func() { appendFile(t, b.transcript, claudeRename(name)) }, nil)
		if took > 1500*time.Millisecond {
			t.Logf("%s: trial %d: the /rename took %v, over the 1.5 s promised", b.w.Name(), i, took)
		}
	}
}

// newBlindRealWorld is newRealWorld with herdr's server in a user
// namespace of its own whose inotify instances are capped at none: a
// wrapper starts `herdr server` under unshare, and runs herdr's other
// commands as they are.
func newBlindRealWorld(t *testing.T, opts worldOptions) *realWorld {
	t.Helper()
	wrapper := filepath.Join(t.TempDir(), "herdr")
	script := "#!/bin/sh\nif [ \"$#\" = 1 ] && [ \"$1\" = server ]; then\n" +
		"  exec unshare -U -r sh -c '" + noInotify + "' sh '" + realHerdrBinary(t) + "' server\nfi\n" +
		"exec '" + realHerdrBinary(t) + "' \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	srv, err := realherdr.Start(wrapper, realherdr.Options{Shell: opts.Shell, Env: opts.Env})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("stopping real herdr: %v", err)
		}
	})
	base := t.TempDir()
	sb := &sandbox{Home: srv.Home, Runtime: srv.Runtime, ConfigHome: srv.ConfigHome,
		StateHome: filepath.Join(base, "state"), StatePath: filepath.Join(base, "state.json")}
	if err := os.MkdirAll(sb.StateHome, 0o700); err != nil {
		t.Fatal(err)
	}
	return &realWorld{srv: srv, sb: sb, client: herdr.New(srv.Socket, herdr.WithTimeout(10*time.Second))}
}

// checkBlindStatus runs status next to the daemon: it must exit 1 with a
// problem that names fs.inotify.max_user_instances for the local watch
// (not the session files' watch, which no agent has asked for yet).
func checkBlindStatus(t *testing.T, w world) {
	t.Helper()
	sb := w.Sandbox()
	var out string
	var code int
	var fixes []string
	ok := poll(5*time.Second, func() bool {
		out, _, code = runCLI(t, sb, "status", "--socket", w.Socket(), "--state", sb.StatePath)
		fixes = statusFixes(out)
		for _, f := range fixes {
			if strings.Contains(f, "max_user_instances") && !strings.Contains(f, rundir.TroubleSessionWatch) {
				return code == 1
			}
		}
		return false
	})
	if !ok {
		t.Errorf("%s: without inotify, status exits %d with problems %q, want exit 1 and one naming max_user_instances for the local watch\n%s",
			w.Name(), code, fixes, out)
		return
	}
	t.Logf("%s: status without inotify exits %d: %q", w.Name(), code, fixes)
}

// statusFixes are status's problems: each FIX line with the line of its
// fix that follows it.
func statusFixes(out string) []string {
	lines := strings.Split(out, "\n")
	var fixes []string
	for i, l := range lines {
		if !strings.HasPrefix(l, "FIX") {
			continue
		}
		if i+1 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i+1]), "->") {
			l += "\n" + lines[i+1]
		}
		fixes = append(fixes, l)
	}
	return fixes
}

// skipWithoutUnshare skips unless unshare can make a user namespace whose
// inotify instances are capped at none.
func skipWithoutUnshare(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare on PATH: cannot run a daemon without inotify")
	}
	if out, err := exec.Command("unshare", "-U", "-r", "sh", "-c", noInotify, "sh", "true").CombinedOutput(); err != nil {
		t.Skipf("unshare -U -r cannot cap inotify instances here (%v: %s): cannot run a daemon without inotify", err, strings.TrimSpace(string(out)))
	}
}

// startBlindDaemon is startWorldDaemon with freshArgs, run by enter (a
// command that runs its arguments in a user namespace without inotify).
func startBlindDaemon(t *testing.T, w world, enter []string, args ...string) *daemonProc {
	t.Helper()
	sb := w.Sandbox()
	argv := append(append([]string{}, enter[1:]...), binPath, "run", "--apply", "--socket", w.Socket(), "--state", sb.StatePath,
		"--log-format", "json", "--log-level", "debug")
	argv = append(append(argv, freshArgs...), args...)
	d := &daemonProc{Env: sb, Stdout: &syncBuffer{}, Stderr: &syncBuffer{}, done: make(chan struct{})}
	// unshare, nsenter and sh exec what they run: the pid is the daemon's.
	d.Cmd = exec.Command(enter[0], argv...)
	d.Cmd.Env = sb.Environ()
	d.Cmd.Stdout, d.Cmd.Stderr = d.Stdout, d.Stderr
	if err := d.Cmd.Start(); err != nil {
		t.Fatalf("start the daemon under %s: %v", enter[0], err)
	}
	go func() {
		d.waitErr = d.Cmd.Wait()
		close(d.done)
	}()
	t.Cleanup(func() {
		if !d.Exited() {
			_ = d.Cmd.Process.Kill()
			<-d.done
		}
	})
	d.listening(t, w.Socket())
	settled(t, d)
	return d
}

// paneShell is the pid of the pane's shell, as herdr names it.
func paneShell(t *testing.T, w world, pane string) int {
	t.Helper()
	client := herdr.New(w.Socket(), herdr.WithTimeout(10*time.Second))
	var pid int
	testutil.WaitFor(t, fmt.Sprintf("%s: the shell of pane %s", w.Name(), pane), func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		pi, err := client.ProcessInfo(ctx, pane)
		pid = pi.ShellPID
		return err == nil && pid > 0
	})
	return pid
}

// waitPrompt waits until a bash reads a command line at its prompt in the
// terminal of shell, and returns its pid: shell itself, or with nested a
// bash shell started in front of it. A bash at its prompt leads the
// terminal's foreground group with the terminal out of canonical mode
// (readline's); running a command, it puts the terminal back first.
func waitPrompt(t *testing.T, w world, shell int, nested bool) int {
	t.Helper()
	return waitPromptOf(t, w, shell, nested, "bash")
}

// waitPromptOf is waitPrompt for a bash whose command name is comm (a
// copy of bash under another name).
func waitPromptOf(t *testing.T, w world, shell int, nested bool, comm string) int {
	t.Helper()
	var leader int
	testutil.WaitFor(t, fmt.Sprintf("%s: a %s prompt in front of shell %d (nested %v)", w.Name(), comm, shell, nested), func() bool {
		leader = frontLeader(shell)
		if leader <= 0 || (leader != shell) != nested || procComm(leader) != comm {
			return false
		}
		canonical, err := terminalCanonical(shell)
		return err == nil && !canonical
	}, func() string { return fmt.Sprintf("in front: pid %d (%s)", leader, procComm(leader)) })
	return leader
}

// frontLeader is the foreground process group of shell's terminal (the
// tpgid of its stat), whose leader has that pid; 0 when unreadable.
func frontLeader(shell int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", shell))
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	// After comm: state ppid pgrp session tty_nr tpgid.
	f := strings.Fields(s[i+1:])
	if len(f) < 6 {
		return 0
	}
	pid, _ := strconv.Atoi(f[5])
	return pid
}

// procComm is pid's command name, "" when it is gone.
func procComm(pid int) string {
	if pid <= 0 {
		return ""
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// procCwd is pid's directory, "" when unreadable.
func procCwd(pid int) string {
	cwd, _ := os.Readlink(fmt.Sprintf("/proc/%d/cwd", pid))
	return cwd
}

// newestChild is pid's last child started, 0 when it has none: the
// kernel lists a task's children oldest first.
func newestChild(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	c, _ := strconv.Atoi(f[len(f)-1])
	return c
}

// terminalCanonical says whether shell's terminal is in canonical mode,
// read through its standard input, which is the terminal.
func terminalCanonical(shell int) (bool, error) {
	f, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/0", shell), os.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK, 0)
	if err != nil {
		return false, err
	}
	defer f.Close()
	tio, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	if err != nil {
		return false, err
	}
	return tio.Lflag&unix.ICANON != 0, nil
}

// typing is an act for freshFollow: text and Enter typed into the pane.
func typing(t *testing.T, w world, pane, text string) func() {
	return func() { w.Type(t, pane, text) }
}

// interrupting is an act for freshFollow: Ctrl-C typed into the pane,
// which ends the program in front.
func interrupting(t *testing.T, w world, pane string) func() {
	return func() { freshInterrupt(t, w, pane) }
}

// freshInterrupt types Ctrl-C into the pane.
func freshInterrupt(t *testing.T, w world, pane string) {
	t.Helper()
	switch w := w.(type) {
	case *realWorld:
		w.cliJSON(t, nil, "pane", "send-keys", pane, "ctrl+c")
	case *simWorld:
		if _, err := w.tty(t, pane).Write([]byte{3}); err != nil {
			t.Fatalf("Ctrl-C into %s: %v", pane, err)
		}
	default:
		t.Fatalf("no Ctrl-C for %T", w)
	}
}

// splitPane makes a second pane beside pane, its shell in cwd, and
// returns its id.
func splitPane(t *testing.T, w world, pane, cwd string) string {
	t.Helper()
	switch w := w.(type) {
	case *realWorld:
		var r struct {
			Pane herdr.Pane `json:"pane"`
		}
		w.cliJSON(t, &r, "pane", "split", pane, "--direction", "right", "--cwd", cwd)
		if r.Pane.ID == "" {
			t.Fatalf("pane split answered no pane: %+v", r)
		}
		return r.Pane.ID
	case *simWorld:
		p := w.srv.Split(pane, cwd)
		for _, x := range w.srv.Snapshot().Panes {
			if x.ID == p {
				w.shell(t, x.WorkspaceID, x.TabID, p, cwd)
			}
		}
		return p
	}
	t.Fatalf("no split for %T", w)
	return ""
}

// reportAgent reports pane's agent and its state as an agent's herdr
// integration does (pane.report_agent).
func reportAgent(t *testing.T, w world, pane, agent, state string) {
	t.Helper()
	client := herdr.New(w.Socket(), herdr.WithTimeout(10*time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := client.Call(ctx, "pane.report_agent", map[string]any{
		"pane_id": pane, "source": "herdrtabrenamer-test", "agent": agent, "state": state}, nil); err != nil {
		t.Fatalf("%s: pane.report_agent %s: %v", w.Name(), pane, err)
	}
}

// herdrRequestsDuring counts, by method, the requests w's herdr receives
// over span from now: herdrsim's own count of session.snapshot, and real
// herdr's debug log (HERDR_LOG=herdr=debug) of every request. Nothing of
// the test's own talks to herdr meanwhile.
func herdrRequestsDuring(t *testing.T, w world, span time.Duration) map[string]int {
	t.Helper()
	switch w := w.(type) {
	case *simWorld:
		methods := []string{"session.snapshot", "pane.process_info", "tab.get", "tab.rename", "events.subscribe", "pane.report_metadata"}
		before := map[string]int{}
		for _, m := range methods {
			before[m] = w.srv.Calls(m)
		}
		time.Sleep(span) // the span measured
		out := map[string]int{}
		for _, m := range methods {
			if n := w.srv.Calls(m) - before[m]; n > 0 {
				out[m] = n
			}
		}
		return out
	case *realWorld:
		start := time.Now()
		time.Sleep(span) // the span measured
		return herdrLogRequests(t, filepath.Join(w.srv.ConfigHome, "herdr", "herdr-server.log"), start, start.Add(span))
	}
	t.Fatalf("no request count for %T", w)
	return nil
}

// herdrLogRequests counts, by method, the requests herdr's debug log
// says it received from start to end.
func herdrLogRequests(t *testing.T, path string, start, end time.Time) map[string]int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("herdr's log (HERDR_LOG=herdr=debug): %v", err)
	}
	defer f.Close()
	counts := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.Contains(line, `event="api.request.start"`) {
			continue
		}
		stamp, _, _ := strings.Cut(line, " ")
		at, err := time.Parse(time.RFC3339Nano, stamp)
		if err != nil || at.Before(start) || at.After(end) {
			continue
		}
		_, rest, _ := strings.Cut(line, ` method="`)
		if method, _, ok := strings.Cut(rest, `"`); ok {
			counts[method]++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("herdr's log: %v", err)
	}
	return counts
}
