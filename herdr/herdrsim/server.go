package herdrsim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"
)

// Limits of herdr's connection handling (docs/herdr.md §2).
const (
	maxRequestBytes     = MaxRequestBytes
	defaultReadTimeout  = 5 * time.Second
	streamWriteTimeout  = 5 * time.Second
	defaultTick         = 100 * time.Millisecond
	defaultProtocol     = 22
	capabilityHandoff   = true
	capabilityDetached  = true
	eventRingCapacity   = 512
	maxSequencedSources = 32
	// ReadPollInterval is herdr's CONNECTION_POLL_INTERVAL: how long a
	// connection thread sleeps when its request line has not arrived yet.
	ReadPollInterval = 100 * time.Millisecond
	// ReadPollOvershoot is how much longer than asked each of those
	// sleeps lasts: herdr's std::thread::sleep is a nanosleep, which on
	// Linux wakes after the kernel's 50 µs timer slack plus the wake-up
	// (docs/herdr.md §2). Go's timers are coarser when a process idles
	// (up to a millisecond late, every time); the simulator keeps to
	// herdr's timeline instead, so that their lateness does not add up
	// over a connection's life.
	ReadPollOvershoot = 100 * time.Microsecond
)

type config struct {
	protocol    int    // 0: the release's, or defaultProtocol
	version     string // "": the protocol's default release
	tick        time.Duration
	schemaDir   string
	dir         string
	readTimeout time.Duration
	noSchemas   bool
	offline     bool
	noReadPoll  bool
	lateWrites  bool
	validator   Validator
	onViolation func(msg string)
}

// Option configures a Server.
type Option func(*config)

// WithProtocol picks the protocol to play: 17, 19, 20 or 22 (default 22),
// as its release does (17: 0.7.5, 19: 0.8.0, 20: 0.8.2, 22: 0.9.1). 21, a
// development build between 0.8.2 and 0.9.0, plays as 20; a number above 22
// plays as 22 but reports itself, like an unknown newer herdr.
func WithProtocol(p int) Option { return func(c *config) { c.protocol = p } }

// WithRelease picks the herdr release to play by its version ("0.7.5",
// "0.8.0", "0.8.2", "0.9.0" ... "0.9.3", see Releases); ping reports it,
// and its protocol follows.
func WithRelease(version string) Option { return func(c *config) { c.version = version } }

// WithoutReadPoll turns off herdr's request-read poll, which is on by
// default: herdr reads a request line non-blocking and sleeps 100 ms
// whenever it has not arrived yet, so each request can take 0-100 ms
// longer (docs/herdr.md §2). For unit tests that do not measure latency;
// demo, benchmarks and the integration suite keep it on.
func WithoutReadPoll() Option { return func(c *config) { c.noReadPoll = true } }

// WithLateWrites makes every client lose the race with herdr's first look
// at a new connection: the look at accept finds nothing, as happens when
// herdr runs before the client's write (docs/herdr.md §2), so a request on
// a fresh connection waits one poll. A request written on a connection
// opened earlier is read at its next look as usual.
func WithLateWrites() Option { return func(c *config) { c.lateWrites = true } }

// WithTick sets the event stream tick (default 100 ms, herdr's own).
func WithTick(d time.Duration) Option { return func(c *config) { c.tick = d } }

// WithSchemaDir names the directory of protocol-N.schema.json files
// (default $HERDR_API_SCHEMA_DIR, else `herdr api schema --json`).
func WithSchemaDir(dir string) Option { return func(c *config) { c.schemaDir = dir } }

// WithoutSchemas tells herdrtest not to load schemas (the simulator itself
// never does).
func WithoutSchemas() Option { return func(c *config) { c.noSchemas = true } }

// Offline makes a server that listens on no socket: requests reach it
// only through Do, one at a time, in the order a test schedules them.
func Offline() Option { return func(c *config) { c.offline = true } }

// Validator checks one wire line against the played protocol's schema.
// herdrtest supplies one built on herdr's JSON schemas; keeping it behind
// this seam keeps the schema library out of the herdrtabrenamer binary,
// whose `demo` embeds the simulator.
type Validator interface {
	Validate(kind LineKind, line []byte) error
}

// WithValidator checks every request received and every line sent.
func WithValidator(v Validator) Option { return func(c *config) { c.validator = v } }

// WithViolationHandler is called with each schema violation or API misuse
// (herdrtest passes t.Errorf); they are also kept for Violations.
func WithViolationHandler(f func(msg string)) Option {
	return func(c *config) { c.onViolation = f }
}

