// Package nudge is the tiny datagram protocol between `herdrtabrenamer
// nudge` (run from shell hooks on every prompt) and the daemon. Sending must
// never block a prompt, so it is one non-blocking datagram on a Unix socket
// whose path is derived from the herdr socket it serves.
package nudge

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
)

// When says at which point of a shell command a nudge was sent.
type When string

// The moments a hook nudges from. After preexec the program does not
// exist yet, so the daemon re-checks the pane until its foreground group
// changes. WhenAgent is herdr's plugin event hook on an agent's status
// change: the one push of statuses herdr makes, which spares the daemon
// its status poll.
const (
	WhenNow     When = ""
	WhenPreexec When = "preexec"
	WhenPrecmd  When = "precmd"
	WhenAgent   When = "agent"
)

// ParseWhen checks a --when value.
func ParseWhen(s string) (When, error) {
	switch When(s) {
	case WhenNow, WhenPreexec, WhenPrecmd, WhenAgent:
		return When(s), nil
	}
	return "", fmt.Errorf("invalid --when %q: want preexec, precmd or agent", s)
}

// Message is one nudge. V is the format version; a daemon drops any
// datagram that is not a valid version-1 message.
type Message struct {
	V      int    `json:"v"`
	PaneID string `json:"pane"`
	When   When   `json:"when,omitempty"`
}

// MaxDatagram bounds what the daemon reads; real nudges are under 100 bytes.
const MaxDatagram = 512

// Encode validates and serialises a nudge.
func Encode(paneID string, when When) ([]byte, error) {
	if _, _, err := herdr.ParsePaneID(paneID); err != nil {
		return nil, err
	}
	if _, err := ParseWhen(string(when)); err != nil {
		return nil, err
	}
	return json.Marshal(Message{V: 1, PaneID: paneID, When: when})
}

// Decode parses a datagram; any error means "drop it".
func Decode(b []byte) (Message, error) {
	var m Message
	if len(b) == 0 || len(b) > MaxDatagram {
		return m, fmt.Errorf("nudge datagram of %d bytes", len(b))
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("nudge datagram: %w", err)
	}
	if m.V != 1 {
		return m, fmt.Errorf("nudge datagram version %d", m.V)
	}
	if _, _, err := herdr.ParsePaneID(m.PaneID); err != nil {
		return m, err
	}
	if _, err := ParseWhen(string(m.When)); err != nil {
		return m, err
	}
	return m, nil
}

// SocketPath is the daemon's nudge socket for a herdr server ("" when there
// is no private runtime dir; Send then says why).
func SocketPath(herdrSocket string) string {
	p, _ := rundir.NudgeSocket(herdrSocket)
	return p
}

// fullQueueWait is how long a nudge waits for room in a full queue.
var fullQueueWait = 50 * time.Millisecond

// write sends b, waiting at most fullQueueWait for room in a full queue:
// a stuck daemon must not keep a hook's process around. The wait starts
// only once the queue is found full. Counted from before the first try,
// it was spent before the write by a process that started slowly on a
// busy machine (61 ms in a loaded test run here), and a nudge to a queue
// with room was dropped as a timeout.
func write(conn *net.UnixConn, b []byte) error {
	rc, err := conn.SyscallConn()
	if err != nil {
		return err
	}
	var werr error
	if err := rc.Write(func(fd uintptr) bool {
		werr = writeOnce(fd, b)
		return true // one try; the wait below has a deadline
	}); err != nil {
		return err
	}
	if !wouldBlock(werr) {
		return werr
	}
	_ = conn.SetWriteDeadline(time.Now().Add(fullQueueWait))
	_, err = conn.Write(b)
	return err
}

// ErrNoDaemon means nothing listens on the nudge socket.
var ErrNoDaemon = errors.New("no herdrtabrenamer daemon is running")

// Send writes one nudge datagram without waiting for anyone. A missing
// socket or refused connection is ErrNoDaemon (wrapped with the path).
func Send(socketPath, paneID string, when When) error {
	if err := Available(); err != nil {
		return err
	}
	b, err := Encode(paneID, when)
	if err != nil {
		return err
	}
	conn, err := dial(socketPath)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := write(conn, b); err != nil {
		if isRefused(err) {
			return fmt.Errorf("%w (no listener on %s)", ErrNoDaemon, socketPath)
		}
		return fmt.Errorf("nudge %s: %w", socketPath, err)
	}
	return nil
}

// Probe reports whether Send would reach a daemon at socketPath, with
// Send's own checks and errors, and sends nothing: connecting a datagram
// socket only names the peer. status checks the nudge path with it.
func Probe(socketPath string) error {
	if err := Available(); err != nil {
		return err
	}
	conn, err := dial(socketPath)
	if err != nil {
		return err
	}
	return conn.Close()
}

// dial connects to the daemon's nudge socket.
func dial(socketPath string) (*net.UnixConn, error) {
	if socketPath == "" {
		_, err := rundir.Path()
		return nil, fmt.Errorf("nudge: %w", err)
	}
	// Each nudge tells when a command starts and ends: never hand that to
	// a socket in a directory someone else controls.
	if err := senderCheck(filepath.Dir(socketPath)); err != nil {
		return nil, err
	}
	conn, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: socketPath, Net: "unixgram"})
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || isRefused(err) {
			return nil, fmt.Errorf("%w (no socket at %s)", ErrNoDaemon, socketPath)
		}
		return nil, fmt.Errorf("nudge %s: %w", socketPath, err)
	}
	return conn, nil
}
