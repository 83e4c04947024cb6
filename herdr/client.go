package herdr

import (
	"bufio"
	"bytes"
	"context"
	stdjson "encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	json "github.com/goccy/go-json"
)

// DefaultTimeout bounds every call that has no sooner context deadline. The
// server puts no timeout on a busy app loop (docs/herdr.md §2), so without
// ours a wedged herdr would hang us forever.
const DefaultTimeout = 5 * time.Second

// MaxReply caps one reply or event line. A 2,000-pane snapshot is about
// 2 MiB; anything past this is a broken peer, not data.
const MaxReply = 16 << 20

// Client talks to one herdr server. herdr answers one request per
// connection and closes it, so a call dials afresh and its connection
// ends with it (a Stream keeps its own until closed). With WithHedging a
// read that is late goes out a second time on another connection
// (hedge.go). A Client is safe for concurrent use.
type Client struct {
	path    string
	timeout time.Duration
	log     *slog.Logger
	// dial replaces the process's path (transport.go) with a plain
	// connect through it: tests' fakes.
	dial func(ctx context.Context, path string) (net.Conn, error)
	// plain: WithPlainRequests.
	plain bool

	seq        atomic.Uint64
	protocol   atomic.Int64
	version    atomic.Pointer[string]
	warned     atomic.Bool // the one unknown-protocol warning is out
	noSnapshot atomic.Bool // server lacks session.snapshot: use the lists
	// largest is the longest reply line seen per method (*atomic.Int64):
	// a snapshot is read into a buffer of that size at once instead of
	// growing to it by copies, while a tab.rename's reply stays small.
	largest sync.Map
	hedge   *hedger // when and how often reads go out twice
}

// Option configures a Client.
type Option func(*Client)

// WithTimeout sets the per-call deadline (default 5s). A context deadline
// that comes sooner wins.
func WithTimeout(d time.Duration) Option {
	return func(c *Client) {
		if d > 0 {
			c.timeout = d
		}
	}
}

// WithLogger sets where warnings go (default slog.Default()).
func WithLogger(l *slog.Logger) Option {
	return func(c *Client) {
		if l != nil {
			c.log = l
		}
	}
}

// New returns a client for the herdr API socket at socketPath. It does not
// connect; the first call does.
func New(socketPath string, opts ...Option) *Client {
	c := &Client{path: socketPath, timeout: DefaultTimeout, log: slog.Default(), hedge: newHedger()}
	for _, o := range opts {
		o(c)
	}
	return c
}

// SocketPath is the socket this client talks to.
func (c *Client) SocketPath() string { return c.path }

// Protocol is the protocol number of the last successful Ping, 0 before one.
func (c *Client) Protocol() int { return int(c.protocol.Load()) }

