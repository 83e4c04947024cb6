package herdr

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	json "github.com/goccy/go-json"
)

// Subscription is one entry of events.subscribe. Type is dotted
// ("tab.renamed"). PaneID is required by the per-pane kinds; AgentStatus
// optionally filters pane.agent_status_changed.
type Subscription struct {
	Type        string `json:"type"`
	PaneID      string `json:"pane_id,omitempty"`
	AgentStatus string `json:"agent_status,omitempty"`
}

// ErrStreamEnded matches (errors.Is) the error Next returns when the server
// closed the stream at a line boundary: herdr sends no final message on a
// stop or restart (docs/herdr.md §3), so this is how one looks. It also
// matches io.EOF.
var ErrStreamEnded = fmt.Errorf("herdr event stream ended: %w", io.EOF)

// ErrStreamClosed is what Next returns after our own Close.
var ErrStreamClosed = errors.New("herdr event stream closed")

var snakeToDotted = func() map[string]string {
	m := make(map[string]string, len(eventKinds))
	for _, k := range eventKinds {
		m[strings.Replace(string(k), ".", "_", 1)] = string(k)
	}
	return m
}()

// perPaneKinds need a pane_id in their subscription entry.
var perPaneKinds = map[string]bool{
	"pane.agent_status_changed": true,
	"pane.scroll_changed":       true,
	"pane.output_matched":       true,
}

// NormalizeEventKind returns the dotted form of an event name from either
// envelope dialect: "tab_renamed" -> "tab.renamed",
// "workspace_metadata_updated" -> "workspace.metadata_updated". A name that
// is already dotted is kept. An unknown snake_case name from a newer herdr
// is split after its object noun (workspace, worktree, tab, pane, layout) if
// it has one, else kept as it is.
func NormalizeEventKind(name string) string {
	if strings.Contains(name, ".") {
		return name
	}
	if d, ok := snakeToDotted[name]; ok {
		return d
	}
	for _, noun := range []string{"workspace_", "worktree_", "tab_", "pane_", "layout_"} {
		if rest, ok := strings.CutPrefix(name, noun); ok && rest != "" {
			return strings.TrimSuffix(noun, "_") + "." + rest
		}
	}
	return name
}

// Stream is an open events.subscribe connection: the only long-lived
// connection herdr has. Next is for one goroutine; Close may be called from
// any.
type Stream struct {
	path    string
	conn    wire
	br      *bufio.Reader
	ctx     context.Context
	stopCtx func() bool

	closeOnce  sync.Once
	mu         sync.Mutex
	closedByUs bool
	err        error // sticky: once the stream ends, Next keeps saying why
}

// Subscribe opens an event stream. It writes the request, waits (within the
// call deadline) for the subscription_started ack, and returns the stream.
// A setup failure, such as an unknown pane in a per-pane entry (error id
// "<id>:sub:<n>:probe"), is an *APIError. Cancelling ctx closes the socket;
// nothing is ever written after the request line, because herdr ends a
// subscription on any byte it receives (docs/herdr.md §2). herdr up to 0.8
// replays old events after the ack; 0.9 sends only live ones (§7), so the
// caller subscribes first and reads the session after the ack.
func (c *Client) Subscribe(ctx context.Context, subs []Subscription) (*Stream, error) {
	const method = "events.subscribe"
	for i, s := range subs {
		switch {
		case s.Type == "":
			return nil, fmt.Errorf("herdr %s: subscription %d has no type", method, i)
		case s.Type == "pane.output_matched":
			return nil, fmt.Errorf("herdr %s: subscription %d: pane.output_matched (needs source and match) is not supported by this client", method, i)
		case perPaneKinds[s.Type] && s.PaneID == "":
			return nil, fmt.Errorf("herdr %s: subscription %d (%s) needs a pane id", method, i, s.Type)
		}
	}
	if subs == nil {
		subs = []Subscription{} // herdr requires the array; null is a parse error
	}
	line, _, err := c.encodeRequest(method, struct {
		Subscriptions []Subscription `json:"subscriptions"`
	}{subs})
	if err != nil {
		return nil, err
	}
	deadline := c.deadline(ctx)
	conn, err := c.send(ctx, method, line, deadline)
	if err != nil {
		return nil, err
	}
	s := &Stream{path: c.path, conn: conn, br: bufio.NewReaderSize(conn, 8<<10), ctx: ctx}
	s.stopCtx = context.AfterFunc(ctx, func() { s.closeConn() })
	fail := func(err error) (*Stream, error) {
		s.stopCtx()
		s.closeConn()
		return nil, err
	}
	ack, err := readLine(s.br, MaxReply)
	if err != nil {
		return fail(c.transportErr(ctx, method, deadline, err))
	}
	r, err := decodeReply[resultHeader](method, c.path, ack)
	if err != nil {
		return fail(err)
	}
	if r.Type != "subscription_started" {
		return fail(&TransportError{Op: method, Path: c.path, Err: fmt.Errorf("unexpected result type %q, want %q", r.Type, "subscription_started")})
	}
	// The stream may sit idle for hours: herdr sends no heartbeats.
	if err := conn.SetDeadline(noDeadline); err != nil {
		return fail(c.transportErr(ctx, method, deadline, fmt.Errorf("clear deadline: %w", err)))
	}
	return s, nil
}

