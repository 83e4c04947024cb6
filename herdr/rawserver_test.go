package herdr

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// A raw Unix-socket server for transport tests: each test decides byte by
// byte what the "server" does, which herdrtest (a faithful fake) must not.

const waitLong = 10 * time.Second // generous: machines are shared and slow

type rawServer struct {
	t     testing.TB
	path  string
	ln    *net.UnixListener
	wg    sync.WaitGroup
	conns atomic.Int64
}

// shortTempDir keeps socket paths far below sun_path's 108 bytes.
func shortTempDir(t testing.TB) string {
	dir, err := os.MkdirTemp("", "h")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func startRaw(t testing.TB, handle func(c *rawConn)) *rawServer {
	t.Helper()
	path := filepath.Join(shortTempDir(t), "herdr.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	s := &rawServer{t: t, path: path, ln: ln}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			conn, err := ln.AcceptUnix()
			if err != nil {
				return
			}
			s.conns.Add(1)
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer conn.Close()
				_ = conn.SetDeadline(time.Now().Add(waitLong))
				handle(&rawConn{t: t, UnixConn: conn, br: bufio.NewReader(conn)})
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		s.wg.Wait()
	})
	return s
}

type rawConn struct {
	t testing.TB
	*net.UnixConn
	br *bufio.Reader
}

type wireRequest struct {
	ID     string          `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// readRequest reads the request line and checks what every request must
// look like: one compact JSON object, params an object, one "\n".
func (c *rawConn) readRequest() (wireRequest, []byte) {
	c.t.Helper()
	line, err := c.br.ReadBytes('\n')
	if err != nil {
		c.t.Errorf("server: read request: %v (got %q)", err, line)
		return wireRequest{}, line
	}
	body := line[:len(line)-1]
	if bytes.ContainsAny(body, "\r\n") {
		c.t.Errorf("server: request %q has more than one line ending", line)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, body); err != nil || !bytes.Equal(compact.Bytes(), body) {
		c.t.Errorf("server: request %q is not compact JSON (%v)", line, err)
	}
	var req wireRequest
	if err := json.Unmarshal(body, &req); err != nil {
		c.t.Errorf("server: request %q: %v", line, err)
	}
	if len(req.Params) == 0 || req.Params[0] != '{' {
		c.t.Errorf("server: request %q: params %q is not an object", line, req.Params)
	}
	if req.ID == "" || req.Method == "" {
		c.t.Errorf("server: request %q lacks id or method", line)
	}
	return req, line
}

func (c *rawConn) write(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c, s); err != nil {
		c.t.Errorf("server: write: %v", err)
	}
}

// expectCleanClose asserts the client sent nothing after its request line
// and closed (EOF, not a half-close followed by more bytes).
func (c *rawConn) expectCleanClose() {
	c.t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(waitLong))
	extra, err := io.ReadAll(c.br)
	if err != nil {
		c.t.Errorf("server: waiting for the client to close: %v", err)
	}
	if len(extra) > 0 {
		c.t.Errorf("server: client wrote %d bytes after its request line: %q", len(extra), extra)
	}
}

// countingConn counts Write calls so tests can prove one write per
// connection.
type countingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c countingConn) Write(b []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(b)
}

func countWrites(c *Client) *atomic.Int64 {
	n := new(atomic.Int64)
	c.dial = func(ctx context.Context, path string) (net.Conn, error) {
		var d net.Dialer
		conn, err := d.DialContext(ctx, "unix", path)
		if err != nil {
			return nil, err
		}
		return countingConn{Conn: conn, writes: n}, nil
	}
	return n
}

type logBuffer = testutil.Buffer

func newLogger() (*slog.Logger, *logBuffer) {
	b := &logBuffer{}
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug})), b
}

func asTransport(t *testing.T, err error) *TransportError {
	t.Helper()
	var te *TransportError
	if !errors.As(err, &te) {
		t.Fatalf("error %v (%T) is not a *TransportError", err, err)
	}
	return te
}