// request is the wire envelope. Params is raw so that it is always an
// object, never absent or null: herdr rejects both (docs/herdr.md §3).
type request struct {
	ID     string          `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// reply is the response envelope; Result is a pointer so that a missing or
// null result is visible, and generic so the payload decodes in one pass.
type reply[T any] struct {
	ID     string     `json:"id"`
	Result *T         `json:"result"`
	Error  *errorBody `json:"error"`
}

type errorBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// resultHeader is embedded in every typed result to check result.type.
type resultHeader struct {
	Type string `json:"type"`
}

func (h *resultHeader) resultType() string { return h.Type }

type typedResult interface{ resultType() string }

var (
	emptyObject = json.RawMessage("{}")
	noDeadline  time.Time
)

// encodeRequest builds the one line we write: compact JSON, params always
// an object, one trailing newline. It encodes with encoding/json, which
// state files and logs run anyway, not goccy's encoder: a request is a
// few small fields, and goccy's encoder brings code of its own (a
// compiler and its VM) that stays resident in every daemon to save half a
// microsecond a request (BenchmarkEncodeRequest). goccy earns its place
// decoding snapshots (bench_json_test.go).
func (c *Client) encodeRequest(method string, params any) ([]byte, string, error) {
	p := emptyObject
	if params != nil {
		b, err := stdjson.Marshal(params)
		if err != nil {
			return nil, "", fmt.Errorf("herdr %s: encode params: %w", method, err)
		}
		b = bytes.TrimSpace(b)
		switch {
		case string(b) == "null":
			// A nil map or pointer means "no params", which herdr spells {}.
		case len(b) > 0 && b[0] == '{':
			p = b
		default:
			return nil, "", fmt.Errorf("herdr %s: params must encode to a JSON object, got %s", method, snippet(b))
		}
	}
	id := "htr-" + strconv.FormatUint(c.seq.Add(1), 10)
	line, err := stdjson.Marshal(request{ID: id, Method: method, Params: p})
	if err != nil {
		return nil, "", fmt.Errorf("herdr %s: encode request: %w", method, err)
	}
	return append(line, '\n'), id, nil
}

// deadline is the sooner of the context's deadline and now+timeout.
func (c *Client) deadline(ctx context.Context) time.Time {
	d := time.Now().Add(c.timeout)
	if cd, ok := ctx.Deadline(); ok && cd.Before(d) {
		d = cd
	}
	return d
}

// connect dials with the call deadline and classifies "nobody home".
func (c *Client) connect(ctx context.Context, method string, deadline time.Time) (net.Conn, error) {
	dctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	dial := c.dial
	if dial == nil {
		dial = dialSocket
	}
	conn, err := dial(dctx, c.path)
	if err != nil {
		return nil, c.connectErr(ctx, method, deadline, err)
	}
	return conn, nil
}

// connectErr classifies a failed connect: "nobody home" (the socket is
// missing or refuses) or trouble on the way.
func (c *Client) connectErr(ctx context.Context, method string, deadline time.Time, err error) error {
	switch {
	case errors.Is(err, syscall.ENOENT):
		return &NotRunningError{Path: c.path, Reason: "socket missing", Err: err}
	case errors.Is(err, syscall.ECONNREFUSED):
		return &NotRunningError{Path: c.path, Reason: "connection refused", Err: err}
	}
	return c.transportErr(ctx, method, deadline, fmt.Errorf("connect: %w", err))
}

// transportErr wraps err, turning timeouts into the reason the caller
// cares about: its context ended, or our per-call timeout passed.
func (c *Client) transportErr(ctx context.Context, op string, deadline time.Time, err error) error {
	ne, isNet := errors.AsType[net.Error](err)
	timedOut := (isNet && ne.Timeout()) || errors.Is(err, context.DeadlineExceeded)
	cd, hasCtxDeadline := ctx.Deadline()
	switch {
	case ctx.Err() != nil:
		err = fmt.Errorf("%w (%v)", ctx.Err(), err)
	case timedOut && hasCtxDeadline && !cd.After(deadline):
		// The context's deadline set the socket's; the context may not
		// have noticed yet.
		err = fmt.Errorf("no reply by the caller's deadline: %w", context.DeadlineExceeded)
	case timedOut:
		err = fmt.Errorf("no reply within %s: %w", c.timeout, context.DeadlineExceeded)
	}
	return &TransportError{Op: op, Path: c.path, Err: err}
}

// outgoing is one encoded request on its way out: what every send of it
// shares.
type outgoing struct {
	method   string
	line     []byte
	deadline time.Time
	// hedging: the hedge planned this call (outcome.hedging).
	hedging bool
}

// exchange sends one request and returns the one reply line. On the
// plain path idempotent reads may go out twice, on two connections
// (hedge.go); everything else goes out once, on a fresh connection.
func (c *Client) exchange(ctx context.Context, method string, params any) ([]byte, error) {
	line, _, err := c.encodeRequest(method, params)
	if err != nil {
		return nil, err
	}
	out := outgoing{method: method, line: line, deadline: c.deadline(ctx)}
	if c.hedge.applies(ctx, method) && c.ring() == nil {
		// Through io_uring no request waits herdr's read poll: a late
		// read is herdr busy for real, which a second request makes
		// busier (hedge.go).
		return c.hedgedExchange(ctx, out)
	}
	return c.roundTrip(ctx, out)
}

// roundTrip sends the request on a fresh connection and reads the one
// reply line.
func (c *Client) roundTrip(ctx context.Context, out outgoing) ([]byte, error) {
	start := time.Now()
	conn, err := c.send(ctx, out.method, out.line, out.deadline)
	if err != nil {
		return nil, err
	}
	reply, err := c.converse(ctx, conn, out.method, out.deadline)
	if err == nil {
		c.hedge.observe(outcome{kind: freshAnswered, method: out.method, took: time.Since(start), hedging: out.hedging})
		c.traceReply(ctx, out.method, start)
	}
	return reply, err
}

// traceReply logs, at debug level, how long a reply took: the bench's
// -trace shows from these whether a slow rename waited for herdr's read
// poll.
func (c *Client) traceReply(ctx context.Context, method string, start time.Time) {
	if c.log.Enabled(ctx, slog.LevelDebug) {
		c.log.Debug("herdr: reply", "method", method, "took", time.Since(start))
	}
}

// converse reads the one reply line from conn, whose request is sent
// and whose deadline is the call's (send). conn is closed on return; ctx cancellation unblocks it by moving the
// deadline, never by writing.
func (c *Client) converse(ctx context.Context, conn wire, method string, deadline time.Time) ([]byte, error) {
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	largest := c.largestReply(method)
	br := bufio.NewReaderSize(conn, int(min(max(largest.Load()+2, 4<<10), 64<<10)))
	reply, err := readLineSized(br, MaxReply, int(largest.Load()))
	if err != nil {
		return nil, c.transportErr(ctx, method, deadline, err)
	}
	if n := int64(len(reply)); n > largest.Load() {
		largest.Store(n)
	}
	return reply, nil
}

// largestReply is the longest reply line seen for method so far.
func (c *Client) largestReply(method string) *atomic.Int64 {
	if v, ok := c.largest.Load(method); ok {
		return v.(*atomic.Int64)
	}
	v, _ := c.largest.LoadOrStore(method, new(atomic.Int64))
	return v.(*atomic.Int64)
}

var (
	errOversize = fmt.Errorf("reply line longer than %d bytes", MaxReply)
	errNoLine   = errors.New("connection closed before a reply line")
)

// readLine reads one '\n'-terminated line of at most max bytes (newline
// and surrounding whitespace excluded). EOF before any byte, EOF mid-line
// and resets are distinct errors so that logs say which one happened.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	return readLineSized(br, max, 0)
}

// readLineSized is readLine with a capacity hint for long lines.
func readLineSized(br *bufio.Reader, max, hint int) ([]byte, error) {
	var buf []byte
	if hint > 64<<10 {
		buf = make([]byte, 0, min(hint+hint/8, max+2))
	}
	for {
		frag, err := br.ReadSlice('\n')
		if len(buf)+len(frag) > max+2 { // +2: "\r\n" is not content
			return nil, errOversize
		}
		if err == nil {
			if buf == nil {
				buf = append(make([]byte, 0, len(frag)), frag...)
			} else {
				buf = append(buf, frag...)
			}
			return bytes.TrimSpace(buf), nil
		}
		buf = append(buf, frag...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			if len(buf) == 0 {
				return nil, errNoLine
			}
			return nil, fmt.Errorf("connection closed mid-line after %d bytes: %w", len(buf), io.ErrUnexpectedEOF)
		}
		if errors.Is(err, syscall.ECONNRESET) {
			return nil, fmt.Errorf("connection reset by the server: %w", err)
		}
		return nil, fmt.Errorf("read reply: %w", err)
	}
}

// decodeReply parses one reply line into a reply[T]. It returns the
// server's error as *APIError and every malformed line as a plain error for
// the caller to wrap.
func decodeReply[T any](method, path string, line []byte) (*T, error) {
	if len(line) == 0 {
		return nil, &TransportError{Op: method, Path: path, Err: errors.New("empty reply line")}
	}
	var r reply[T]
	if err := json.Unmarshal(line, &r); err != nil {
		return nil, &TransportError{Op: method, Path: path, Err: fmt.Errorf("reply is not a JSON reply object (%v): %s", err, snippet(line))}
	}
	if r.Error != nil {
		return nil, &APIError{Method: method, Path: path, ID: r.ID, Code: r.Error.Code, Message: r.Error.Message}
	}
	if r.Result == nil {
		return nil, &TransportError{Op: method, Path: path, Err: fmt.Errorf("reply has neither result nor error: %s", snippet(line))}
	}
	return r.Result, nil
}

// typedCall is one round trip whose result must have result.type == want.
func typedCall[T any, PT interface {
	*T
	typedResult
}](ctx context.Context, c *Client, method string, params any, want string) (*T, error) {
	line, err := c.exchange(ctx, method, params)
	if err != nil {
		return nil, err
	}
	res, err := decodeReply[T](method, c.path, line)
	if err != nil {
		return nil, err
	}
	if got := PT(res).resultType(); got != want {
		return nil, &TransportError{Op: method, Path: c.path, Err: fmt.Errorf("unexpected result type %q, want %q", got, want)}
	}
	return res, nil
}

// Call sends any method and decodes the reply's result object into result
// (which may be nil to discard it). params nil sends {}. It does not check
// result.type; the typed methods below do.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	line, err := c.exchange(ctx, method, params)
	if err != nil {
		return err
	}
	raw, err := decodeReply[json.RawMessage](method, c.path, line)
	if err != nil {
		return err
	}
	if result == nil {
		return nil
	}
	if err := json.Unmarshal(*raw, result); err != nil {
		return &TransportError{Op: method, Path: c.path, Err: fmt.Errorf("decode result: %w", err)}
	}
	return nil
}

type pongResult struct {
	resultHeader
	Pong
}

// Ping asks for the server's version and protocol and remembers the
// protocol. A protocol this client does not know still works; the first
// such answer is logged once per Client (docs/herdr.md §1). A ping that
// finds another version than the last one forgets which methods the old
// server lacked, so features are detected afresh.
func (c *Client) Ping(ctx context.Context) (Pong, error) {
	r, err := typedCall[pongResult](ctx, c, "ping", nil, "pong")
	if err != nil {
		return Pong{}, err
	}
	p := r.Pong
	old := c.version.Swap(&p.Version)
	if c.protocol.Swap(int64(p.Protocol)) != int64(p.Protocol) || old == nil || *old != p.Version {
		// Another herdr answers (first ping, upgrade, restart): what
		// was learnt about the old one's methods no longer holds.
		c.noSnapshot.Store(false)
	}
	c.warnProtocol(p)
	return p, nil
}

type snapshotResult struct {
	resultHeader
	Snapshot *Snapshot `json:"snapshot"`
}

// Snapshot returns the whole session in one call (session.snapshot). A
// server that lacks the method gets workspace.list + tab.list + pane.list
// instead, and the client remembers not to ask again.
func (c *Client) Snapshot(ctx context.Context) (*Snapshot, error) {
	if !c.noSnapshot.Load() {
		r, err := typedCall[snapshotResult](ctx, c, "session.snapshot", nil, "session_snapshot")
		switch {
		case err == nil && r.Snapshot == nil:
			return nil, &TransportError{Op: "session.snapshot", Path: c.path, Err: errors.New("result has no snapshot")}
		case err == nil:
			return r.Snapshot, nil
		case !IsUnsupported(err):
			return nil, err
		}
		c.noSnapshot.Store(true)
		c.log.Info("herdr has no session.snapshot; using workspace.list, tab.list and pane.list", "socket", c.path, "reason", err.Error())
	}
	return c.listSnapshot(ctx)
}

// listSnapshot assembles a Snapshot from the three list calls. The focus
// fields come from the focused flags; version and protocol from the last
// Ping, if any.
func (c *Client) listSnapshot(ctx context.Context) (*Snapshot, error) {
	ws, err := c.Workspaces(ctx)
	if err != nil {
		return nil, err
	}
	tabs, err := c.Tabs(ctx, "")
	if err != nil {
		return nil, err
	}
	panes, err := c.Panes(ctx, "")
	if err != nil {
		return nil, err
	}
	s := &Snapshot{Protocol: c.Protocol(), Workspaces: ws, Tabs: tabs, Panes: panes}
	if v := c.version.Load(); v != nil {
		s.Version = *v
	}
	for _, w := range ws {
		if w.Focused {
			s.FocusedWorkspaceID = w.ID
			break
		}
	}
	for _, p := range panes {
		if p.Focused && (s.FocusedWorkspaceID == "" || p.WorkspaceID == s.FocusedWorkspaceID) {
			s.FocusedPaneID, s.FocusedTabID, s.FocusedWorkspaceID = p.ID, p.TabID, p.WorkspaceID
			break
		}
	}
	return s, nil
}

type workspaceParams struct {
	WorkspaceID string `json:"workspace_id,omitempty"`
}

type workspaceListResult struct {
	resultHeader
	Workspaces []Workspace `json:"workspaces"`
}

// Workspaces lists every workspace by position (workspace.list).
func (c *Client) Workspaces(ctx context.Context) ([]Workspace, error) {
	r, err := typedCall[workspaceListResult](ctx, c, "workspace.list", nil, "workspace_list")
	if err != nil {
		return nil, err
	}
	return r.Workspaces, nil
}

type tabListResult struct {
	resultHeader
	Tabs []Tab `json:"tabs"`
}

// Tabs lists the tabs of one workspace, or of all when wsID is "" (tab.list).
func (c *Client) Tabs(ctx context.Context, wsID string) ([]Tab, error) {
	r, err := typedCall[tabListResult](ctx, c, "tab.list", workspaceParams{wsID}, "tab_list")
	if err != nil {
		return nil, err
	}
	return r.Tabs, nil
}

type paneListResult struct {
	resultHeader
	Panes []Pane `json:"panes"`
}

// Panes lists the panes of one workspace, or of all when wsID is "" (pane.list).
func (c *Client) Panes(ctx context.Context, wsID string) ([]Pane, error) {
	r, err := typedCall[paneListResult](ctx, c, "pane.list", workspaceParams{wsID}, "pane_list")
	if err != nil {
		return nil, err
	}
	return r.Panes, nil
}

type processInfoResult struct {
	resultHeader
	ProcessInfo *ProcessInfo `json:"process_info"`
}

// ProcessInfo asks what runs in the foreground of a pane
// (pane.process_info). paneID "" means herdr's focused pane.
func (c *Client) ProcessInfo(ctx context.Context, paneID string) (ProcessInfo, error) {
	params := struct {
		PaneID string `json:"pane_id,omitempty"`
	}{paneID}
	r, err := typedCall[processInfoResult](ctx, c, "pane.process_info", params, "pane_process_info")
	if err != nil {
		return ProcessInfo{}, err
	}
	if r.ProcessInfo == nil {
		return ProcessInfo{}, &TransportError{Op: "pane.process_info", Path: c.path, Err: errors.New("result has no process_info")}
	}
	return *r.ProcessInfo, nil
}

type tabInfoResult struct {
	resultHeader
	Tab *Tab `json:"tab"`
}

// Tab reads one tab (tab.get): the one look at a label right before
// renaming it, cheaper than a snapshot.
func (c *Client) Tab(ctx context.Context, tabID string) (Tab, error) {
	params := struct {
		TabID string `json:"tab_id"`
	}{tabID}
	return c.tabCall(ctx, "tab.get", params)
}

// tabCall sends a request herdr answers with one tab (tab_info).
func (c *Client) tabCall(ctx context.Context, method string, params any) (Tab, error) {
	r, err := typedCall[tabInfoResult](ctx, c, method, params, "tab_info")
	if err != nil {
		return Tab{}, err
	}
	if r.Tab == nil {
		return Tab{}, &TransportError{Op: method, Path: c.path, Err: errors.New("result has no tab")}
	}
	return *r.Tab, nil
}

// RenameTab sets a tab's custom name (tab.rename). herdr stores the label
// byte for byte, "" included, and a custom name can never be cleared again:
// callers sanitise before calling.
func (c *Client) RenameTab(ctx context.Context, tabID, label string) (Tab, error) {
	params := struct {
		TabID string `json:"tab_id"`
		Label string `json:"label"`
	}{tabID, label}
	return c.tabCall(ctx, "tab.rename", params)
}

type workspaceInfoResult struct {
	resultHeader
	Workspace *Workspace `json:"workspace"`
}

// RenameWorkspace sets a workspace's custom name (workspace.rename). As
// with tabs the label is stored as given, "" included, and the automatic
// label (docs/herdr.md §6) never comes back: callers sanitise first.
func (c *Client) RenameWorkspace(ctx context.Context, workspaceID, label string) (Workspace, error) {
	params := struct {
		WorkspaceID string `json:"workspace_id"`
		Label       string `json:"label"`
	}{workspaceID, label}
	r, err := typedCall[workspaceInfoResult](ctx, c, "workspace.rename", params, "workspace_info")
	if err != nil {
		return Workspace{}, err
	}
	if r.Workspace == nil {
		return Workspace{}, &TransportError{Op: "workspace.rename", Path: c.path, Err: errors.New("result has no workspace")}
	}
	return *r.Workspace, nil
}