func (s *Stream) closeConn() {
	s.closeOnce.Do(func() { _ = s.conn.Close() })
}

// eventLine is either dialect of a stream line (docs/herdr.md §7); ID and
// Error catch an error line after the ack: events_lost from a 0.9 server
// whose retained history the stream fell out of, or server_unavailable.
type eventLine struct {
	Event string          `json:"event"`
	Data  json.RawMessage `json:"data"`
	Error *errorBody      `json:"error"`
	ID    string          `json:"id"`
}

// eventData pulls what an event carries out of any payload: flat ids
// (tab_renamed, pane_exited, the focus trio, per-pane kinds), nested
// objects (tab_created, pane_created/updated/moved, workspace_*), an
// agent's name and its leaving (pane_agent_detected) and status
// (pane_agent_status_changed).
type eventData struct {
	TabID       string      `json:"tab_id"`
	PaneID      string      `json:"pane_id"`
	WorkspaceID string      `json:"workspace_id"`
	Label       string      `json:"label"`
	Agent       string      `json:"agent"`
	Released    bool        `json:"released"`
	Status      AgentStatus `json:"agent_status"`
	Tab         *struct {
		TabID       string `json:"tab_id"`
		WorkspaceID string `json:"workspace_id"`
		Label       string `json:"label"`
	} `json:"tab"`
	Pane      *Pane `json:"pane"`
	Workspace *struct {
		WorkspaceID string `json:"workspace_id"`
		Label       string `json:"label"`
	} `json:"workspace"`
}

// Next blocks until the next event. Blank lines are skipped; a burst of
// lines in one read comes out one event per call. The stream ends with
// ErrStreamEnded (server closed it), ErrStreamClosed (Close), the context's
// error (ctx cancelled), a *TransportError (a line that is not JSON, a line
// cut short, a reset) or an *APIError from an error line. IsEventsLost
// tells the one that asks for a resubscribe and a full pass, IsServerGone
// the ones that ask for a backoff. Every later call returns the same error.
func (s *Stream) Next() (Event, error) {
	s.mu.Lock()
	err := s.err
	s.mu.Unlock()
	if err != nil {
		return Event{}, err
	}
	ev, err := s.next()
	if err != nil {
		s.mu.Lock()
		if s.err == nil {
			s.err = err
		}
		err = s.err
		s.mu.Unlock()
		s.stopCtx()
		s.closeConn()
	}
	return ev, err
}

func (s *Stream) next() (Event, error) {
	const op = "events.subscribe stream"
	for {
		line, err := readLine(s.br, MaxReply)
		if err != nil {
			s.mu.Lock()
			byUs := s.closedByUs
			s.mu.Unlock()
			switch {
			case byUs:
				return Event{}, ErrStreamClosed
			case s.ctx.Err() != nil:
				return Event{}, fmt.Errorf("herdr %s at %s: %w", op, s.path, s.ctx.Err())
			case errors.Is(err, errNoLine):
				return Event{}, fmt.Errorf("herdr %s at %s closed by the server: %w", op, s.path, ErrStreamEnded)
			}
			return Event{}, &TransportError{Op: op, Path: s.path, Err: err}
		}
		if len(line) == 0 {
			continue
		}
		return parseEvent(op, s.path, line)
	}
}

// parseEvent turns one stream line into an Event.
func parseEvent(op, path string, line []byte) (Event, error) {
	var el eventLine
	if err := json.Unmarshal(line, &el); err != nil {
		return Event{}, &TransportError{Op: op, Path: path, Err: fmt.Errorf("event line is not JSON (%v): %s", err, snippet(line))}
	}
	if el.Error != nil {
		return Event{}, &APIError{Method: op, Path: path, ID: el.ID, Code: el.Error.Code, Message: el.Error.Message}
	}
	if el.Event == "" {
		return Event{}, &TransportError{Op: op, Path: path, Err: fmt.Errorf("event line has no event name: %s", snippet(line))}
	}
	ev := Event{Kind: EventKind(NormalizeEventKind(el.Event))}
	if len(el.Data) > 0 && el.Data[0] == '{' {
		var d eventData
		if err := json.Unmarshal(el.Data, &d); err != nil {
			return Event{}, &TransportError{Op: op, Path: path, Err: fmt.Errorf("%s event data: %v: %s", el.Event, err, snippet(line))}
		}
		ev.fill(d)
	}
	return ev, nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Close ends the stream by closing the socket (never by writing). It is
// safe to call more than once and from another goroutine than Next.
func (s *Stream) Close() error {
	s.mu.Lock()
	s.closedByUs = true
	s.mu.Unlock()
	s.stopCtx()
	var err error
	s.closeOnce.Do(func() { err = s.conn.Close() })
	return err
}
