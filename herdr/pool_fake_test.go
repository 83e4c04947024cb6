package herdr_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrtest"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
	"go.uber.org/goleak"
)

// warmed returns a client whose warm pool has opened want connections
// against srv (herdr's read poll on, as herdrtest plays it by default).
func warmed(t *testing.T, srv *herdrsim.Server, want uint64, opts ...func(*herdr.Client)) *herdr.Client {
	t.Helper()
	ignore := goleak.IgnoreCurrent()
	c := herdr.New(srv.SocketPath())
	herdr.PreferWarm(c)
	for _, o := range opts {
		o(c)
	}
	c.Warm(time.Minute)
	t.Cleanup(func() {
		c.Cool()
		// A restarted server's own goroutines are the server's.
		goleak.VerifyNone(t, ignore,
			goleak.IgnoreAnyFunction("github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim.(*Server).accept"),
			goleak.IgnoreAnyFunction("github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim.(*Server).serve"))
	})
	testutil.WaitFor(t, fmt.Sprintf("%d warm connections", want), func() bool { return c.WarmStats().Opened >= want })
	return c
}

func TestWarmRenamesGoOutOnceEachOnWarmConnections(t *testing.T) {
	srv := herdrtest.Start(t)
	if !srv.ReadPollOn() {
		t.Fatal("herdrtest must play herdr's read poll by default")
	}
	ws, tab, _ := srv.NewWorkspace("repo", "/tmp")
	_ = ws
	c := warmed(t, srv, 16, func(c *herdr.Client) { herdr.WithHedging(true)(c) })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var want []string
	for i := range 20 {
		label := fmt.Sprintf("name %d", i)
		got, err := c.RenameTab(ctx, tab, label)
		if err != nil {
			t.Fatalf("rename %d: %v", i, err)
		}
		if got.Label != label {
			t.Fatalf("rename %d: reply label %q, want %q", i, got.Label, label)
		}
		want = append(want, label)
	}
	var got []string
	for _, r := range srv.Renames() {
		got = append(got, r.Label)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("herdr applied %q, want each rename once, in order: %q", got, want)
	}
	st := c.WarmStats()
	if st.Used != 20 || st.Dead != 0 {
		t.Fatalf("warm stats %+v: want 20 requests on warm connections, none dead", st)
	}
	// Reads that may be hedged still dial afresh: the pool is for
	// requests that go out once, and for a read's hedge (here, with
	// hedging on, as the daemon runs).
	hedged := c.HedgeStats().Hedged
	if _, err := c.Snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	if w, h := c.WarmStats().Used, c.HedgeStats().Hedged-hedged; w < 20 || w > 20+h {
		t.Fatalf("a snapshot hedged %d times took %d warm connections", h, w-20)
	}
	c.Cool()
	testutil.WaitFor(t, "herdr sees every warm connection closed", func() bool { return srv.OpenConnections() == 0 })
	st = c.WarmStats()
	if st.Opened != st.Used+st.Retired {
		t.Fatalf("warm stats %+v: every connection opened must be used or closed", st)
	}
	if n := srv.ReadTimeouts(); n != 0 {
		t.Fatalf("herdr timed out %d idle connections (a warning in its log each)", n)
	}
}

