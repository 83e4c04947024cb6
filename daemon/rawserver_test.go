package daemon

import (
	"bufio"
	"encoding/json"
	"net"
	"path/filepath"
	"sync"
	"testing"
)

// rawServer is a minimal hostile herdr: it answers ping and
// session.snapshot with an empty session and acks every subscription,
// then does whatever onSubscribe says (by default: close at once). It
// exists for faults the simulator does not play.
type rawServer struct {
	path string
	ln   net.Listener

	mu     sync.Mutex
	counts map[string]int
	order  []string // methods in the order they came
	// onSubscribe runs after the ack; the connection closes when it
	// returns.
	onSubscribe func(c net.Conn, n int, id string)
	// plugins, when set, answers plugin.list; its nil is an error.
	plugins func() []map[string]any
}

func startRawServer(t *testing.T) *rawServer {
	t.Helper()
	s := &rawServer{path: filepath.Join(t.TempDir(), "herdr.sock"), counts: map[string]int{}}
	ln, err := net.Listen("unix", s.path)
	if err != nil {
		t.Fatal(err)
	}
	s.ln = ln
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(c)
		}
	}()
	return s
}

func (s *rawServer) count(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[method]
}

// methods lists the requests so far, in order.
func (s *rawServer) methods() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.order...)
}

func (s *rawServer) serve(c net.Conn) {
	defer c.Close()
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		return
	}
	var req struct {
		ID     string `json:"id"`
		Method string `json:"method"`
	}
	if json.Unmarshal(line, &req) != nil {
		return
	}
	s.mu.Lock()
	s.counts[req.Method]++
	s.order = append(s.order, req.Method)
	n := s.counts[req.Method]
	on, plugins := s.onSubscribe, s.plugins
	s.mu.Unlock()
	var result any
	switch req.Method {
	case "ping":
		result = map[string]any{"type": "pong", "version": "0.8.2", "protocol": 20}
	case "session.snapshot":
		result = map[string]any{"type": "session_snapshot", "snapshot": map[string]any{
			"version": "0.8.2", "protocol": 20, "workspaces": []any{}, "tabs": []any{}, "panes": []any{}, "layouts": []any{}, "agents": []any{},
		}}
	case "events.subscribe":
		result = map[string]any{"type": "subscription_started"}
	case "plugin.list":
		if plugins == nil {
			b, _ := json.Marshal(map[string]any{"id": "", "error": map[string]string{"code": "invalid_request", "message": "unknown variant `plugin.list`"}})
			_, _ = c.Write(append(b, '\n'))
			return
		}
		listed := plugins()
		if listed == nil { // herdr failing to read its registry
			b, _ := json.Marshal(map[string]any{"id": req.ID, "error": map[string]string{"code": "plugin_registry_load_failed", "message": "no"}})
			_, _ = c.Write(append(b, '\n'))
			return
		}
		result = map[string]any{"type": "plugin_list", "plugins": listed}
	default:
		b, _ := json.Marshal(map[string]any{"id": req.ID, "error": map[string]string{"code": "unknown_method", "message": "no"}})
		_, _ = c.Write(append(b, '\n'))
		return
	}
	b, _ := json.Marshal(map[string]any{"id": req.ID, "result": result})
	if _, err := c.Write(append(b, '\n')); err != nil {
		return
	}
	if req.Method == "events.subscribe" && on != nil {
		on(c, n, req.ID)
	}
}
