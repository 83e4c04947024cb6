package hooks

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
	"github.com/herdrtabrenamer/herdrtabrenamer/nudge"
	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
)

// binPath is the herdrtabrenamer binary built once for all shell tests: the
// snippets come from its own `init`, so they call it by its absolute path.
var binPath string

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "htr-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, "hooks tests:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	goBin, err := exec.LookPath("go")
	if err != nil {
		fmt.Fprintln(os.Stderr, "hooks tests: no go command in PATH to build the binary:", err)
		return 1
	}
	binPath = filepath.Join(dir, "herdrtabrenamer")
	build := exec.Command(goBin, "build", "-o", binPath, "..")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "hooks tests: go build of the binary: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

// waitTimeout is generous: shared CI machines can be slow; every wait
// polls and returns as soon as its condition holds.
const waitTimeout = testutil.Timeout

const (
	paneID       = "w1:p3"
	promptMarker = "HTRPROMPT> "
)

// fakeDaemon collects the nudges the hooks send.
type fakeDaemon struct {
	path string
	conn *net.UnixConn
	done chan struct{}

	mu     sync.Mutex
	msgs   []nudge.Message
	bad    []string
	fences int // fence datagrams read so far
}

// fencePrefix starts the test's own datagrams, which prove that everything
// queued before them has been read. A real nudge is JSON and never starts so.
const fencePrefix = "fence "

func newFakeDaemon(t testing.TB, xdgRuntime, herdrSock string) *fakeDaemon {
	t.Helper()
	dir := filepath.Join(xdgRuntime, "herdrtabrenamer")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	// The path nudge.SocketPath computes inside the shell's environment.
	path := filepath.Join(dir, rundir.NudgeKey(herdrSock)+".nudge")
	conn, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatalf("fake daemon: %v", err)
	}
	d := &fakeDaemon{path: path, conn: conn, done: make(chan struct{})}
	go func() {
		defer close(d.done)
		buf := make([]byte, 2*nudge.MaxDatagram)
		for {
			n, err := conn.Read(buf)
			if err != nil {
				return
			}
			d.mu.Lock()
			if bytes.HasPrefix(buf[:n], []byte(fencePrefix)) {
				d.fences++
				d.mu.Unlock()
				continue
			}
			m, err := nudge.Decode(buf[:n])
			if err != nil {
				d.bad = append(d.bad, fmt.Sprintf("%q: %v", buf[:n], err))
			} else {
				d.msgs = append(d.msgs, m)
			}
			d.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		conn.Close()
		<-d.done
	})
	return d
}

func (d *fakeDaemon) snapshot() ([]nudge.Message, []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]nudge.Message(nil), d.msgs...), append([]string(nil), d.bad...)
}

// fence sends a datagram of its own and waits until the reader has it: a
// Unix datagram socket delivers in order, so every datagram sent before
// the fence has then been read.
func (d *fakeDaemon) fence(t testing.TB) {
	t.Helper()
	d.mu.Lock()
	want := d.fences + 1
	d.mu.Unlock()
	c, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: d.path, Net: "unixgram"})
	if err != nil {
		t.Fatalf("fence: %v", err)
	}
	defer c.Close()
	if _, err := c.Write([]byte(fencePrefix + strconv.Itoa(want))); err != nil {
		t.Fatalf("fence: %v", err)
	}
	testutil.WaitFor(t, "the fake daemon to read the fence datagram", func() bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		return d.fences >= want
	})
}

