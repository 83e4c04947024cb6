package uring

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openRing opens a ring or skips where this kernel refuses io_uring: the
// fallback is tested with a real refusal in package herdr.
func openRing(t testing.TB) *Ring {
	t.Helper()
	r, err := Open()
	if err != nil {
		t.Skipf("io_uring unavailable here: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// echoServer answers each connection's first line with "got " and that
// line, then closes it, as herdr answers one request per connection.
func echoServer(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				line, err := bufio.NewReaderSize(c, 64<<10).ReadBytes('\n')
				if err == nil {
					c.Write(append([]byte("got "), line...))
				}
			})
		}
	})
	return path
}

func reply(t testing.TB, f *os.File) string {
	t.Helper()
	defer f.Close()
	if err := f.SetDeadline(time.Now().Add(5 * time.Second)); err != nil {
		t.Fatalf("SetDeadline on the returned socket: %v", err)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatalf("read reply: %v", err)
	}
	return string(b)
}

func TestConnectSendCarriesOneRequest(t *testing.T) {
	r := openRing(t)
	path := echoServer(t)
	for _, line := range []string{"ping\n", strings.Repeat("x", 4<<20) + "\n"} {
		f, err := r.ConnectSend(context.Background(), path, []byte(line), time.Now().Add(5*time.Second))
		if err != nil {
			t.Fatalf("ConnectSend(%d bytes): %v", len(line), err)
		}
		if got := reply(t, f); got != "got "+line {
			t.Errorf("reply to %d bytes: %d bytes %q...", len(line), len(got), got[:min(len(got), 20)])
		}
	}
	if r.broken {
		t.Error("ring marked broken after requests that succeeded")
	}
}

// Connect failures are the kernel's errno, so callers tell "no server"
// from other trouble as they do after connect(2).
func TestConnectSendErrors(t *testing.T) {
	r := openRing(t)
	dir := t.TempDir()
	stale := filepath.Join(dir, "stale.sock")
	ln, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	for _, tc := range []struct {
		name, path string
		want       error
	}{
		{"missing socket", filepath.Join(dir, "none.sock"), unix.ENOENT},
		{"nobody listening", stale, unix.ECONNREFUSED},
		{"path too long", "/" + strings.Repeat("p", 200), unix.EINVAL},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.ConnectSend(context.Background(), tc.path, []byte("ping\n"), time.Now().Add(time.Second))
			var op *OpError
			if !errors.As(err, &op) || op.Op != "connect" || !errors.Is(err, tc.want) {
				t.Errorf("err = %v, want a connect *OpError matching %v", err, tc.want)
			}
		})
	}
	if r.broken {
		t.Error("ring marked broken by failed connects")
	}
}

// A server that never accepts fills its backlog; the next request then
// fails at once with EAGAIN, as connect(2) on a non-blocking Unix socket
// does (and so Go's net.Dial), and the ring stays usable.
func TestConnectSendFullBacklog(t *testing.T) {
	r := openRing(t)
	path := filepath.Join(t.TempDir(), "full.sock")
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	if err := unix.Bind(fd, &unix.SockaddrUnix{Name: path}); err != nil {
		t.Fatal(err)
	}
	if err := unix.Listen(fd, 0); err != nil {
		t.Fatal(err)
	}
	var held []*os.File
	defer func() {
		for _, f := range held {
			f.Close()
		}
	}()
	for range 8 {
		f, err := r.ConnectSend(context.Background(), path, []byte("x\n"), time.Now().Add(time.Second))
		if err != nil {
			if !errors.Is(err, unix.EAGAIN) {
				t.Fatalf("err = %v, want EAGAIN", err)
			}
			break
		}
		held = append(held, f)
	}
	if len(held) == 8 {
		t.Fatal("8 connections got into a backlog of 0")
	}
	if r.broken {
		t.Fatal("ring broken by a refused connect")
	}
	f, err := r.ConnectSend(context.Background(), echoServer(t), []byte("ping\n"), time.Now().Add(5*time.Second))
	if err != nil {
		t.Fatalf("ring unusable after EAGAIN: %v", err)
	}
	if got := reply(t, f); got != "got ping\n" {
		t.Errorf("reply %q", got)
	}
}

// Concurrent requests through one pool each get their own reply.
func TestPoolConcurrent(t *testing.T) {
	p, err := NewPool(3)
	if err != nil {
		t.Skipf("io_uring unavailable here: %v", err)
	}
	path := echoServer(t)
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			for j := range 20 {
				line := []byte(strings.Repeat("a", i+1) + string(rune('0'+j%10)) + "\n")
				f, err := p.ConnectSend(context.Background(), path, line, time.Now().Add(5*time.Second))
				if err != nil {
					t.Errorf("ConnectSend: %v", err)
					return
				}
				if got := reply(t, f); got != "got "+string(line) {
					t.Errorf("reply %q to %q", got, line)
				}
			}
		})
	}
	wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n < 1 || n > 3 {
		t.Errorf("%d free rings after the requests, want 1 to 3", n)
	}
}

func TestRefusedErrorSays(t *testing.T) {
	for _, tc := range []struct {
		err   *RefusedError
		short string
		is    error
	}{
		{&RefusedError{Step: "io_uring_setup", Errno: unix.EPERM}, "EPERM", unix.EPERM},
		{&RefusedError{Step: "io_uring_setup", Errno: unix.ENOSYS}, "ENOSYS", unix.ENOSYS},
		{&RefusedError{Step: "probe", Missing: "SEND"}, "lacks SEND", nil},
	} {
		if got := tc.err.Short(); got != tc.short {
			t.Errorf("Short() = %q, want %q", got, tc.short)
		}
		if tc.is != nil && !errors.Is(tc.err, tc.is) {
			t.Errorf("%v does not match %v", tc.err, tc.is)
		}
		if !bytes.Contains([]byte(tc.err.Error()), []byte("io_uring")) {
			t.Errorf("Error() = %q, says nothing of io_uring", tc.err.Error())
		}
	}
}
