package herdrsim

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"syscall"
	"time"
	"unicode/utf8"
)

// errReadTimeout is herdr's "timed out reading api request".
var errReadTimeout = errors.New("timed out reading api request")

// readRequestLine reads up to the first newline without consuming anything
// after it, so that unread pipelined bytes make the kernel reset the peer
// on close, as with herdr's byte-at-a-time reader. The final chunk (ending
// in the newline) stays queued until finish is called.
//
// With the read poll on (herdr's way, docs/herdr.md §2) every read is
// non-blocking, and whenever nothing is waiting the connection sleeps
// ReadPollInterval before it looks again: the first look is right after
// accept, so a request line that is not there yet is noticed only at the
// next 100 ms boundary counted from accept. The deadline is checked only
// when a look finds nothing, as herdr does.
func (s *Server) readRequestLine(c *net.UnixConn, stop chan struct{}) (line []byte, finish func() error, err error) {
	rc, err := c.SyscallConn()
	if err != nil {
		return nil, nil, err
	}
	deadline := time.Now().Add(s.cfg.readTimeout)
	if s.cfg.noReadPoll {
		if err := c.SetReadDeadline(deadline); err != nil {
			return nil, nil, err
		}
	}
	buf := make([]byte, 64<<10)
	var look time.Time // when herdr's current look began, on its timeline
	for {
		first := look.IsZero()
		if first {
			look = time.Now()
		}
		n, rerr, err := s.peekOnce(rc, buf, first)
		if err != nil {
			return nil, nil, err
		}
		if rerr == syscall.EAGAIN {
			if look, err = s.nextLook(look, deadline, stop); err != nil {
				return nil, nil, err
			}
			continue
		}
		if rerr != nil {
			return nil, nil, rerr
		}
		if n == 0 {
			return nil, nil, io.ErrUnexpectedEOF
		}
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			if len(line)+i > maxRequestBytes {
				return nil, nil, errors.New("api request line is too large")
			}
			line = append(line, buf[:i]...)
			return line, func() error { _, err := io.ReadFull(c, buf[:i+1]); return err }, nil
		}
		if len(line)+n > maxRequestBytes {
			return nil, nil, errors.New("api request line is too large")
		}
		if _, err := io.ReadFull(c, buf[:n]); err != nil {
			return nil, nil, err
		}
		line = append(line, buf[:n]...)
	}
}

// peekOnce is one look at the connection: n bytes peeked into buf, or
// rerr EAGAIN when nothing is waiting and the read poll is on. err is a
// wait that failed, errReadTimeout when the read deadline passed.
func (s *Server) peekOnce(rc syscall.RawConn, buf []byte, first bool) (n int, rerr, err error) {
	if first && s.cfg.lateWrites && !s.cfg.noReadPoll {
		s.bump(&s.empty)
		return 0, syscall.EAGAIN, nil // herdr looked before the line came
	}
	if err := rc.Read(func(fd uintptr) bool {
		n, rerr = peek(fd, buf, !s.cfg.noReadPoll)
		if rerr == syscall.EAGAIN {
			s.bump(&s.empty)
		}
		if !s.cfg.noReadPoll {
			return rerr != syscall.EINTR // EAGAIN is "pending": handled by the caller
		}
		return rerr != syscall.EAGAIN && rerr != syscall.EINTR
	}); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			s.bump(&s.timeouts)
			return 0, nil, errReadTimeout
		}
		return 0, nil, err
	}
	return n, rerr, nil
}

// nextLook waits, after a look that found nothing, for the next one:
// ReadPollInterval after look began, on herdr's timeline. It returns when
// that look begins, errReadTimeout past the deadline and net.ErrClosed
// when the server stops.
func (s *Server) nextLook(look, deadline time.Time, stop chan struct{}) (time.Time, error) {
	if !time.Now().Before(deadline) {
		s.bump(&s.timeouts)
		return look, errReadTimeout
	}
	s.bump(&s.polls)
	look = look.Add(ReadPollInterval + ReadPollOvershoot)
	select {
	case <-time.After(time.Until(look)):
	case <-stop:
		return look, net.ErrClosed
	}
	return look, nil
}

