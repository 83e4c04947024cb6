package herdr

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
)

// bigSnapshotLine is a session.snapshot reply of 50 workspaces, 400 tabs
// and 2,000 panes, shaped like herdr's (every optional field a busy
// session would carry).
func bigSnapshotLine(tb testing.TB) []byte {
	tb.Helper()
	s := Snapshot{Version: "0.8.0", Protocol: 20, FocusedWorkspaceID: "w1", FocusedTabID: "w1:t1", FocusedPaneID: "w1:p1"}
	for w := 1; w <= 50; w++ {
		wsID := "w" + EncodeNumber(w)
		s.Workspaces = append(s.Workspaces, Workspace{ID: wsID, Number: w, Label: fmt.Sprintf("repo-%d", w), Focused: w == 1,
			PaneCount: 40, TabCount: 8, ActiveTabID: wsID + ":t1", AgentStatus: StatusWorking})
		for tn := 1; tn <= 8; tn++ {
			tabID := wsID + ":t" + EncodeNumber(tn)
			s.Tabs = append(s.Tabs, Tab{ID: tabID, WorkspaceID: wsID, Number: tn, Label: fmt.Sprint(tn), PaneCount: 5, AgentStatus: StatusIdle})
			for p := 1; p <= 5; p++ {
				pn := (tn-1)*5 + p
				s.Panes = append(s.Panes, Pane{
					ID: wsID + ":p" + EncodeNumber(pn), TerminalID: fmt.Sprintf("term_%x", w*1000+pn), WorkspaceID: wsID, TabID: tabID,
					Cwd: "/home/user/src/project/" + wsID, ForegroundCwd: "/home/user/src/project/" + wsID + "/sub",
					Agent: "claude", TerminalTitle: "✳ Fixing the flaky test", TerminalTitleStripped: "Fixing the flaky test",
					AgentStatus: StatusWorking, Tokens: map[string]string{"branch": "main"}, Revision: uint64(pn),
				})
			}
		}
	}
	payload, err := json.Marshal(map[string]any{"id": "htr-1", "result": map[string]any{"type": "session_snapshot", "snapshot": s}})
	if err != nil {
		tb.Fatal(err)
	}
	return payload
}

func BenchmarkSnapshotDecode(b *testing.B) {
	line := bigSnapshotLine(b)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		r, err := decodeReply[snapshotResult]("session.snapshot", "bench", line)
		if err != nil || len(r.Snapshot.Panes) != 2000 {
			b.Fatalf("decode: %v", err)
		}
	}
	runtime.ReadMemStats(&after)
	n := float64(b.N) * 2000
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/pane")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/n, "B/pane")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/n, "allocs/pane")
}

// BenchmarkEncodeRequest is the encoding of one rename request, the
// commonest we send.
func BenchmarkEncodeRequest(b *testing.B) {
	c := &Client{}
	params := struct {
		TabID string `json:"tab_id"`
		Label string `json:"label"`
	}{"w1:t1", "~/src/herdrtabrenamer · claude"}
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := c.encodeRequest("tab.rename", params); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSnapshotRoundTrip is one whole Snapshot call against a raw
// server that answers instantly: dial, write, read 1.7 MB, decode.
func BenchmarkSnapshotRoundTrip(b *testing.B) {
	line := append(bigSnapshotLine(b), '\n')
	srv := startRaw(b, func(c *rawConn) { c.readRequest(); _, _ = c.Write(line); c.expectCleanClose() })
	c := New(srv.path)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Snapshot(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPingRoundTrip is the fixed cost of one call: dial, one write,
// one line back, close.
func BenchmarkPingRoundTrip(b *testing.B) {
	srv := startRaw(b, func(c *rawConn) {
		c.readRequest()
		c.write(`{"id":"x","result":{"type":"pong","version":"0.8.0","protocol":20,"capabilities":{}}}` + "\n")
		c.expectCleanClose()
	})
	c := New(srv.path)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Ping(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