// settle waits until at least n nudges came, then until every nudge the
// world's shells started is over and read, and returns all of them. Call
// it once the prompt after the last command is on the screen (run does
// that): the hooks fork their nudges before the prompt is drawn.
func (w *world) settle(t testing.TB, n int) []nudge.Message {
	t.Helper()
	d := w.daemon
	testutil.WaitFor(t, fmt.Sprintf("%d nudges", n), func() bool {
		msgs, _ := d.snapshot()
		return len(msgs) >= n
	}, func() string { msgs, _ := d.snapshot(); return fmt.Sprintf("got %d: %v", len(msgs), msgs) })
	// No sleep-and-hope for late nudges: wait until no process that could
	// still send one is left in the shells' sessions, then read up to a
	// fence sent after them.
	var left []string
	testutil.WaitFor(t, "every nudge the hooks started to end", func() bool {
		left = nil
		for _, sid := range w.sids {
			left = append(left, hookProcs(sid, hookExes())...)
		}
		return len(left) == 0
	}, func() string { return fmt.Sprintf("still running: %q", left) })
	d.fence(t)
	msgs, bad := d.snapshot()
	if len(bad) > 0 {
		t.Errorf("undecodable datagrams: %v", bad)
	}
	return msgs
}

// hookExes are the executables a hook runs to nudge: this binary and the
// shells that fork or run `sh -c` to start it, by their resolved paths as
// /proc/PID/exe shows them.
var hookExes = sync.OnceValue(func() map[string]bool {
	exes := map[string]bool{binPath: true}
	for _, name := range []string{"zsh", "bash", "fish", "sh"} {
		if p, err := exec.LookPath(name); err == nil {
			if r, err := filepath.EvalSymlinks(p); err == nil {
				exes[r] = true
			}
		}
	}
	return exes
})

// shellSpec says how to run one shell interactively with our rc file.
type shellSpec struct {
	name string
	// rc returns the rc file's text: prompt setup, extra lines, then the
	// snippet from `bin init SHELL flags` loaded `loads` times.
	rc func(bin, extra string, loads int, flags string) string
	// start returns the argv and extra environment for an interactive shell
	// whose rc file is written at rcPath(home).
	rcPath func(home string) string
	argv   []string
	env    func(home string) []string
	// statusEcho prints the last exit status as "rc=N".
	statusEcho string
	// startupNudges is how many nudges the first prompt sends: zsh and bash
	// run their prompt hook before the first prompt; fish_postexec does not.
	startupNudges int
}

var shells = []shellSpec{
	{
		name: "zsh",
		rc: func(bin, extra string, loads int, flags string) string {
			s := "PS1='" + promptMarker + "'\nRPROMPT=''\nPROMPT_EOL_MARK=''\nunsetopt BEEP\nHISTFILE=/dev/null\n" + extra + "\n"
			for range loads {
				s += `eval "$('` + bin + `' init zsh` + flags + `)"` + "\n"
			}
			return s
		},
		rcPath:        func(home string) string { return filepath.Join(home, ".zshrc") },
		argv:          []string{"zsh", "-d", "-i"},
		env:           func(home string) []string { return []string{"ZDOTDIR=" + home} },
		statusEcho:    `echo "rc=$?"`,
		startupNudges: 1,
	},
	{
		name: "bash",
		rc: func(bin, extra string, loads int, flags string) string {
			s := "PS1='" + promptMarker + "'\nHISTFILE=/dev/null\n" + extra + "\n"
			for range loads {
				s += `eval "$('` + bin + `' init bash` + flags + `)"` + "\n"
			}
			return s
		},
		rcPath:        func(home string) string { return filepath.Join(home, ".bashrc") },
		argv:          []string{"bash", "--noprofile", "--rcfile", "RCFILE", "-i"},
		statusEcho:    `echo "rc=$?"`,
		startupNudges: 1,
	},
	{
		name: "fish",
		rc: func(bin, extra string, loads int, flags string) string {
			s := "set -g fish_greeting ''\nfunction fish_prompt; printf '%s' '" + promptMarker + "'; end\n" +
				"function fish_right_prompt; end\nfunction fish_title; end\nset -g fish_autosuggestion_enabled 0\n" + extra + "\n"
			for range loads {
				s += `'` + bin + `' init fish` + flags + " | source\n"
			}
			return s
		},
		rcPath: func(home string) string { return filepath.Join(home, ".config", "fish", "config.fish") },
		argv:   []string{"fish", "-i"},
		env: func(home string) []string {
			return []string{"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share")}
		},
		statusEcho:    `echo "rc=$status"`,
		startupNudges: 0,
	},
}