// herdr drops a connection that sends nothing for 5 s; here the server
// drops them after 350 ms and the pool renews them at 200 ms.
func TestWarmConnectionsRenewedBeforeHerdrDropsThem(t *testing.T) {
	srv := herdrtest.Start(t, herdrsim.WithReadTimeout(350*time.Millisecond))
	_, tab, _ := srv.NewWorkspace("repo", "/tmp")
	c := warmed(t, srv, 4*4, func(c *herdr.Client) { herdr.SetWarmShape(c, 4, 200*time.Millisecond) })
	if n := srv.ReadTimeouts(); n != 0 {
		t.Fatalf("herdr timed out %d warm connections: they must be renewed before its timeout", n)
	}
	if st := c.WarmStats(); st.Retired < 8 {
		t.Fatalf("warm stats %+v: want old connections closed as new ones open", st)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.RenameTab(ctx, tab, "after renewals"); err != nil {
		t.Fatal(err)
	}
	if st := c.WarmStats(); st.Used != 1 || st.Dead != 0 {
		t.Fatalf("warm stats %+v: the rename must use a live warm connection", st)
	}
}

// A herdr restart closes every warm connection. The request, which never
// left, goes out on a fresh connection: once.
func TestWarmConnectionClosedByHerdrFallsBackToAFreshOne(t *testing.T) {
	srv := herdrtest.Start(t)
	_, tab, _ := srv.NewWorkspace("repo", "/tmp")
	c := warmed(t, srv, 16)
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.RenameTab(ctx, tab, "after restart"); err != nil {
		t.Fatalf("rename after a restart: %v", err)
	}
	if st := c.WarmStats(); st.Dead < 1 {
		t.Fatalf("warm stats %+v: the closed warm connection must be counted dead", st)
	}
	if got := srv.Renames(); len(got) != 1 || got[0].Label != "after restart" {
		t.Fatalf("renames %+v, want the one rename once", got)
	}
}

// Without Warm nothing is held open: a client costs herdr one connection
// per request, as before.
func TestColdClientHoldsNoConnection(t *testing.T) {
	srv := herdrtest.Start(t)
	_, tab, _ := srv.NewWorkspace("repo", "/tmp")
	c := herdr.New(srv.SocketPath())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.RenameTab(ctx, tab, "cold"); err != nil {
		t.Fatal(err)
	}
	if st := c.WarmStats(); st != (herdr.WarmStats{}) {
		t.Fatalf("a cold client used the pool: %+v", st)
	}
	if n := srv.Connections(); n != 1 {
		t.Fatalf("connections = %d, want 1", n)
	}
}

// BenchmarkRenameUnderReadPoll times tab.rename against herdr's 0-100 ms
// request-read poll, on fresh connections and on warm ones. Besides the
// mean it reports p50 and p95 in ms: the tail is what the pool is for.
//
//	go test -run '^$' -bench RenameUnderReadPoll -benchtime 200x ./herdr/
func BenchmarkRenameUnderReadPoll(b *testing.B) {
	for _, warm := range []bool{false, true} {
		name := "fresh"
		if warm {
			name = "warm"
		}
		b.Run(name, func(b *testing.B) {
			srv := herdrtest.Start(b)
			_, tab, _ := srv.NewWorkspace("repo", "/tmp")
			c := herdr.New(srv.SocketPath())
			if warm {
				herdr.PreferWarm(c)
				c.Warm(time.Hour)
				defer c.Cool()
				testutil.WaitFor(b, "a full pool", func() bool { return c.WarmStats().Opened >= 16 })
			}
			ctx := context.Background()
			took := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				start := time.Now()
				if _, err := c.RenameTab(ctx, tab, fmt.Sprint(i)); err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
				// Renames come apart in time, not back to back in
				// step with the poll.
				b.StopTimer()
				time.Sleep(time.Duration(20+i%7*11) * time.Millisecond)
				b.StartTimer()
			}
			slices.Sort(took)
			b.ReportMetric(float64(testutil.NearestRank(took, 0.5))/1e6, "p50-ms")
			b.ReportMetric(float64(testutil.NearestRank(took, 0.95))/1e6, "p95-ms")
		})
	}
}

// Where fresh connections miss herdr's first look (herdrsim's late
// writes), the client learns it from their answers and takes a warm
// connection once it has one; before any warm one is near, fresh.
func TestWarmChosenWhereFreshConnectionsMiss(t *testing.T) {
	srv := herdrtest.Start(t, herdrsim.WithLateWrites())
	_, tab, _ := srv.NewWorkspace("repo", "/tmp")
	c := herdr.New(srv.SocketPath())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for range 3 {
		if _, err := c.Ping(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if n := srv.ReadPolls(); n != 3 {
		t.Fatalf("3 pings on fresh connections waited %d polls, want 3 (late writes)", n)
	}
	ignore := goleak.IgnoreCurrent()
	c.Warm(time.Minute)
	defer func() { c.Cool(); goleak.VerifyNone(t, ignore) }()
	testutil.WaitFor(t, "a full pool", func() bool { return c.WarmStats().Opened >= 16 })
	if _, err := c.RenameTab(ctx, tab, "warm"); err != nil {
		t.Fatal(err)
	}
	if st := c.WarmStats(); st.Used != 1 {
		t.Fatalf("warm stats %+v: the rename must take a warm connection", st)
	}
}

// A read that herdr has not answered in its usual time is hedged, and
// while the pool is warm the hedge goes out on the warm connection herdr
// looks at next: a second fresh connection misses herdr's first look as
// often as the first did.
func TestHedgeGoesOutOnAWarmConnection(t *testing.T) {
	srv := herdrtest.Start(t)
	srv.NewWorkspace("repo", "/tmp")
	c := warmed(t, srv, 16, func(c *herdr.Client) { herdr.WithHedging(true)(c) })
	srv.StallNext("session.snapshot", 10*time.Second, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Snapshot(ctx); err != nil {
		t.Fatal(err)
	}
	// Whichever of the two herdr reads first is the one it stalls.
	if h := c.HedgeStats(); h.Hedged != 1 {
		t.Fatalf("hedge stats %+v: want the snapshot hedged", h)
	}
	if w := c.WarmStats(); w.Used != 1 {
		t.Fatalf("warm stats %+v: want the hedge on a warm connection", w)
	}
}
