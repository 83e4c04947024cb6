package uring

import (
	"context"
	"errors"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A connect that the kernel keeps in flight (TCP to a listener whose
// accept queue is full: its SYNs are dropped) is cancelled and reaped
// when the deadline passes, and the ring serves the next request.
func TestAbandonCancelsInFlight(t *testing.T) {
	r := openRing(t)
	lfd, port := fullTCPListener(t)
	defer unix.Close(lfd)
	var held []int
	defer func() {
		for _, fd := range held {
			unix.Close(fd)
		}
	}()
	var stuck *request
	for range 16 {
		q := tcpRequest(t, port)
		start := time.Now()
		err := r.run(context.Background(), q, uint64(unix.SizeofSockaddrInet4), time.Now().Add(300*time.Millisecond))
		if err != nil {
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("run: %v, want the deadline's error", err)
			}
			if took := time.Since(start); took > 2*time.Second {
				t.Errorf("gave up after %v, deadline 300ms", took)
			}
			stuck = q
			unix.Close(q.fd)
			break
		}
		held = append(held, q.fd)
	}
	if stuck == nil {
		t.Skip("every connect got in: this kernel does not drop SYNs to a full accept queue")
	}
	if !stuck.complete() {
		t.Error("run returned with entries of its request still in flight")
	}
	if r.broken {
		t.Fatal("ring broken: the cancelled entries were not reaped")
	}
	f, err := r.ConnectSend(context.Background(), echoServer(t), []byte("ping\n"), time.Now().Add(5*time.Second))
	if err != nil {
		t.Fatalf("ring unusable after a cancel: %v", err)
	}
	if got := reply(t, f); got != "got ping\n" {
		t.Errorf("reply %q", got)
	}
}

// fullTCPListener listens on 127.0.0.1 with the smallest backlog and
// never accepts.
func fullTCPListener(t *testing.T) (fd, port int) {
	t.Helper()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := unix.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return fd, sa.(*unix.SockaddrInet4).Port
}

// tcpRequest is a request whose CONNECT goes to 127.0.0.1:port.
func tcpRequest(t *testing.T, port int) *request {
	t.Helper()
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	q := &request{fd: fd, line: []byte("x\n")}
	in := (*unix.RawSockaddrInet4)(unsafe.Pointer(&q.addr))
	in.Family = unix.AF_INET
	in.Port = uint16(port>>8 | port&0xff<<8)
	in.Addr = [4]byte{127, 0, 0, 1}
	return q
}
