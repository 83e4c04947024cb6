package nudge

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestEncodeDecodeRoundTrip(t *testing.T) {
	for _, w := range []When{WhenNow, WhenPreexec, WhenPrecmd, WhenAgent} {
		b, err := Encode("w1:pA", w)
		if err != nil {
			t.Fatal(err)
		}
		m, err := Decode(b)
		if err != nil {
			t.Fatalf("decode %s: %v", b, err)
		}
		if m.PaneID != "w1:pA" || m.When != w || m.V != 1 {
			t.Fatalf("round trip of %q gave %+v", w, m)
		}
	}
}

func TestDecodeDropsJunk(t *testing.T) {
	junk := []string{
		"", "garbage", "{}", `{"v":2,"pane":"w1:p1"}`, `{"v":1,"pane":"bogus"}`,
		`{"v":1,"pane":"w1:p1","when":"later"}`, `{"v":1,"pane":"w1:pl"}`,
		`{"v":1,"pane":"w1:p1"` + strings.Repeat(" ", MaxDatagram) + `}`,
	}
	for _, j := range junk {
		if _, err := Decode([]byte(j)); err == nil {
			t.Errorf("Decode(%.40q) accepted junk", j)
		}
	}
}

func TestEncodeRejectsBadInput(t *testing.T) {
	if _, err := Encode("p3", WhenNow); err == nil || !strings.Contains(err.Error(), `invalid pane id "p3"`) {
		t.Fatalf("bad pane id: %v", err)
	}
	if _, err := Encode("w1:p3", "soon"); err == nil || !strings.Contains(err.Error(), "--when") {
		t.Fatalf("bad when: %v", err)
	}
}

func TestSendWithoutDaemon(t *testing.T) {
	dir := t.TempDir()
	err := Send(filepath.Join(dir, "missing.nudge"), "w1:p1", WhenNow)
	if !errors.Is(err, ErrNoDaemon) {
		t.Fatalf("missing socket: %v, want ErrNoDaemon", err)
	}
	// A stale socket file with no listener is no daemon either.
	path := filepath.Join(dir, "stale.nudge")
	c, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if _, err := os.Stat(path); err != nil {
		// Go removes the file on Close; recreate a dead one.
		f, _ := os.Create(path)
		f.Close()
	}
	if err := Send(path, "w1:p1", WhenNow); !errors.Is(err, ErrNoDaemon) {
		t.Fatalf("stale socket: %v", err)
	}
}

func TestSendDelivers(t *testing.T) {
	path, c := listen(t)
	if err := Send(path, "w2:p11", WhenPreexec); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, MaxDatagram)
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, err := c.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Decode(buf[:n])
	if err != nil || m.PaneID != "w2:p11" || m.When != WhenPreexec {
		t.Fatalf("got %+v, %v", m, err)
	}
}

func TestSocketPathIsShortAndPerServer(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1000")
	a := SocketPath("/home/u/.config/herdr/herdr.sock")
	b := SocketPath("/home/u/.config/herdr/sessions/work/herdr.sock")
	if a == b {
		t.Fatal("two herdr servers share a nudge socket")
	}
	if !strings.HasPrefix(a, "/run/user/1000/herdrtabrenamer/") || len(a) > 100 {
		t.Fatalf("socket path %q", a)
	}
}

// A nudge tells when each command starts and ends: it is never sent into a
// directory that is a symlink or someone else's.
func TestSendRefusesADirectoryThatIsNotOurs(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	err := Send(filepath.Join(link, "d.nudge"), "w1:p1", WhenNow)
	if err == nil || !strings.Contains(err.Error(), "refusing") {
		t.Fatalf("Send through a symlinked dir = %v, want a refusal", err)
	}
}

// A hook's nudge can start on a machine so busy that its wait budget is
// spent before it reaches the write (a loaded test run here took 61 ms
// from start to write). The budget is for a full queue only: a queue with
// room takes the datagram however late the process got there.
func TestSendALateProcessStillDelivers(t *testing.T) {
	path, c := listen(t)
	defer setFullQueueWait(0)() // spent before the write
	if err := Send(path, "w1:p3", WhenPrecmd); err != nil {
		t.Fatalf("send with room in the queue: %v", err)
	}
	buf := make([]byte, MaxDatagram)
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(buf); err != nil {
		t.Fatal(err)
	}
}

// A receive queue nobody reads fills up; a nudge then gives up after its
// wait instead of hanging, and says so.
func TestSendGivesUpOnAFullQueue(t *testing.T) {
	path, _ := listen(t) // open, and never read
	defer setFullQueueWait(10 * time.Millisecond)()
	var err error
	for i := 0; i < 10000 && err == nil; i++ { // the kernel's queue limit, net.unix.max_dgram_qlen, is 10 by default
		err = Send(path, "w1:p3", WhenPrecmd)
	}
	if err == nil {
		t.Fatal("10000 nudges into a queue nobody reads all sent")
	}
	if !errors.Is(err, os.ErrDeadlineExceeded) || !strings.Contains(err.Error(), path) {
		t.Errorf("full queue: %v, want a timeout naming %s", err, path)
	}
}

// listen is a daemon's nudge socket in a temporary directory, closed when
// the test ends.
func listen(t *testing.T) (string, *net.UnixConn) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "d.nudge")
	c, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return path, c
}

// TestProbeAnswersAsSend: Probe fails where Send fails, with the same
// error, and sends nothing where Send gets through.
func TestProbeAnswersAsSend(t *testing.T) {
	dir, err := os.MkdirTemp("", "nudge") // a short path: sun_path has 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for _, tc := range []struct {
		name string
		make func(path string) error
	}{
		{"missing", func(string) error { return nil }},
		{"a file", func(p string) error { return os.WriteFile(p, nil, 0o600) }},
		{"a folder", func(p string) error { return os.Mkdir(p, 0o700) }},
	} {
		path := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "-"))
		if err := tc.make(path); err != nil {
			t.Fatal(err)
		}
		perr, serr := Probe(path), Send(path, "w1:p1", WhenNow)
		if !errors.Is(perr, ErrNoDaemon) || fmt.Sprint(perr) != fmt.Sprint(serr) {
			t.Errorf("%s: Probe %v, Send %v; want the same ErrNoDaemon", tc.name, perr, serr)
		}
	}
	path := filepath.Join(dir, "live")
	c, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := Probe(path); err != nil {
		t.Fatalf("Probe of a listening socket: %v", err)
	}
	if err := Send(path, "w1:p7", WhenNow); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, MaxDatagram)
	n, err := c.Read(buf)
	if m, derr := Decode(buf[:n]); err != nil || derr != nil || m.PaneID != "w1:p7" {
		t.Fatalf("first datagram %q (%v, %v), want the nudge for w1:p7: Probe sent something", buf[:n], err, derr)
	}
}
