package daemon

import (
	"errors"
	"log/slog"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
)

// troubled says whether the daemon's health record lists what.
func troubled(f *fixture, what string) bool {
	h, err := rundir.ReadHealth(f.srv.SocketPath())
	return err == nil && slices.ContainsFunc(h.Troubles, func(t rundir.Trouble) bool { return t.What == what })
}

// A subscription herdr refuses leaves the daemon deaf to events, running
// on: its health record says so (status reads it), until a subscription
// is taken again.
func TestHealthRecordsARefusedSubscription(t *testing.T) {
	f := newFixture(t, "{proc|dir}", nil)
	f.srv.NewWorkspace("main", home+"/a")
	var refuse atomic.Bool
	refuse.Store(true)
	f.srv.RewriteResponses(func(method string, line []byte) []byte {
		if method == "events.subscribe" && refuse.Load() {
			return []byte(`{"id":"","error":{"code":"invalid_request","message":"invalid request: unknown variant"}}`)
		}
		return line
	})
	runDaemon(t, f, nil)
	waitFor(t, "the refusal in the health record", func() bool { return troubled(f, rundir.TroubleSubscribe) })
	refuse.Store(false)
	waitFor(t, "the record cleared once subscribed", func() bool { return !troubled(f, rundir.TroubleSubscribe) })
}

// With no file watch to be had (the user's inotify instances used up),
// agents' session titles are looked at twice a second: the health record says
// so, for status, beside the log.
func TestHealthRecordsNoSessionWatch(t *testing.T) {
	if _, err := rundir.Dir(); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "herdr.sock")
	health := newHealth(sock, slog.New(slog.DiscardHandler), time.Now)
	defer health.start()()
	health.sessionWatch(errors.New("too many open files"))
	h, err := rundir.ReadHealth(sock)
	if err != nil || !slices.ContainsFunc(h.Troubles, func(tr rundir.Trouble) bool { return tr.What == rundir.TroubleSessionWatch }) {
		t.Fatalf("health record %+v (%v), want the session watch's trouble", h, err)
	}
}

// A rename whose target went away is no trouble, a tab's, a workspace's
// or a pane's alike; herdr refusing one is.
func TestHealthExcusesATargetGone(t *testing.T) {
	if _, err := rundir.Dir(); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "herdr.sock")
	health := newHealth(sock, slog.New(slog.DiscardHandler), time.Now)
	defer health.start()()
	listed := func() bool {
		h, err := rundir.ReadHealth(sock)
		return err == nil && slices.ContainsFunc(h.Troubles, func(tr rundir.Trouble) bool { return tr.What == rundir.TroubleRename })
	}
	for _, code := range []string{herdr.CodeTabNotFound, herdr.CodeWorkspaceNotFound, herdr.CodePaneNotFound} {
		health.renamed(&herdr.APIError{Method: "pane.rename", Code: code, Message: "gone"})
		if listed() {
			t.Fatalf("%s is a trouble", code)
		}
	}
	health.renamed(&herdr.APIError{Method: "pane.rename", Code: "invalid_request", Message: "no"})
	if !listed() {
		t.Fatal("a refused rename is no trouble")
	}
}
