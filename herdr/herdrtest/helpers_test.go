package herdrtest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// schemaOpt passes $HERDR_API_SCHEMA_DIR explicitly; without it the
// server falls back to `herdr api schema --json` or runs unchecked.
func schemaOpt(t *testing.T) herdrsim.Option {
	t.Helper()
	dir, _ := SchemaDir()
	return herdrsim.WithSchemaDir(dir)
}

func start(t *testing.T, opts ...herdrsim.Option) *herdrsim.Server {
	t.Helper()
	s := Start(t, append([]herdrsim.Option{schemaOpt(t), herdrsim.WithTick(10 * time.Millisecond), herdrsim.WithoutReadPoll()}, opts...)...)
	if !s.SchemasLoaded() {
		t.Log("schema checks are off for this run")
	}
	return s
}

// exchange sends raw bytes and returns everything read until the server
// closes, plus the read error that ended it (nil for EOF).
func exchange(t *testing.T, s *herdrsim.Server, raw string) (string, error) {
	t.Helper()
	c, err := net.Dial("unix", s.SocketPath())
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatalf("write: %v", err)
	}
	b, err := io.ReadAll(c)
	return string(b), err
}

// call sends one request and decodes the single answer line.
func call(t *testing.T, s *herdrsim.Server, method string, params any) map[string]any {
	t.Helper()
	req, _ := json.Marshal(map[string]any{"id": "t", "method": method, "params": params})
	out, err := exchange(t, s, string(req)+"\n")
	if err != nil {
		t.Fatalf("%s: read: %v", method, err)
	}
	if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") {
		t.Fatalf("%s: want exactly one line, got %q", method, out)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("%s: %v in %q", method, err, out)
	}
	return m
}

func result(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	r, ok := m["result"].(map[string]any)
	if !ok {
		t.Fatalf("no result in %v", m)
	}
	return r
}

func errCode(t *testing.T, m map[string]any) (string, string) {
	t.Helper()
	e, ok := m["error"].(map[string]any)
	if !ok {
		t.Fatalf("no error in %v", m)
	}
	return e["code"].(string), e["message"].(string)
}

// stream is an open events.subscribe connection.
type stream struct {
	c     *net.UnixConn
	r     *bufio.Reader
	lines chan string
	done  chan error
}

func subscribe(t *testing.T, s *herdrsim.Server, subs ...map[string]any) *stream {
	t.Helper()
	c, err := net.Dial("unix", s.SocketPath())
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	if subs == nil {
		subs = []map[string]any{}
	}
	req, _ := json.Marshal(map[string]any{"id": "sub", "method": "events.subscribe", "params": map[string]any{"subscriptions": subs}})
	if _, err := c.Write(append(req, '\n')); err != nil {
		t.Fatalf("write: %v", err)
	}
	st := &stream{c: c.(*net.UnixConn), r: bufio.NewReader(c), lines: make(chan string, 1024), done: make(chan error, 1)}
	go func() {
		for {
			l, err := st.r.ReadString('\n')
			if err != nil {
				st.done <- err
				close(st.lines)
				return
			}
			st.lines <- strings.TrimSuffix(l, "\n")
		}
	}()
	return st
}

func (st *stream) next(t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-st.lines:
		if !ok {
			t.Fatalf("stream ended: %v", <-st.done)
		}
		return l
	case <-time.After(10 * time.Second):
		t.Fatal("no line within 10s")
	}
	return ""
}

// mark matches a line holding every one of subs.
func mark(subs ...string) func(string) bool {
	return func(l string) bool {
		for _, s := range subs {
			if !strings.Contains(l, s) {
				return false
			}
		}
		return true
	}
}

// before reads st until a line matching each of marks has come, and
// returns the lines that came before the last of them, marks excluded. The
// test makes the marked events happen after everything it expects: a
// stream sends each subscription's events in the order they happened, so
// an extra event would be among the returned lines. Marks must match their
// own event only (by a label or id no other event has), or an extra event
// could pass for one.
func (st *stream) before(t *testing.T, marks ...func(string) bool) []string {
	t.Helper()
	var other []string
	left := slices.Clone(marks)
	for len(left) > 0 {
		l := st.next(t)
		i := slices.IndexFunc(left, func(m func(string) bool) bool { return m(l) })
		if i < 0 {
			other = append(other, l)
			continue
		}
		left = slices.Delete(left, i, i+1)
	}
	return other
}

// closed waits for the server to end the stream and returns the lines
// that came before the end.
func (st *stream) closed(t *testing.T) []string {
	t.Helper()
	var got []string
	deadline := time.After(10 * time.Second)
	for {
		select {
		case l, ok := <-st.lines:
			if !ok {
				return got
			}
			got = append(got, l)
		case <-deadline:
			t.Fatal("stream still open after 10s")
		}
	}
}

// recordingTB captures Errorf so a test can prove a violation is reported.
type recordingTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, strings.TrimSpace(fmt.Sprintf(format, args...)))
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

func mustJSON(t *testing.T, line string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(line), v); err != nil {
		t.Fatalf("%v in %q", err, line)
	}
}