func needShell(t testing.TB, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s is not installed (apt-get install -y %s); skipping its hook tests", name, name)
	}
}

// world is the temp environment one shell runs in.
type world struct {
	home, xdgRuntime, herdrSock string
	daemon                      *fakeDaemon
	// sids are the sessions of the shells started in this world: the
	// nudges they start stay in them, which is how settle finds them.
	sids []int
}

func newWorld(t testing.TB) *world {
	t.Helper()
	// Short paths: a Unix socket path must fit in 108 bytes.
	root, err := os.MkdirTemp("", "htr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	w := &world{
		home:       filepath.Join(root, "home"),
		xdgRuntime: filepath.Join(root, "run"),
		// Only the path matters: it keys the nudge socket.
		herdrSock: filepath.Join(root, "herdr.sock"),
	}
	if err := os.MkdirAll(w.home, 0o755); err != nil {
		t.Fatal(err)
	}
	w.daemon = newFakeDaemon(t, w.xdgRuntime, w.herdrSock)
	return w
}

// baseEnv is a clean environment: nothing from the developer's shell
// setup leaks into the test.
func (w *world) baseEnv(inHerdr bool) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + w.home,
		"TERM=xterm-256color",
		"LANG=C.UTF-8",
		"XDG_RUNTIME_DIR=" + w.xdgRuntime,
		"HERDR_SOCKET_PATH=" + w.herdrSock,
		"HERDR_ENV=1",
	}
	if inHerdr {
		env = append(env, "HERDR_PANE_ID="+paneID)
	}
	return env
}

// session is one interactive shell under a pty.
type session struct {
	t    testing.TB
	cmd  *exec.Cmd
	tty  *os.File
	done chan struct{} // closed when the pty reader ends

	exited  chan struct{} // closed when the shell has exited
	waitErr error         // cmd.Wait's answer, set before exited closes

	mu  sync.Mutex
	out bytes.Buffer

	typed []string // command lines typed so far
}

func startSession(t testing.TB, sh shellSpec, w *world, rc string, inHerdr bool) *session {
	t.Helper()
	rcPath := sh.rcPath(w.home)
	if err := os.MkdirAll(filepath.Dir(rcPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rcPath, []byte(rc), 0o644); err != nil {
		t.Fatal(err)
	}
	argv := append([]string(nil), sh.argv...)
	for i, a := range argv {
		if a == "RCFILE" {
			argv[i] = rcPath
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = w.home
	cmd.Env = w.baseEnv(inHerdr)
	if sh.env != nil {
		cmd.Env = append(cmd.Env, sh.env(w.home)...)
	}
	tty, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 250})
	if err != nil {
		t.Fatalf("start %s under a pty: %v", sh.name, err)
	}
	// pty.Start makes the shell a session leader: its pid is the session id.
	w.sids = append(w.sids, cmd.Process.Pid)
	s := &session{t: t, cmd: cmd, tty: tty, done: make(chan struct{}), exited: make(chan struct{})}
	go func() {
		s.waitErr = cmd.Wait()
		close(s.exited)
	}()
	go func() {
		defer close(s.done)
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			s.mu.Lock()
			s.out.Write(buf[:n])
			s.mu.Unlock()
			if err != nil {
				return // EIO once the shell is gone
			}
		}
	}()
	t.Cleanup(s.close)
	s.waitPrompts(1)
	return s
}

