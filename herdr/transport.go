package herdr

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"syscall"
	"time"
)

// How a request reaches herdr. herdr looks for a new connection's request
// line once, right after accepting it, and sleeps its 100 ms read poll
// when the line is not there yet (docs/herdr.md §2). On Linux every
// request therefore goes out as a CONNECT linked to a SEND in one
// io_uring submission that also waits for both (package uring): the line
// is in the socket before this process can be switched out. Where
// io_uring is missing or refused, requests take the plain path, a
// connect and then a write, decided once per process; there a late read
// goes out twice (hedge.go).

// PlainRequestsEnv, set to any non-empty value, makes this process send
// every request the plain way, as where io_uring is refused: for the
// bench and tests that measure or check that path.
const PlainRequestsEnv = "HERDRTABRENAMER_PLAIN_REQUESTS"

// wire is one connection to herdr, its request line already sent: a
// net.Conn on the plain path, the socket's *os.File on io_uring's.
type wire interface {
	io.ReadWriteCloser
	SetDeadline(time.Time) error
}

// RequestPath says how this process's requests reach herdr.
type RequestPath struct {
	// Ring: a linked io_uring connect + send.
	Ring bool
	// Why the plain path, when not Ring: the kernel's refusal ("EPERM",
	// "lacks SEND"), PlainRequestsEnv, or the platform.
	Why string
	// Errno is the kernel's refusal, 0 when there was none.
	Errno syscall.Errno
}

func (p RequestPath) String() string {
	if p.Ring {
		return "io_uring linked connect+send"
	}
	return "plain connect+write (" + p.Why + ")"
}

// ringSender is what the plain path needs of io_uring: uring.Pool on
// Linux.
type ringSender interface {
	ConnectSend(ctx context.Context, path string, line []byte, deadline time.Time) (*os.File, error)
}

// transport is the process's choice of path, made at the first request.
type transport struct {
	once sync.Once
	mu   sync.Mutex
	ring ringSender // nil: the plain path
	path RequestPath
}

var process transport

// sender returns the ring requests go through, nil for the plain path.
// The first call decides, and says so once at debug level when io_uring
// cannot be used.
func (t *transport) sender(log *slog.Logger) ringSender {
	t.once.Do(func() {
		ring, path := openRing()
		if os.Getenv(PlainRequestsEnv) != "" {
			ring, path = nil, RequestPath{Why: PlainRequestsEnv + " is set"}
		}
		t.mu.Lock()
		t.ring, t.path = ring, path
		t.mu.Unlock()
		if !path.Ring {
			log.Debug("herdr: requests take a plain connect and write", "why", path.Why)
		}
	})
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ring
}

// giveUp moves the process to the plain path after the ring failed in a
// way that does not pass (err matched uring.ErrBroken).
func (t *transport) giveUp(log *slog.Logger, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ring == nil {
		return
	}
	t.ring = nil
	t.path = RequestPath{Why: "io_uring failed: " + err.Error()}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		t.path.Errno = errno
	}
	log.Debug("herdr: requests take a plain connect and write from now on", "why", err)
}

func (t *transport) current() RequestPath {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.path
}

// WithPlainRequests sends this client's requests the plain way, as where
// io_uring is refused: for the bench, which measures both paths in one
// process.
func WithPlainRequests() Option {
	return func(c *Client) { c.plain = true }
}

// RequestPath says how this client's requests reach herdr, deciding it
// now if no request has yet.
func (c *Client) RequestPath() RequestPath {
	switch {
	case c.dial != nil:
		return RequestPath{Why: "a dialer of the caller's"}
	case c.plain:
		return RequestPath{Why: "WithPlainRequests"}
	}
	process.sender(c.log)
	return process.current()
}

// ring is the ring this client's requests go through, nil for the plain
// path.
func (c *Client) ring() ringSender {
	if c.dial != nil || c.plain {
		return nil
	}
	return process.sender(c.log)
}

// send opens a connection for one request and sends its line, on the
// process's path; the connection has the call's deadline, and the caller
// reads the reply and closes it.
func (c *Client) send(ctx context.Context, method string, line []byte, deadline time.Time) (wire, error) {
	if ring := c.ring(); ring != nil {
		f, err := ring.ConnectSend(ctx, c.path, line, deadline)
		switch {
		case err == nil:
			return withDeadline(ctx, c, method, f, deadline)
		case !errors.Is(err, errRingBroken):
			return nil, c.connectErr(ctx, method, deadline, err)
		}
		// Nothing was sent: the request goes the plain way.
		process.giveUp(c.log, err)
	}
	conn, err := c.connect(ctx, method, deadline)
	if err != nil {
		return nil, err
	}
	w, err := withDeadline(ctx, c, method, conn, deadline)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(line); err != nil {
		w.Close()
		return nil, c.transportErr(ctx, method, deadline, fmt.Errorf("write request: %w", err))
	}
	return w, nil
}

// withDeadline gives w the call's deadline for what is left of the call:
// the write on the plain path, the reply on both.
func withDeadline(ctx context.Context, c *Client, method string, w wire, deadline time.Time) (wire, error) {
	if err := w.SetDeadline(deadline); err != nil {
		w.Close()
		return nil, c.transportErr(ctx, method, deadline, fmt.Errorf("set deadline: %w", err))
	}
	return w, nil
}
