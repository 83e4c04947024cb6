package herdrsim

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Rename is one tab.rename the server answered.
type Rename struct {
	TabID string
	Label string
	At    time.Time
}

// Server is a fake herdr server on a real Unix socket.
type Server struct {
	cfg      config
	rel      release
	path     string
	ownDir   string
	version  string
	methods  []string
	subTypes []string

	mu       sync.Mutex // session, hub, counters, faults, timers
	sess     session
	hub      hub
	calls    map[string]int
	conns    int
	polls    int // read polls: 100 ms sleeps waiting for a request line
	empty    int // looks for a request line that found nothing waiting
	timeouts int // connections dropped for sending no request line in time
	streams  int // event streams being served now
	lost     int // streams ended with events_lost
	rounds   int // stream rounds that sent events (per subscription)
	// panePolls counts the looks per-pane agent status entries took at
	// their pane in rounds with no event of it (PanePolls).
	panePolls int
	idRounds  map[string]int // rounds by the subscribe request's id
	held      bool           // HoldEvents: stream rounds send nothing
	// subs are the subscriptions of every open stream, for Undelivered;
	// taken counts event lines a round took from the ring and its stream
	// has not written yet, delivered those it wrote (EventsDelivered).
	subs      map[*[]*subscription]struct{}
	taken     int
	delivered int
	stopping  bool // server.stop was answered (0.8.2+): only ping works
	renames   []Rename
	wsNames   []WorkspaceRename
	latency   map[string]time.Duration
	faults    []pending[Fault]
	stalls    []pending[time.Duration]
	timers    map[*time.Timer]struct{}
	dropSubs  chan struct{} // closed by DropSubscriptions; replaced after
	loseSubs  chan struct{} // closed by LoseEvents; replaced after

	lmu     sync.Mutex // listener and open connections
	ln      *net.UnixListener
	open    map[net.Conn]struct{}
	stopCh  chan struct{}
	running bool
	closed  bool
	wg      sync.WaitGroup

	vmu        sync.Mutex
	violations []string

	// rewrite, when set, replaces a response line before it is checked
	// and sent; tests use it to prove that a bad line is caught.
	rewrite func(method string, line []byte) []byte
}

// New starts a simulated herdr server. Violations are collected for
// Violations (and passed to WithViolationHandler's func).
func New(opts ...Option) (*Server, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		o(&cfg)
	}
	rel, err := cfg.release()
	if err != nil {
		return nil, err
	}
	cfg.protocol = rel.protocol
	if cfg.tick <= 0 || cfg.readTimeout <= 0 {
		return nil, fmt.Errorf("tick %v and read timeout %v must be positive", cfg.tick, cfg.readTimeout)
	}
	s := &Server{cfg: cfg, rel: rel, version: rel.version,
		methods: methodsFor(rel), subTypes: subscriptionsFor(rel.plays),
		calls: map[string]int{}, latency: map[string]time.Duration{}, timers: map[*time.Timer]struct{}{},
		dropSubs: make(chan struct{}), loseSubs: make(chan struct{}), open: map[net.Conn]struct{}{}}
	// Above Linux's largest pid_max (2^22), so a made-up pid never names a
	// real process that a local /proc look could mistake for it.
	s.sess.nextPID = 1<<22 + 1000
	dir := cfg.dir
	if dir == "" && !cfg.offline {
		// short: sun_path holds 108 bytes
		if dir, err = os.MkdirTemp("", "herdrsim"); err != nil {
			return nil, fmt.Errorf("make socket dir: %w", err)
		}
		s.ownDir = dir
	}
	s.path = filepath.Join(dir, "herdr.sock")
	if cfg.offline {
		return s, nil
	}
	if err := s.listen(); err != nil {
		if s.ownDir != "" {
			os.RemoveAll(s.ownDir)
		}
		return nil, err
	}
	return s, nil
}

// SocketPath is the API socket (herdr.sock).
func (s *Server) SocketPath() string { return s.path }

// Protocol is the protocol number the server reports.
func (s *Server) Protocol() int { return s.cfg.protocol }

// Version is the herdr version the server reports.
func (s *Server) Version() string { return s.version }

// ReadPollOn reports whether herdr's 100 ms request-read poll is played.
func (s *Server) ReadPollOn() bool { return !s.cfg.noReadPoll }