func (s *session) close() {
	select {
	case <-s.exited:
	default:
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
	s.tty.Close()
	<-s.done
}

// exit types "exit" and waits for the shell to end by itself.
func (s *session) exit() {
	s.t.Helper()
	s.send("exit")
	select {
	case <-s.exited:
		var ee *exec.ExitError
		if s.waitErr != nil && !errors.As(s.waitErr, &ee) {
			s.t.Errorf("wait for shell: %v", s.waitErr)
		}
	case <-time.After(waitTimeout):
		s.t.Errorf("shell did not exit within %v; output:\n%s", waitTimeout, s.text())
	}
}

func (s *session) raw() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

// text is the terminal output without escape sequences.
func (s *session) text() string { return stripEscapes(s.raw()) }

func (s *session) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.tty, line+"\r"); err != nil {
		s.t.Fatalf("type %q: %v", line, err)
	}
}

// run types one command line and waits for the next prompt, as a person
// would: no typeahead, so the screen shows each command once.
func (s *session) run(line string) {
	s.t.Helper()
	s.typed = append(s.typed, line)
	n := strings.Count(s.text(), promptMarker)
	s.send(line)
	s.waitPrompts(n + 1)
}

// waitFor polls until the output holds want at least n times.
func (s *session) waitFor(want string, n int) {
	s.t.Helper()
	testutil.WaitFor(s.t, fmt.Sprintf("%d× %q on the terminal", n, want),
		func() bool { return strings.Count(s.text(), want) >= n },
		func() string { return "output:\n" + s.text() })
}

func (s *session) waitPrompts(n int) { s.t.Helper(); s.waitFor(promptMarker, n) }

var escapeRE = regexp.MustCompile(`\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()*+][0-9A-Za-z]|\x1b[ -/]*[0-~]`)

func stripEscapes(s string) string {
	// A space, not nothing: shells redraw with cursor moves, and two
	// redrawn copies of a line must not glue into one word.
	s = escapeRE.ReplaceAllString(s, " ")
	return strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\n' {
			return ' '
		}
		return r
	}, s)
}

func wantNudges(t *testing.T, got []nudge.Message, want ...nudge.When) {
	t.Helper()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = got[i].PaneID == paneID && got[i].When == want[i]
	}
	if !ok {
		t.Errorf("nudges = %v, want %v for %s", got, want, paneID)
	}
}

// wantNudgeCounts is wantNudges without the order.
func wantNudgeCounts(t *testing.T, got []nudge.Message, want []nudge.When) {
	t.Helper()
	count := map[nudge.When]int{}
	for _, w := range want {
		count[w]++
	}
	for _, m := range got {
		if m.PaneID != paneID {
			t.Errorf("nudge for pane %q, want %q", m.PaneID, paneID)
		}
		count[m.When]--
	}
	for _, n := range count {
		if n != 0 {
			t.Errorf("nudges = %v, want %v (any order)", got, want)
			return
		}
	}
}

func forShells(t *testing.T, f func(t *testing.T, sh shellSpec)) {
	for _, sh := range shells {
		t.Run(sh.name, func(t *testing.T) {
			needShell(t, sh.name)
			t.Parallel()
			f(t, sh)
		})
	}
}

// after starting, expected repeats a startup nudge list plus per-command
// pairs.
func expected(sh shellSpec, commands int, preexec bool) []nudge.When {
	var w []nudge.When
	for range sh.startupNudges {
		w = append(w, nudge.WhenPrecmd)
	}
	for range commands {
		if preexec {
			w = append(w, nudge.WhenPreexec)
		}
		w = append(w, nudge.WhenPrecmd)
	}
	return w
}

