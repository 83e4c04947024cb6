package daemon

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// A stand-in for herdr's client. The tests' herdr is herdrsim, served by
// this test binary, so herdr's executable is this binary: the stand-in
// is this binary again (standInMain), reading its terminal in raw mode as
// herdr's client does. A relay, this binary a third time, with no
// terminal of its own, holds the terminal's master and writes to it what
// the test sends: what the person's terminal emulator does for a real
// client, whose terminal herdr's server never holds.

// standInRole is the environment variable that makes this binary a relay
// ("relay") or a client ("client") instead of the tests.
const standInRole = "HTR_DAEMON_TEST_STAND_IN"

// standIn is a running stand-in client and its relay.
type standIn struct {
	relay *exec.Cmd
	in    io.WriteCloser
	pid   int    // the client's
	tty   string // the client's terminal
}

// startStandIn starts a stand-in client, ready to read its terminal; it
// ends with the test.
func startStandIn(t *testing.T) *standIn {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	relay := exec.Command(exe)
	relay.Env = append(os.Environ(), standInRole+"=relay")
	relay.SysProcAttr = &unix.SysProcAttr{Setsid: true} // no terminal: no client
	relay.Stderr = os.Stderr
	in, err := relay.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := relay.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := relay.Start(); err != nil {
		t.Fatal(err)
	}
	s := &standIn{relay: relay, in: in}
	t.Cleanup(func() { s.end(t) })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("stand-in client: %v", err)
	}
	if _, err := fmt.Sscanf(line, "%d %s", &s.pid, &s.tty); err != nil {
		t.Fatalf("stand-in client: %q: %v", line, err)
	}
	return s
}

// send writes b to the client's terminal, as typed or as the terminal
// emulator reports a focus change.
func (s *standIn) send(t *testing.T, b string) {
	t.Helper()
	if _, err := io.WriteString(s.in, b); err != nil {
		t.Fatal(err)
	}
}

// end ends the client, as a person detaching from herdr does.
func (s *standIn) end(t *testing.T) {
	t.Helper()
	_ = s.in.Close()
	_ = s.relay.Wait()
}

// standInMain runs the role asked for and returns the exit code.
func standInMain(role string) int {
	var err error
	switch role {
	case "relay":
		err = relayMain()
	case "client":
		err = clientMain()
	default:
		err = fmt.Errorf("unknown role %q", role)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "stand-in", role+":", err)
		return 1
	}
	return 0
}

// relayMain starts the client on a new terminal, tells the test its pid
// and terminal once it reads in raw mode, and copies its own input to the
// terminal until the test closes it.
func relayMain() error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	client := exec.Command(exe)
	client.Env = append(os.Environ(), standInRole+"=client")
	ptmx, err := pty.Start(client)
	if err != nil {
		return fmt.Errorf("start the client: %w", err)
	}
	defer func() { _ = client.Process.Kill(); _ = client.Wait() }()
	ready := make([]byte, 0, 64)
	for !bytes.Contains(ready, []byte("ready")) {
		var b [64]byte
		n, err := ptmx.Read(b[:])
		if err != nil {
			return fmt.Errorf("wait for the client: %w", err)
		}
		ready = append(ready, b[:n]...)
	}
	go func() { _, _ = io.Copy(io.Discard, ptmx) }()
	tty, err := os.Readlink("/proc/" + strconv.Itoa(client.Process.Pid) + "/fd/0")
	if err != nil {
		return err
	}
	fmt.Printf("%d %s\n", client.Process.Pid, tty)
	_, err = io.Copy(ptmx, os.Stdin)
	return err
}

// clientMain reads its terminal in raw mode, as herdr's client does, so
// that each key or report is read as it comes, until the terminal closes.
func clientMain() error {
	tio, err := unix.IoctlGetTermios(0, unix.TCGETS)
	if err != nil {
		return fmt.Errorf("terminal: %w", err)
	}
	tio.Lflag &^= unix.ICANON | unix.ECHO
	tio.Cc[unix.VMIN], tio.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(0, unix.TCSETS, tio); err != nil {
		return fmt.Errorf("raw mode: %w", err)
	}
	fmt.Println("ready")
	var b [256]byte
	for {
		if _, err := os.Stdin.Read(b[:]); err != nil {
			return nil
		}
	}
}

// inotifyWatched says whether some inotify watch of this process is on
// the file at path: whether the daemon, which runs in this process,
// watches it. It reads the watches from /proc/self/fdinfo.
func inotifyWatched(t *testing.T, path string) bool {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		t.Fatal(err)
	}
	// The kernel shows the inode and its file system's device, as it
	// numbers devices inside (major << 20 | minor), in hex.
	dev := uint64(unix.Major(st.Dev))<<20 | uint64(unix.Minor(st.Dev))
	want := fmt.Sprintf("ino:%x sdev:%x ", st.Ino, dev)
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	for _, fd := range fds {
		if link, _ := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); link != "anon_inode:inotify" {
			continue
		}
		info, err := os.ReadFile(filepath.Join("/proc/self/fdinfo", fd.Name()))
		if err == nil && strings.Contains(string(info), want) {
			return true
		}
	}
	return false
}