func (s *Server) listen() error {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	if s.closed {
		return errors.New("server is closed")
	}
	if s.running {
		return errors.New("server is already listening")
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: s.path, Net: "unix"})
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.path, err)
	}
	if err := os.Chmod(s.path, 0o600); err != nil {
		ln.Close()
		return fmt.Errorf("chmod %s: %w", s.path, err)
	}
	s.ln, s.running, s.stopCh = ln, true, make(chan struct{})
	s.wg.Add(1)
	go s.accept(ln, s.stopCh)
	return nil
}

func (s *Server) accept(ln *net.UnixListener, stop chan struct{}) {
	defer s.wg.Done()
	for {
		c, err := ln.AcceptUnix()
		if err != nil {
			return
		}
		s.lmu.Lock()
		if !s.running || s.stopCh != stop {
			s.lmu.Unlock()
			c.Close()
			continue
		}
		s.open[c] = struct{}{}
		s.wg.Add(1)
		s.lmu.Unlock()
		s.mu.Lock()
		s.conns++
		s.mu.Unlock()
		go s.serve(c, stop)
	}
}

// Stop takes the server down: listener and every connection closed, the
// socket file removed. Session state survives for Restart.
func (s *Server) Stop() error {
	s.lmu.Lock()
	if !s.running {
		s.lmu.Unlock()
		return nil
	}
	s.running = false
	err := s.ln.Close()
	close(s.stopCh)
	for c := range s.open {
		c.Close()
	}
	s.lmu.Unlock()
	s.wg.Wait()
	if rmErr := os.Remove(s.path); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) && err == nil {
		err = fmt.Errorf("remove socket: %w", rmErr)
	}
	return err
}

// Restart listens again on the same path, as a herdr server started again
// after a stop: it restores the session it saved (ids, labels, focus, each
// pane's cwd), but the event ring starts empty and every pane comes back
// with a new terminal and shell, so what lived in the old terminal is gone
// (see freshTerminals). Shells a test attached with AttachProcess stay
// attached: the test owns them.
func (s *Server) Restart() error {
	if err := s.Stop(); err != nil {
		return err
	}
	s.mu.Lock()
	s.hub = hub{}
	s.stopping = false // a new server process
	s.freshTerminals()
	s.mu.Unlock()
	if s.cfg.offline {
		return nil
	}
	return s.listen()
}

// Close stops the server for good and removes its temporary directory.
func (s *Server) Close() error {
	err := s.Stop()
	s.lmu.Lock()
	s.closed = true
	s.lmu.Unlock()
	s.mu.Lock()
	for t := range s.timers {
		t.Stop()
	}
	s.timers = map[*time.Timer]struct{}{}
	s.mu.Unlock()
	if s.ownDir != "" {
		if rmErr := os.RemoveAll(s.ownDir); rmErr != nil && err == nil {
			err = rmErr
		}
	}
	return err
}

// ---- checks and misuse ----

// Violations lists every schema violation and API misuse seen so far.
func (s *Server) Violations() []string {
	s.vmu.Lock()
	defer s.vmu.Unlock()
	return append([]string(nil), s.violations...)
}

func (s *Server) report(msg string) {
	s.vmu.Lock()
	s.violations = append(s.violations, msg)
	s.vmu.Unlock()
	if s.cfg.onViolation != nil {
		s.cfg.onViolation(msg)
	}
}

// CheckLine validates one wire line against the played protocol's schema
// of the given kind. It reports nothing; nil also when schemas are off.
func (s *Server) CheckLine(kind LineKind, line []byte) error {
	if s.cfg.validator == nil {
		return nil
	}
	return s.cfg.validator.Validate(kind, line)
}

// SchemasLoaded reports whether lines are being checked against schemas.
func (s *Server) SchemasLoaded() bool { return s.cfg.validator != nil }

// RewriteResponses replaces each response line before it is checked and
// sent; tests use it to prove that a bad line is caught.
func (s *Server) RewriteResponses(f func(method string, line []byte) []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rewrite = f
}

func (s *Server) check(kind LineKind, line []byte) {
	if err := s.CheckLine(kind, line); err != nil {
		shown := line
		if len(shown) > 600 {
			shown = append(shown[:600:600], "…"...)
		}
		s.report(fmt.Sprintf("herdrsim: protocol %d %s line violates the schema: %v\n\tline: %s", s.cfg.protocol, kind, err, shown))
	}
}

func (s *Server) misuse(format string, args ...any) {
	s.report("herdrsim: " + fmt.Sprintf(format, args...))
}

// ---- one connection ----

// bump adds one to a counter of s's, under s.mu.
func (s *Server) bump(n *int) {
	s.mu.Lock()
	*n++
	s.mu.Unlock()
}