// TestSleepNudges: one command gives exactly one preexec nudge, then one
// precmd nudge; loading the snippet twice changes nothing; and nothing but
// prompts and the commands' own output reaches the terminal.
func TestSleepNudges(t *testing.T) {
	for _, loads := range []int{1, 2} {
		t.Run(fmt.Sprintf("loaded%dx", loads), func(t *testing.T) {
			forShells(t, func(t *testing.T, sh shellSpec) {
				w := newWorld(t)
				s := startSession(t, sh, w, sh.rc(binPath, "", loads, ""), true)
				w.settle(t, sh.startupNudges)
				s.run("sleep 0.2")
				got := w.settle(t, len(expected(sh, 1, true)))
				wantNudges(t, got, expected(sh, 1, true)...)

				// The nudges end while the shell waits for a command: a
				// "Done" or "has ended" notice would show at the next
				// prompt. cat runs until it reads end of input, which it
				// gets only once its preexec nudge is over and read.
				prompts := strings.Count(s.text(), promptMarker)
				s.typed = append(s.typed, "cat")
				s.send("cat")
				w.settle(t, len(expected(sh, 1, true))+1)
				testutil.WaitForeground(t, s.tty, "cat")
				if _, err := s.tty.Write([]byte{4}); err != nil { // Ctrl-D
					t.Fatalf("end cat's input: %v", err)
				}
				s.waitPrompts(prompts + 1)
				s.run("printf 'SYNC%s\\n' ok")
				s.waitFor("SYNCok", 1)
				w.settle(t, len(expected(sh, 3, true)))
				s.assertClean("SYNCok")
				s.exit()
			})
		})
	}
}

// assertClean fails on any word on the screen that is not part of a
// prompt, a typed command or an expected output: job-control notices
// ("[1] 12345", "Done", "Job 1 has ended") and error messages would be.
// Words, not lines, because each shell redraws its command line its own way.
func (s *session) assertClean(outputs ...string) {
	s.t.Helper()
	text := s.text()
	// fish marks a missing final newline with ⏎ before each prompt.
	allowed := append([]string{promptMarker, "⏎"}, s.typed...)
	allowed = append(allowed, outputs...)
	for _, word := range strings.Fields(text) {
		ok := false
		for _, a := range allowed {
			ok = ok || strings.Contains(a, word)
		}
		if !ok {
			s.t.Errorf("unexpected %q on the terminal; whole output:\n%s", word, text)
		}
	}
	for _, bad := range []string{"[1]", "Done", "done", "ended", "herdrtabrenamer", "nudge"} {
		if strings.Contains(text, bad) {
			s.t.Errorf("terminal shows %q; whole output:\n%s", bad, text)
		}
	}
}

// TestNoPreexec: --no-preexec nudges at the prompt only.
func TestNoPreexec(t *testing.T) {
	forShells(t, func(t *testing.T, sh shellSpec) {
		w := newWorld(t)
		s := startSession(t, sh, w, sh.rc(binPath, "", 1, " --no-preexec"), true)
		w.settle(t, sh.startupNudges)
		s.run("sleep 0.2")
		got := w.settle(t, len(expected(sh, 1, false)))
		wantNudges(t, got, expected(sh, 1, false)...)
		s.exit()
	})
}

// TestExitStatusKept: the hooks do not change $? (or fish's $status).
func TestExitStatusKept(t *testing.T) {
	forShells(t, func(t *testing.T, sh shellSpec) {
		w := newWorld(t)
		s := startSession(t, sh, w, sh.rc(binPath, "", 1, ""), true)
		s.run("false")
		s.run(sh.statusEcho)
		s.waitFor("rc=1", 1)
		s.run("sh -c 'exit 7'")
		s.run(sh.statusEcho)
		s.waitFor("rc=7", 1)
		// The hooks really ran: otherwise this test proves nothing.
		wantNudgeCounts(t, w.settle(t, len(expected(sh, 4, true))), expected(sh, 4, true))
		s.exit()
	})
}

// TestOutsideHerdr: a shell started without HERDR_PANE_ID installs no
// hook, even when the variable appears later.
func TestOutsideHerdr(t *testing.T) {
	forShells(t, func(t *testing.T, sh shellSpec) {
		w := newWorld(t)
		s := startSession(t, sh, w, sh.rc(binPath, "", 1, ""), false)
		export := "export HERDR_PANE_ID=" + paneID
		if sh.name == "fish" {
			export = "set -gx HERDR_PANE_ID " + paneID
		}
		s.run(export)
		s.run("sleep 0.2")
		if got := w.settle(t, 0); len(got) != 0 {
			t.Errorf("outside herdr: got nudges %v, want none", got)
		}
		s.exit()
	})
}

