package uring

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// waitSlice bounds one wait in the kernel, so that a cancelled context is
// noticed while a connect waits for a stalled server.
const waitSlice = 50 * time.Millisecond

// OpError is a request's CONNECT or SEND that the kernel carried out and
// that failed: errors.Is matches its errno (ENOENT, ECONNREFUSED, ...).
type OpError struct {
	Op  string // "connect" or "send"
	Err error
}

func (e *OpError) Error() string { return e.Op + ": " + e.Err.Error() }
func (e *OpError) Unwrap() error { return e.Err }

// ErrBroken matches (errors.Is) the error of a request that the ring
// could not carry: the kernel refused the submission itself, or did not
// complete it in time and left it in flight. Nothing was sent on the
// connection; the request may be sent again another way.
var ErrBroken = errors.New("io_uring could not carry the request")

// request is one CONNECT + SEND in flight: what the kernel reads from
// memory the garbage collector must not free until both complete.
type request struct {
	fd   int
	addr unix.RawSockaddrAny // a sockaddr_un for every request but tests'
	line []byte
	seq  uint64
	res  [2]int32 // CONNECT's and SEND's results
	done [2]bool
}

// ConnectSend opens a Unix stream socket, connects it to path and sends
// line on it: two linked entries, submitted and waited for in one call.
// It returns the connected socket, in non-blocking mode for Go's poller,
// to read the reply from. By deadline, or when ctx ends, it gives up:
// the entries are cancelled and reaped before it returns. A failed
// connect or send is an *OpError; an error that matches ErrBroken means
// the ring itself failed (the caller should stop using it).
func (r *Ring) ConnectSend(ctx context.Context, path string, line []byte, deadline time.Time) (*os.File, error) {
	if len(line) == 0 {
		return nil, errors.New("uring: empty request")
	}
	q := &request{line: line}
	addrLen, err := fillAddr((*unix.RawSockaddrUnix)(unsafe.Pointer(&q.addr)), path)
	if err != nil {
		return nil, &OpError{Op: "connect", Err: err}
	}
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		return nil, &OpError{Op: "socket", Err: err}
	}
	q.fd = fd
	err = r.run(ctx, q, addrLen, deadline)
	runtime.KeepAlive(q)
	if err == nil {
		err = q.result()
	}
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	f := os.NewFile(uintptr(fd), "unix:"+path)
	if sent := int(q.res[1]); sent < len(line) {
		// A short send: the rest goes out as a plain write would.
		if _, err := f.Write(line[sent:]); err != nil {
			f.Close()
			return nil, &OpError{Op: "send", Err: err}
		}
	}
	return f, nil
}

// result turns the two completions into the request's error, if any. A
// SEND cancelled because its CONNECT failed says nothing of its own.
func (q *request) result() error {
	if res := q.res[0]; res < 0 {
		return &OpError{Op: "connect", Err: unix.Errno(-res)}
	}
	if res := q.res[1]; res < 0 {
		return &OpError{Op: "send", Err: unix.Errno(-res)}
	}
	return nil
}

// fillAddr writes path as a sockaddr_un and returns its length.
func fillAddr(sa *unix.RawSockaddrUnix, path string) (uint64, error) {
	if len(path) == 0 || len(path) >= len(sa.Path) {
		return 0, fmt.Errorf("socket path of %d bytes: %w", len(path), unix.EINVAL)
	}
	sa.Family = unix.AF_UNIX
	for i := 0; i < len(path); i++ {
		sa.Path[i] = int8(path[i])
	}
	return uint64(unsafe.Offsetof(sa.Path)) + uint64(len(path)) + 1, nil
}