func (s *Server) serve(c *net.UnixConn, stop chan struct{}) {
	defer s.wg.Done()
	defer s.closeConn(c)
	raw, finish, err := s.readRequestLine(c, stop)
	if err != nil {
		return // herdr drops these silently: no reply
	}
	line := bytes.TrimSpace(raw)
	if len(line) == 0 || !utf8.Valid(raw) {
		_ = finish() // the line was read, so the close is a clean EOF
		return
	}
	req, perr := parseRequest(line, s.methods)
	if perr != nil {
		_ = finish()
		s.writeChecked(c, "", errorLine("", "invalid_request", perr.Error()))
		return
	}
	fault, delay, refuse := s.admit(req.Method)
	if fault == FaultReset {
		return // the final chunk is still queued: close makes the peer's read fail with ECONNRESET
	}
	if err := finish(); err != nil {
		return
	}
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-stop:
			return
		}
	}
	if fault != 0 && fault != FaultEventsLost {
		s.applyFault(c, fault, req)
		return
	}
	if refuse {
		// 0.8.2+: after server.stop the socket thread turns away
		// everything but ping, before the app sees it (docs/herdr.md §3).
		s.check(LineRequest, line)
		s.writeChecked(c, req.Method, errorLine(req.ID, "server_unavailable", "server is shutting down"))
		return
	}
	if req.Method == "events.subscribe" {
		s.subscribe(c, req, stop, fault == FaultEventsLost)
		return
	}
	resp, accepted := s.dispatch(req)
	if accepted && req.Method != graphicsStream {
		s.check(LineRequest, line)
	}
	s.writeChecked(c, req.Method, resp)
}

// closeConn closes a served connection and drops it from the open ones.
func (s *Server) closeConn(c *net.UnixConn) {
	s.lmu.Lock()
	delete(s.open, c)
	s.lmu.Unlock()
	c.Close()
}

// admit counts a call to method and takes what the test set up for it:
// a fault, a delay, and whether a stopping server turns it away.
func (s *Server) admit(method string) (fault Fault, delay time.Duration, refuse bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[method]++
	fault = take(s.faults, method)
	delay = s.latency[method] + s.latency[""] + take(s.stalls, method)
	refuse = s.stopping && method != "ping" && method != "server.stop"
	return fault, delay, refuse
}

// writeChecked validates a direct response line and sends it.
func (s *Server) writeChecked(c net.Conn, method string, line []byte) {
	s.mu.Lock()
	rewrite := s.rewrite
	s.mu.Unlock()
	if rewrite != nil {
		line = rewrite(method, line)
	}
	if bytes.Contains(line, []byte(`"error":`)) && !bytes.Contains(line, []byte(`"result":`)) {
		s.check(LineError, line)
	} else {
		s.check(LineSuccess, line)
	}
	_ = writeLine(c, line)
}

func writeLine(c net.Conn, line []byte) error {
	if err := c.SetWriteDeadline(time.Now().Add(streamWriteTimeout)); err != nil {
		return err
	}
	_, err := c.Write(append(line[:len(line):len(line)], '\n'))
	return err
}

type errorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

type errorResponse struct {
	ID    string    `json:"id"`
	Error errorBody `json:"error"`
}

type successResponse struct {
	ID     string `json:"id"`
	Result any    `json:"result"`
}

func errorLine(id, code, msg string) []byte {
	b, _ := json.Marshal(errorResponse{ID: id, Error: errorBody{Code: code, Message: msg}})
	return b
}

// MaxRequestBytes is herdr's limit on a request line before its newline.
const MaxRequestBytes = 1 << 20