// TestNonInteractive: a script that loads the snippet and then fires every
// hook the shell knows sends nothing and prints nothing.
func TestNonInteractive(t *testing.T) {
	scripts := map[string][]string{
		"zsh": {"zsh", "-f", "-c", `eval "$('BIN' init zsh)"; for f in $precmd_functions $preexec_functions; do $f; done; true`},
		"bash": {"bash", "--norc", "--noprofile", "-c", `eval "$('BIN' init bash)"; eval "${PROMPT_COMMAND-}"; : "${PS0@P}"; ` +
			`for f in "${precmd_functions[@]}" "${preexec_functions[@]}"; do "$f"; done; true`},
		"fish": {"fish", "--no-config", "-c", `'BIN' init fish | source; emit fish_preexec true; emit fish_postexec true; emit fish_prompt; true`},
	}
	forShells(t, func(t *testing.T, sh shellSpec) {
		w := newWorld(t)
		argv := scripts[sh.name]
		script := strings.ReplaceAll(argv[len(argv)-1], "BIN", binPath)
		cmd := exec.Command(argv[0], append(argv[1:len(argv)-1], script)...)
		cmd.Dir = w.home
		cmd.Env = w.baseEnv(true)
		// A session of its own, so that settle can find a nudge this
		// script started (and must not have) after the script is gone.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		out, err := cmd.CombinedOutput()
		w.sids = append(w.sids, cmd.Process.Pid)
		if err != nil {
			t.Fatalf("%s -c: %v\n%s", sh.name, err, out)
		}
		if len(out) != 0 {
			t.Errorf("non-interactive %s printed %q", sh.name, out)
		}
		if got := w.settle(t, 0); len(got) != 0 {
			t.Errorf("non-interactive %s: got nudges %v, want none", sh.name, got)
		}
	})
}

// TestCoexist: prompt hooks the user had before (and adds after) the
// snippet still run and still see the command's exit status, an existing
// DEBUG trap still fires, and our nudges still come.
func TestCoexist(t *testing.T) {
	type setup struct {
		before, after string
		// want are words the log must hold after `false`.
		want []string
	}
	cases := map[string]map[string]setup{
		"bash": {
			"string": {
				// Keeps $? itself, so "t1" proves our hook keeps it too.
				before: `PROMPT_COMMAND='__r=$?; printf "s%s " "$__r" >>"$HOME/log"; (exit $__r)'`,
				after:  `PROMPT_COMMAND+=$'\n''printf "t%s " "$?" >>"$HOME/log"'`,
				want:   []string{"s1", "t1"},
			},
			"array": {
				before: `PROMPT_COMMAND=('printf "a%s " "$?" >>"$HOME/log"' 'printf "b " >>"$HOME/log"')`,
				after:  `PROMPT_COMMAND+=('printf "c%s " "$?" >>"$HOME/log"')`,
				want:   []string{"a1", "b", "c1"},
			},
			"debug-trap": {
				before: `trap 'printf "d " >>"$HOME/log"' DEBUG`,
				want:   []string{"d"},
			},
		},
		"zsh": {
			"precmd_functions": {
				before: `__mine() { printf "z%s " "$?" >>"$HOME/log" }; precmd_functions+=(__mine)`,
				after:  `__late() { printf "y%s " "$?" >>"$HOME/log" }; precmd_functions+=(__late)`,
				want:   []string{"z1", "y1"},
			},
		},
		"fish": {
			"postexec": {
				before: `function __mine --on-event fish_postexec; printf "f%s " $status >>$HOME/log; end`,
				after:  `function __late --on-event fish_postexec; printf "g%s " $status >>$HOME/log; end`,
				want:   []string{"f1", "g1"},
			},
		},
	}
	forShells(t, func(t *testing.T, sh shellSpec) {
		for name, c := range cases[sh.name] {
			t.Run(name, func(t *testing.T) {
				w := newWorld(t)
				rc := sh.rc(binPath, c.before, 1, "") + c.after + "\n"
				s := startSession(t, sh, w, rc, true)
				s.run("false")
				s.run("sleep 0.2")
				// `false` is over at once, so its two nudges may arrive in
				// either order: count them.
				got := w.settle(t, len(expected(sh, 2, true)))
				wantNudgeCounts(t, got, expected(sh, 2, true))
				s.exit()
				b, err := os.ReadFile(filepath.Join(w.home, "log"))
				if err != nil {
					t.Fatalf("the user's own hook never ran: %v", err)
				}
				words := strings.Fields(string(b))
				for _, want := range c.want {
					if !slices.Contains(words, want) {
						t.Errorf("log %q lacks %q", b, want)
					}
				}
			})
		}
	})
}