// run queues q's two linked entries and waits for both completions in
// the call that submits them.
func (r *Ring) run(ctx context.Context, q *request, addrLen uint64, deadline time.Time) error {
	r.seq++
	q.seq = r.seq
	r.push(sqe{opcode: opConnect, flags: sqeIOLink, fd: int32(q.fd),
		addr: uint64(uintptr(unsafe.Pointer(&q.addr))), off: addrLen, userData: q.seq << 1})
	r.push(sqe{opcode: opSend, fd: int32(q.fd), addr: uint64(uintptr(unsafe.Pointer(&q.line[0]))),
		len: uint32(len(q.line)), opFlags: unix.MSG_NOSIGNAL, userData: q.seq<<1 | 1})
	for !q.complete() {
		wait := min(time.Until(deadline), waitSlice)
		if wait <= 0 || ctx.Err() != nil {
			return r.abandon(ctx, q)
		}
		if err := r.enter(q.missing(), wait); err != nil {
			if r.unsubmitted() > 0 {
				// The kernel took nothing: nothing was sent, and the
				// queued entries must never go out with another request.
				r.broken = true
				return fmt.Errorf("%w: io_uring_enter: %w", ErrBroken, err)
			}
			r.abandon(ctx, q)
			return &OpError{Op: q.pendingOp(), Err: err}
		}
		r.reap(q.take)
	}
	return nil
}

func (q *request) complete() bool { return q.done[0] && q.done[1] }

func (q *request) missing() uint32 {
	n := uint32(0)
	for _, d := range q.done {
		if !d {
			n++
		}
	}
	return n
}

// take records a completion of q's; completions of an earlier request
// that gave up, and of cancels, are dropped.
func (q *request) take(c cqe) {
	if c.userData>>1 == q.seq && !isCancel(c.userData) {
		q.res[c.userData&1] = c.res
		q.done[c.userData&1] = true
	}
}

// cancelTag marks a cancel entry's own user_data.
const cancelTag = 1 << 63

func isCancel(userData uint64) bool { return userData&cancelTag != 0 }

// enter submits what is queued and waits up to wait for want completions.
// A wait that times out or is interrupted by a signal is no error: the
// caller looks at what completed and decides.
func (r *Ring) enter(want uint32, wait time.Duration) error {
	ts := unix.NsecToTimespec(int64(wait))
	arg := geteventsArg{ts: uint64(uintptr(unsafe.Pointer(&ts)))}
	_, _, errno := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(r.unsubmitted()), uintptr(want),
		enterGetEvents|enterExtArg, uintptr(unsafe.Pointer(&arg)), unsafe.Sizeof(arg))
	runtime.KeepAlive(&ts)
	switch errno {
	case 0, unix.ETIME, unix.EINTR:
		return nil
	case unix.EAGAIN, unix.EBUSY:
		// The kernel is short of resources for now (or the CQ ring is
		// full, which reaping cures): try again on the next turn.
		return nil
	}
	return errno
}

// abandon cancels q's entries that have not completed and reaps them, so
// that the ring holds nothing of q's when it is used again. A ring that
// cannot be brought back to that is marked broken.
func (r *Ring) abandon(ctx context.Context, q *request) error {
	why := context.DeadlineExceeded
	if err := ctx.Err(); err != nil {
		why = err
	}
	op := q.pendingOp()
	if r.unsubmitted() > 0 {
		// The kernel never took them: nothing is in flight, but the
		// entries must not be submitted with the next request.
		r.broken = true
		return &OpError{Op: op, Err: why}
	}
	for i, d := range q.done {
		if !d {
			r.push(sqe{opcode: opAsyncCancel, addr: q.seq<<1 | uint64(i), userData: cancelTag | q.seq})
		}
	}
	for end := time.Now().Add(time.Second); !q.complete() && time.Now().Before(end); {
		if r.enter(q.missing(), waitSlice) != nil {
			break
		}
		r.reap(q.take)
	}
	r.reap(q.take) // the cancels' own completions
	if !q.complete() || r.unsubmitted() > 0 {
		r.broken = true
	}
	return &OpError{Op: op, Err: why}
}

// pendingOp names the first of q's entries that has not completed.
func (q *request) pendingOp() string {
	if q.done[0] {
		return "send"
	}
	return "connect"
}