// Settings are the options that matter to a validator loader.
type Settings struct {
	Protocol       int // reported
	SchemaProtocol int // whose schema the played lines follow
	SchemaDir      string
	NoSchemas      bool
}

// SettingsOf applies opts to the defaults and reports the protocol and
// schema choices, so herdrtest can load the right schema before New.
func SettingsOf(opts []Option) (Settings, error) {
	c := defaultConfig()
	for _, o := range opts {
		o(&c)
	}
	r, err := c.release()
	if err != nil {
		return Settings{}, err
	}
	return Settings{Protocol: r.protocol, SchemaProtocol: r.plays, SchemaDir: c.schemaDir, NoSchemas: c.noSchemas}, nil
}

// release resolves WithRelease and WithProtocol (default: protocol 22).
func (c config) release() (release, error) {
	if c.protocol == 0 && c.version == "" {
		c.protocol = defaultProtocol
	}
	return resolveRelease(c.version, c.protocol)
}

func defaultConfig() config {
	return config{tick: defaultTick, readTimeout: defaultReadTimeout}
}

// LineKind says which of the five schemas of a protocol document covers a line.
type LineKind int

// The line kinds, one per entry of the schema document's "schemas" object.
const (
	LineRequest LineKind = iota
	LineSuccess
	LineError
	LineEvent             // bus events ("tab_renamed" dialect)
	LineSubscriptionEvent // per-pane events ("pane.agent_status_changed" dialect)
)

var lineKindNames = [...]string{"request", "success_response", "error_response", "event", "subscription_event"}

// String is the kind's key in the schema document.
func (k LineKind) String() string {
	if k >= 0 && int(k) < len(lineKindNames) {
		return lineKindNames[k]
	}
	return fmt.Sprintf("LineKind(%d)", int(k))
}

// WithDir puts herdr.sock in dir instead of a new temporary directory.
func WithDir(dir string) Option { return func(c *config) { c.dir = dir } }

// WithReadTimeout sets how long a connection may take to send its request
// line (default 5 s, herdr's own).
func WithReadTimeout(d time.Duration) Option { return func(c *config) { c.readTimeout = d } }

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

// ---- counters ----

// Connections counts accepted connections.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns
}

// Calls counts parsed requests of a method ("" = all methods).
func (s *Server) Calls(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if method != "" {
		return s.calls[method]
	}
	n := 0
	for _, v := range s.calls {
		n += v
	}
	return n
}

// Renames lists every tab.rename the API answered, in order.
func (s *Server) Renames() []Rename {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Rename(nil), s.renames...)
}

// ReadPolls counts the 100 ms read-poll sleeps of every connection so far:
// each one is a request line that had not (wholly) arrived when herdr
// looked, and cost its sender up to 100 ms (docs/herdr.md §2).
func (s *Server) ReadPolls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.polls
}

// EmptyLooks counts the looks for a request line that found nothing
// waiting, with the read poll on or off. A test that must send its request
// only after the server started waiting for it waits for this to move,
// instead of sleeping and hoping.
func (s *Server) EmptyLooks() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.empty
}

// ReadTimeouts counts connections dropped because their request line had
// not arrived within the read timeout (herdr: 5 s after accept, and a
// warning in its log). A client that keeps idle connections open must
// close them before then.
func (s *Server) ReadTimeouts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.timeouts
}

// OpenConnections is the number of connections open right now on the
// server's side: waiting for a request line, being answered, or streaming.
func (s *Server) OpenConnections() int {
	s.lmu.Lock()
	defer s.lmu.Unlock()
	return len(s.open)
}

// OpenStreams is the number of events.subscribe streams being served right
// now: acked and not yet ended on the server's side. A stream the client
// closed stays open here until the server notices, at its next round.
func (s *Server) OpenStreams() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.streams
}

// PanePolls counts the times a per-pane pane.agent_status_changed
// subscription entry read its pane in a round that brought no event of
// it: herdr 0.8.2 asks its app thread for the pane (pane_get) on every
// such 100 ms tick, for as long as the entry lives (docs/herdr.md §7).
// It is what a per-pane subscription costs herdr at rest.
func (s *Server) PanePolls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.panePolls
}

// ResetCounters zeroes connections, calls, read polls, empty looks, read
// timeouts and renames (open streams are a state, not a count, and stay).
func (s *Server) ResetCounters() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conns, s.polls, s.empty, s.timeouts, s.calls, s.renames, s.wsNames = 0, 0, 0, 0, map[string]int{}, nil, nil
}

// MaxRequestBytes is herdr's limit on a request line before its newline.
const MaxRequestBytes = 1 << 20
