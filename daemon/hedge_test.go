package daemon

import (
	"context"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/pass"
)

// Inside a pass: a pass someone waits for sends a late
// snapshot again and counts it; a poll pass never does, however late.
// Reads are hedged only where requests take the plain connect and write
// (herdr/hedge.go), which this daemon's client is made to take.
func TestPassHedgesOnlyWhenSomeoneWaits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		hedge       bool
		wantHedges  int
		wantSnapReq int
	}{
		{"nudge or event pass", true, 1, 2},
		{"poll pass", false, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, "{dir}", nil)
			plain := herdr.New(f.srv.SocketPath(), herdr.WithTimeout(2*time.Second), herdr.WithHedging(true), herdr.WithPlainRequests())
			f.d.client, f.d.api = plain, plain
			f.srv.NewWorkspace("main", home+"/a")
			f.once()
			f.srv.ResetCounters()
			f.srv.StallNext("session.snapshot", 500*time.Millisecond, 1)
			_, st, err := f.d.pass(context.Background(), passInput{Input: pass.Input{Urgent: tc.hedge}})
			if err != nil {
				t.Fatal(err)
			}
			if st.Hedges != tc.wantHedges {
				t.Errorf("pass.Stats.Hedges = %d, want %d", st.Hedges, tc.wantHedges)
			}
			if n := f.srv.Calls("session.snapshot"); n != tc.wantSnapReq {
				t.Errorf("%d snapshot requests, want %d", n, tc.wantSnapReq)
			}
		})
	}
}