// TestEmptyEnterNoNudge: an empty Enter runs no command, so nothing in the
// pane changed and no nudge is sent; the next real command still gets its
// nudges. Without preexec, zsh cannot tell an empty Enter from a command and
// nudges at every prompt; bash reads its command number, and fish_postexec
// does not fire for an empty line.
func TestEmptyEnterNoNudge(t *testing.T) {
	for _, preexec := range []bool{true, false} {
		flags := ""
		if !preexec {
			flags = " --no-preexec"
		}
		t.Run(fmt.Sprintf("preexec=%v", preexec), func(t *testing.T) {
			forShells(t, func(t *testing.T, sh shellSpec) {
				const empties = 3
				emptyNudges := 0
				if !preexec && sh.name == "zsh" {
					emptyNudges = empties
				}
				w := newWorld(t)
				s := startSession(t, sh, w, sh.rc(binPath, "", 1, flags), true)
				w.settle(t, sh.startupNudges)
				for range empties {
					s.run("")
				}
				want := expected(sh, 0, preexec)
				for range emptyNudges {
					want = append(want, nudge.WhenPrecmd)
				}
				wantNudges(t, w.settle(t, len(want)), want...)

				s.run("true")
				if preexec {
					want = append(want, nudge.WhenPreexec)
				}
				want = append(want, nudge.WhenPrecmd)
				wantNudgeCounts(t, w.settle(t, len(want)), want)
				s.exit()
			})
		})
	}
}

// TestBackgroundPIDKept: the hooks start their nudge from the shell itself
// only while $! (fish: $last_pid) holds no job of the user's. After
// `sleep 30 &` it must still name that job at later prompts, and the nudges
// must keep coming.
func TestBackgroundPIDKept(t *testing.T) {
	// wait reaps the killed job before the next prompt: a shell asked to
	// exit while it still lists a job refuses once (fish: "There are
	// still jobs active"), and the session never ends.
	lines := map[string][]string{
		"zsh":  {`sleep 30 & p=$!`, `true`, `[[ $! == "$p" ]] && printf 'BG%sKEPT\n' ok; kill $p; wait $p`},
		"bash": {`sleep 30 & p=$!`, `true`, `[[ $! == "$p" ]] && printf 'BG%sKEPT\n' ok; kill $p; wait $p`},
		"fish": {`sleep 30 &`, `set p $last_pid`, `test "$last_pid" = "$p"; and printf 'BG%sKEPT\n' ok; kill $p; wait $p`},
	}
	forShells(t, func(t *testing.T, sh shellSpec) {
		w := newWorld(t)
		s := startSession(t, sh, w, sh.rc(binPath, "", 1, ""), true)
		// One command first, so that $! already names one of our nudges.
		s.run("true")
		for _, line := range lines[sh.name] {
			s.run(line)
		}
		s.waitFor("BGokKEPT", 1)
		want := expected(sh, 1+len(lines[sh.name]), true)
		wantNudgeCounts(t, w.settle(t, len(want)), want)
		s.exit()
	})
}
