package herdr

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
)

// TestErrorCodes sends each error a 0.8.2/0.9 server can answer with and
// checks the predicates and sentinels a caller reacts to.
func TestErrorCodes(t *testing.T) {
	tests := []struct {
		name, body  string
		sentinel    error // nil: matches none of ours
		gone, unsup bool
	}{
		{"shutting down", `{"code":"server_unavailable","message":"server is shutting down"}`, ErrServerGoingAway, true, false},
		{"app channel closed", `{"code":"server_unavailable","message":"failed to dispatch request: channel closed"}`, ErrServerGoingAway, true, false},
		{"agent blocked", `{"code":"agent_blocked","message":"agent w1:p1 is blocked"}`, ErrAgentBlocked, false, false},
		{"group close", `{"code":"workspace_group_close_required","message":"workspace w1 has open worktree workspaces; pass close_group"}`, ErrWorkspaceGroupCloseRequired, false, false},
		{"events lost", `{"code":"events_lost","message":"subscription fell behind; resubscribe and resync with session.snapshot"}`, ErrEventsLost, false, false},
		{"unknown method", `{"code":"invalid_request","message":"invalid request: unknown variant ` + "`tab.frobnicate`" + `, expected one of ` + "`ping`, `server.stop`" + `"}`, ErrUnsupported, false, true},
		{"not implemented", `{"code":"not_implemented","message":"method not implemented yet"}`, ErrUnsupported, false, true},
		{"other parse error", `{"code":"invalid_request","message":"invalid request: missing field ` + "`label`" + `"}`, nil, false, false},
		{"tab not found", `{"code":"tab_not_found","message":"tab w1:t9 not found"}`, ErrTabNotFound, false, false},
		{"workspace not found", `{"code":"workspace_not_found","message":"workspace w9 not found"}`, ErrWorkspaceNotFound, false, false},
		{"pane not found", `{"code":"pane_not_found","message":"pane w1:p9 not found"}`, ErrPaneNotFound, false, false},
		{"plugin not found", `{"code":"plugin_not_found","message":"plugin x not found"}`, nil, false, false},
	}
	all := []error{ErrServerGoingAway, ErrAgentBlocked, ErrWorkspaceGroupCloseRequired, ErrEventsLost, ErrUnsupported,
		ErrTabNotFound, ErrWorkspaceNotFound, ErrPaneNotFound}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startRaw(t, func(c *rawConn) {
				c.readRequest()
				c.write(`{"id":"","error":` + tt.body + "}\n")
				c.expectCleanClose()
			})
			_, err := New(srv.path).RenameTab(context.Background(), "w1:t1", "x")
			var ae *APIError
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v (%T), want an *APIError", err, err)
			}
			for _, s := range all {
				if got := errors.Is(err, s); got != (s == tt.sentinel) {
					t.Errorf("errors.Is(err, %q) = %v", s, got)
				}
			}
			if got := IsServerGone(err); got != tt.gone {
				t.Errorf("IsServerGone = %v, want %v", got, tt.gone)
			}
			if got := IsUnsupported(err); got != tt.unsup {
				t.Errorf("IsUnsupported = %v, want %v", got, tt.unsup)
			}
			if got := IsEventsLost(err); got != (tt.sentinel == ErrEventsLost) {
				t.Errorf("IsEventsLost = %v", got)
			}
			// A tab, workspace or pane gone: ErrNotFound says which of
			// the three without naming it.
			gone := tt.sentinel == ErrTabNotFound || tt.sentinel == ErrWorkspaceNotFound || tt.sentinel == ErrPaneNotFound
			if got := errors.Is(err, ErrNotFound); got != gone {
				t.Errorf("errors.Is(err, ErrNotFound) = %v, want %v", got, gone)
			}
			// Wrapping by a caller keeps every answer.
			wrapped := fmt.Errorf("pass: %w", err)
			if IsServerGone(wrapped) != tt.gone || IsUnsupported(wrapped) != tt.unsup || (tt.sentinel != nil && !errors.Is(wrapped, tt.sentinel)) {
				t.Errorf("wrapping changed the answers for %v", wrapped)
			}
		})
	}
}

func TestIsServerGoneOtherErrors(t *testing.T) {
	missing := New(filepath.Join(shortTempDir(t), "none.sock"))
	_, notRunning := missing.Ping(context.Background())
	eofSrv := startRaw(t, func(c *rawConn) { c.readRequest() })
	_, eof := New(eofSrv.path).Ping(context.Background())
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"not running", notRunning, true},
		{"closed without a reply", eof, true},
		{"stream ended", fmt.Errorf("x: %w", ErrStreamEnded), true},
		{"our own close", ErrStreamClosed, false},
		{"cancelled", context.Canceled, false},
		{"plain", errors.New("boom"), false},
	}
	for _, tt := range tests {
		if got := IsServerGone(tt.err); got != tt.want {
			t.Errorf("%s: IsServerGone(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}

// TestSubscribeUnknownTypeIsUnsupported: a protocol 17 server does not know
// workspace.reordered, and says so the serde way; feature detection, not
// an outage.
func TestSubscribeUnknownTypeIsUnsupported(t *testing.T) {
	srv := startRaw(t, func(c *rawConn) {
		c.readRequest()
		c.write(`{"id":"","error":{"code":"invalid_request","message":"invalid request: unknown variant ` + "`workspace.reordered`" + `, expected one of ` + "`workspace.created`" + `"}}` + "\n")
		c.expectCleanClose()
	})
	_, err := New(srv.path).Subscribe(context.Background(), []Subscription{{Type: "workspace.reordered"}})
	if !IsUnsupported(err) || IsServerGone(err) {
		t.Errorf("err = %v, want IsUnsupported and not IsServerGone", err)
	}
}
