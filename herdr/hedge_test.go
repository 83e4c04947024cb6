package herdr

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// Hedging tests drive time by hand: the hedge timer is a channel the test
// fires, and the server holds a first request until the client closes it
// or the test releases it. Nothing passes or fails on how fast the
// machine is.

// leakCheck fails the test if a goroutine it started outlives it. It runs
// after the servers' own cleanups, which were registered later.
func leakCheck(t *testing.T) {
	opt := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, opt) })
}

// handTimer replaces the client's hedge timer with ones the test fires.
type handTimer struct {
	armed chan armedTimer
}

type armedTimer struct {
	wait    time.Duration
	fire    chan time.Time
	stopped *atomic.Bool
}

func useHandTimer(c *Client) *handTimer {
	h := &handTimer{armed: make(chan armedTimer, 100)}
	// Answer times here are the test's own pacing, not the server's: a
	// slow test machine must not turn hedging off (TestHedgeWait covers
	// the ceiling).
	c.hedge.cfg.ceiling = time.Hour
	c.hedge.newTimer = func(d time.Duration) (<-chan time.Time, func() bool) {
		a := armedTimer{wait: d, fire: make(chan time.Time, 1), stopped: new(atomic.Bool)}
		h.armed <- a
		return a.fire, func() bool { return !a.stopped.Swap(true) }
	}
	return h
}

// next returns the timer armed for the call in flight, if there is one.
// The client arms it before dialling, so once the server holds the
// request the answer is certain.
func (h *handTimer) next() (armedTimer, bool) {
	select {
	case a := <-h.armed:
		return a, true
	default:
		return armedTimer{}, false
	}
}

// trackConns makes c count the connections it opens and closes.
func trackConns(c *Client) (opened, closed *atomic.Int64) {
	opened, closed = new(atomic.Int64), new(atomic.Int64)
	c.dial = func(ctx context.Context, path string) (net.Conn, error) {
		var d net.Dialer
		conn, err := d.DialContext(ctx, "unix", path)
		if err != nil {
			return nil, err
		}
		opened.Add(1)
		return &closeCounter{Conn: conn, closed: closed}, nil
	}
	return opened, closed
}

type closeCounter struct {
	net.Conn
	once   sync.Once
	closed *atomic.Int64
}

func (c *closeCounter) Close() error {
	c.once.Do(func() { c.closed.Add(1) })
	return c.Conn.Close()
}

// held is a first request the stall server holds.
type held struct {
	req     wireRequest
	release chan struct{} // close to make the server answer it
	// closedUnanswered gets true when the client closed the connection
	// (after nothing but its request line) before an answer.
	closedUnanswered chan bool
}

// stallServer holds the first connection for each request id and answers
// any later connection with the same id (a hedge) at once. answer builds
// the result object; who says which connection answers.
type stallServer struct {
	*rawServer
	held chan held
}

func startStall(t *testing.T, answer func(method, who string) string) *stallServer {
	s := &stallServer{held: make(chan held, 100)}
	var mu sync.Mutex
	seen := map[string]bool{}
	s.rawServer = startRaw(t, func(c *rawConn) {
		req, _ := c.readRequest()
		mu.Lock()
		first := !seen[req.ID]
		seen[req.ID] = true
		mu.Unlock()
		if !first {
			c.write(`{"id":"` + req.ID + `","result":` + answer(req.Method, "hedge") + "}\n")
			c.expectCleanClose()
			return
		}
		h := held{req: req, release: make(chan struct{}), closedUnanswered: make(chan bool, 1)}
		eof := make(chan error, 1)
		go func() {
			extra, err := io.ReadAll(c.br)
			if len(extra) > 0 {
				t.Errorf("server: client wrote %q after its request line", extra)
			}
			eof <- err
		}()
		s.held <- h
		select {
		case err := <-eof:
			h.closedUnanswered <- err == nil
		case <-h.release:
			c.write(`{"id":"` + req.ID + `","result":` + answer(req.Method, "first") + "}\n")
			if err := <-eof; err != nil {
				t.Errorf("server: waiting for the client to close: %v", err)
			}
		}
	})
	return s
}

func (s *stallServer) nextHeld(t *testing.T) held {
	t.Helper()
	select {
	case h := <-s.held:
		return h
	case <-time.After(waitLong):
		t.Fatal("server: no request arrived")
		return held{}
	}
}

// readAnswer builds a reply that names who answered in a field each
// call returns.
func readAnswer(method, who string) string {
	switch method {
	case "session.snapshot":
		return `{"type":"session_snapshot","snapshot":{"version":"` + who + `","protocol":20,"workspaces":[],"tabs":[],"panes":[]}}`
	case "pane.process_info":
		return `{"type":"pane_process_info","process_info":{"pane_id":"` + who + `"}}`
	case "workspace.list":
		return `{"type":"workspace_list","workspaces":[{"workspace_id":"w1","label":"` + who + `"}]}`
	case "tab.list":
		return `{"type":"tab_list","tabs":[{"tab_id":"w1:t1","label":"` + who + `"}]}`
	case "pane.list":
		return `{"type":"pane_list","panes":[{"pane_id":"` + who + `"}]}`
	case "tab.rename":
		return `{"type":"tab_info","tab":{"tab_id":"w1:t1","label":"` + who + `"}}`
	case "ping":
		return `{"type":"pong","version":"` + who + `","protocol":20}`
	}
	return `{"type":"unknown"}`
}

// reads are the hedgeable calls, each returning who answered.
var reads = []struct {
	method string
	call   func(context.Context, *Client) (string, error)
}{
	{"session.snapshot", func(ctx context.Context, c *Client) (string, error) {
		s, err := c.Snapshot(ctx)
		if err != nil {
			return "", err
		}
		return s.Version, nil
	}},
	{"pane.process_info", func(ctx context.Context, c *Client) (string, error) {
		p, err := c.ProcessInfo(ctx, "w1:p1")
		return p.PaneID, err
	}},
	{"workspace.list", func(ctx context.Context, c *Client) (string, error) {
		w, err := c.Workspaces(ctx)
		if err != nil || len(w) != 1 {
			return "", fmt.Errorf("workspaces %v: %w", w, err)
		}
		return w[0].Label, nil
	}},
	{"tab.list", func(ctx context.Context, c *Client) (string, error) {
		tabs, err := c.Tabs(ctx, "")
		if err != nil || len(tabs) != 1 {
			return "", fmt.Errorf("tabs %v: %w", tabs, err)
		}
		return tabs[0].Label, nil
	}},
	{"pane.list", func(ctx context.Context, c *Client) (string, error) {
		panes, err := c.Panes(ctx, "")
		if err != nil || len(panes) != 1 {
			return "", fmt.Errorf("panes %v: %w", panes, err)
		}
		return panes[0].ID, nil
	}},
}

type callResult struct {
	who string
	err error
}

func goCall(ctx context.Context, c *Client, call func(context.Context, *Client) (string, error)) <-chan callResult {
	done := make(chan callResult, 1)
	go func() {
		who, err := call(ctx, c)
		done <- callResult{who, err}
	}()
	return done
}

func waitCall(t *testing.T, done <-chan callResult) callResult {
	t.Helper()
	select {
	case r := <-done:
		return r
	case <-time.After(waitLong):
		t.Fatal("the call did not return")
		return callResult{}
	}
}

func TestHedgeStalledReadTakesTheSecondAnswer(t *testing.T) {
	for _, rd := range reads {
		t.Run(rd.method, func(t *testing.T) {
			leakCheck(t)
			srv := startStall(t, readAnswer)
			c := New(srv.path, WithHedging(true), WithPlainRequests())
			timers := useHandTimer(c)
			opened, closed := trackConns(c)

			done := goCall(context.Background(), c, rd.call)
			h := srv.nextHeld(t)
			if h.req.Method != rd.method {
				t.Fatalf("server got %s, want %s", h.req.Method, rd.method)
			}
			tm, ok := timers.next()
			if !ok {
				t.Fatal("no hedge timer armed for a read")
			}
			if tm.wait != defaultHedge.prior {
				t.Errorf("first call waits %v before hedging, want the prior %v", tm.wait, defaultHedge.prior)
			}
			tm.fire <- time.Now()

			r := waitCall(t, done)
			if r.err != nil || r.who != "hedge" {
				t.Fatalf("call = %q, %v; want the hedge's answer", r.who, r.err)
			}
			select {
			case clean := <-h.closedUnanswered:
				if !clean {
					t.Error("the stalled connection ended in an error, not a close")
				}
			case <-time.After(waitLong):
				t.Fatal("the stalled connection was not closed")
			}
			if got, want := c.HedgeStats(), (HedgeStats{Calls: 1, Hedged: 1, Won: 1}); got != want {
				t.Errorf("stats = %+v, want %+v", got, want)
			}
			if n := srv.conns.Load(); n != 2 {
				t.Errorf("server saw %d connections, want 2", n)
			}
			if o, cl := opened.Load(), closed.Load(); o != 2 || cl != 2 {
				t.Errorf("client opened %d connections and closed %d when the call returned, want 2 and 2", o, cl)
			}
			if !tm.stopped.Load() {
				t.Error("hedge timer not stopped")
			}
		})
	}
}

func TestHedgeFirstAnswerWinsAfterHedgeSent(t *testing.T) {
	// The hedge goes out, then the first request answers: its answer is
	// taken, whether the hedge is still waiting (its connection is then
	// closed) or has failed.
	for _, hedgeFails := range []bool{false, true} {
		t.Run(fmt.Sprint("hedge fails ", hedgeFails), func(t *testing.T) { testFirstAnswerWins(t, hedgeFails) })
	}
}

func testFirstAnswerWins(t *testing.T, hedgeFails bool) {
	leakCheck(t)
	srv := startStall(t, readAnswer)
	c := New(srv.path, WithHedging(true), WithPlainRequests())
	timers := useHandTimer(c)
	opened, closed := trackConns(c)
	hedgeArrived := make(chan struct{})
	srv2 := startRaw(t, func(rc *rawConn) {
		rc.readRequest()
		close(hedgeArrived)
		if !hedgeFails {
			rc.expectCleanClose() // never answered
		}
	})
	realDial := c.dial
	var n atomic.Int64
	c.dial = func(ctx context.Context, path string) (net.Conn, error) {
		if n.Add(1) == 2 {
			path = srv2.path // the hedge goes to a server that never answers
		}
		return realDial(ctx, path)
	}

	done := goCall(context.Background(), c, reads[0].call)
	h := srv.nextHeld(t)
	tm, _ := timers.next()
	tm.fire <- time.Now()
	<-hedgeArrived
	close(h.release)
	r := waitCall(t, done)
	if r.err != nil || r.who != "first" {
		t.Fatalf("call = %q, %v; want the first request's answer", r.who, r.err)
	}
	if got, want := c.HedgeStats(), (HedgeStats{Calls: 1, Hedged: 1}); got != want {
		t.Errorf("stats = %+v, want %+v", got, want)
	}
	if o, cl := opened.Load(), closed.Load(); o != 2 || cl != 2 {
		t.Errorf("client opened %d connections and closed %d, want 2 and 2", o, cl)
	}
}

func TestHedgeNotWhenAnsweredInTime(t *testing.T) {
	leakCheck(t)
	srv := startStall(t, readAnswer)
	c := New(srv.path, WithHedging(true), WithPlainRequests())
	timers := useHandTimer(c)
	opened, closed := trackConns(c)
	for i := range 5 {
		done := goCall(context.Background(), c, reads[0].call)
		h := srv.nextHeld(t)
		tm, ok := timers.next()
		if !ok {
			t.Fatalf("call %d: no hedge timer armed", i)
		}
		close(h.release)
		if r := waitCall(t, done); r.err != nil || r.who != "first" {
			t.Fatalf("call %d = %q, %v", i, r.who, r.err)
		}
		// A timer that fires just too late must change nothing.
		tm.fire <- time.Now()
		if !tm.stopped.Load() {
			t.Errorf("call %d: hedge timer not stopped", i)
		}
	}
	if got, want := c.HedgeStats(), (HedgeStats{Calls: 5}); got != want {
		t.Errorf("stats = %+v, want %+v", got, want)
	}
	if n, o, cl := srv.conns.Load(), opened.Load(), closed.Load(); n != 5 || o != 5 || cl != 5 {
		t.Errorf("server saw %d connections, client opened %d and closed %d; want 5 each", n, o, cl)
	}
}

func TestHedgeNotAfterFailure(t *testing.T) {
	// A first request that fails outright is returned as it is: the
	// hedge is for lateness, not a retry.
	leakCheck(t)
	srv := startRaw(t, func(rc *rawConn) { rc.readRequest() }) // close unanswered
	c := New(srv.path, WithHedging(true), WithPlainRequests())
	timers := useHandTimer(c)
	_, err := c.Snapshot(context.Background())
	if te := asTransport(t, err); !errors.Is(te, errNoLine) {
		t.Errorf("err = %v, want %v", err, errNoLine)
	}
	tm, _ := timers.next()
	tm.fire <- time.Now()
	if got, want := c.HedgeStats(), (HedgeStats{Calls: 1}); got != want {
		t.Errorf("stats = %+v, want %+v", got, want)
	}
	if n := srv.conns.Load(); n != 1 {
		t.Errorf("server saw %d connections, want 1", n)
	}
}

func TestHedgeNeverMutationsOrPing(t *testing.T) {
	leakCheck(t)
	calls := []struct {
		method string
		call   func(context.Context, *Client) (string, error)
	}{
		{"tab.rename", func(ctx context.Context, c *Client) (string, error) {
			tab, err := c.RenameTab(ctx, "w1:t1", "x")
			return tab.Label, err
		}},
		{"tab.rename", func(ctx context.Context, c *Client) (string, error) {
			var res struct {
				Tab Tab `json:"tab"`
			}
			err := c.Call(ctx, "tab.rename", map[string]string{"tab_id": "w1:t1", "label": "x"}, &res)
			return res.Tab.Label, err
		}},
		{"ping", func(ctx context.Context, c *Client) (string, error) {
			p, err := c.Ping(ctx)
			return p.Version, err
		}},
		{"session.snapshot", func(ctx context.Context, c *Client) (string, error) {
			return reads[0].call(WithoutHedge(ctx), c)
		}},
	}
	srv := startStall(t, readAnswer)
	c := New(srv.path, WithHedging(true), WithPlainRequests())
	timers := useHandTimer(c)
	for i, tc := range calls {
		done := goCall(context.Background(), c, tc.call)
		h := srv.nextHeld(t) // stalled: a hedge would be due
		if h.req.Method != tc.method {
			t.Fatalf("call %d: server got %s, want %s", i, h.req.Method, tc.method)
		}
		if tm, ok := timers.next(); ok {
			t.Errorf("call %d (%s): a hedge timer was armed (%v)", i, tc.method, tm.wait)
			tm.fire <- time.Now()
		}
		close(h.release)
		if r := waitCall(t, done); r.err != nil || r.who != "first" {
			t.Fatalf("call %d (%s) = %q, %v", i, tc.method, r.who, r.err)
		}
	}
	if got := c.HedgeStats(); got != (HedgeStats{}) {
		t.Errorf("stats = %+v, want none", got)
	}
	if n := srv.conns.Load(); n != int64(len(calls)) {
		t.Errorf("server saw %d connections for %d calls", n, len(calls))
	}

	// Hedging off for the whole client, as it is by default. A server of
	// its own: the stall server tells first requests by id, and a new
	// client counts ids from 1 again.
	srv = startStall(t, readAnswer)
	off := New(srv.path)
	timers = useHandTimer(off)
	done := goCall(context.Background(), off, reads[0].call)
	h := srv.nextHeld(t)
	if _, ok := timers.next(); ok {
		t.Error("hedging by default: a hedge timer was armed")
	}
	close(h.release)
	waitCall(t, done)
}

func TestHedgeBudgetOnAlwaysStalledServer(t *testing.T) {
	// Every first request stalls until the client gives up on it or the
	// test releases it: every call is late. Hedges stay within the
	// budget: the burst plus a tenth of the calls.
	leakCheck(t)
	srv := startStall(t, readAnswer)
	c := New(srv.path, WithHedging(true), WithPlainRequests())
	timers := useHandTimer(c)
	opened, closed := trackConns(c)
	const calls = 60
	hedged := 0
	for i := range calls {
		done := goCall(context.Background(), c, reads[0].call)
		h := srv.nextHeld(t)
		want := "first"
		if tm, ok := timers.next(); ok {
			tm.fire <- time.Now()
			want = "hedge"
			hedged++
		} else {
			close(h.release)
		}
		if r := waitCall(t, done); r.err != nil || r.who != want {
			t.Fatalf("call %d = %q, %v; want %q", i, r.who, r.err, want)
		}
	}
	burst := defaultHedge.burst / hedgeCost
	maxHedges := burst + calls*defaultHedge.deposit/hedgeCost
	if hedged > maxHedges || hedged < calls*defaultHedge.deposit/hedgeCost {
		t.Errorf("%d of %d always-late calls hedged, want between %d and %d", hedged, calls, calls*defaultHedge.deposit/hedgeCost, maxHedges)
	}
	st := c.HedgeStats()
	if st.Calls != calls || st.Hedged != uint64(hedged) || st.Won != uint64(hedged) {
		t.Errorf("stats = %+v, want %d calls, %d hedged and won", st, calls, hedged)
	}
	if n, o, cl := srv.conns.Load(), opened.Load(), closed.Load(); n != int64(calls+hedged) || o != n || cl != n {
		t.Errorf("server saw %d connections, client opened %d and closed %d; want %d", n, o, cl, calls+hedged)
	}
}

func TestHedgeWait(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		d := make([]time.Duration, len(v))
		for i, x := range v {
			d[i] = time.Duration(x) * time.Millisecond
		}
		return d
	}
	cfg := defaultHedge
	tests := []struct {
		name    string
		answers []time.Duration
		want    time.Duration
		hedge   bool
	}{
		{"nothing learnt: the prior", nil, cfg.prior, true},
		{"too few answers: the prior", ms(1, 1), cfg.prior, true},
		{"twice the median", ms(10, 12, 11), 22 * time.Millisecond, true},
		{"never below the floor", ms(1, 1, 1, 1), cfg.floor, true},
		{"stalls do not move the median", ms(2, 2, 2, 102, 102), 4 * time.Millisecond, true},
		{"a slow server is not hedged", ms(40, 45, 50), 90 * time.Millisecond, false},
		{"only the window counts", append(ms(40, 40, 40, 40, 40, 40, 40, 40, 40, 40), ms(5, 5, 5, 5, 5, 5, 5, 5, 5)...), 10 * time.Millisecond, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHedger()
			for _, d := range tc.answers {
				h.learn("session.snapshot", d)
				h.learn("pane.process_info", time.Second) // other methods learn apart
			}
			got, ok := h.plan("session.snapshot")
			if got != tc.want || ok != tc.hedge {
				t.Errorf("plan = %v, %v; want %v, %v", got, ok, tc.want, tc.hedge)
			}
		})
	}
}

// BenchmarkHedgedSocket is BenchmarkHedgedSnapshot against the herdr
// socket named by $HERDR_BENCH_SOCKET (skipped without it): a real herdr,
// or a replica of its transport. It only reads (session.snapshot).
func BenchmarkHedgedSocket(b *testing.B) {
	path := os.Getenv("HERDR_BENCH_SOCKET")
	if path == "" {
		b.Skip("HERDR_BENCH_SOCKET is not set")
	}
	for _, hedge := range []bool{false, true} {
		b.Run(fmt.Sprintf("hedge=%v", hedge), func(b *testing.B) {
			benchSnapshots(b, New(path, WithHedging(hedge), WithPlainRequests()))
		})
	}
}

// benchSnapshots takes Snapshots in a row and reports latency quantiles
// and how many were hedged.
func benchSnapshots(b *testing.B, c *Client) {
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := c.Snapshot(context.Background()); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	ms := func(q float64) float64 {
		return float64(took[int(q*float64(len(took)-1))]) / float64(time.Millisecond)
	}
	st := c.HedgeStats()
	b.ReportMetric(ms(0.5), "p50-ms")
	b.ReportMetric(ms(0.95), "p95-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
	b.ReportMetric(100*float64(st.Hedged)/float64(len(took)), "hedged-%")
	b.ReportMetric(100*float64(st.Won)/float64(len(took)), "won-%")
}

// BenchmarkHedgedSnapshot measures Snapshot latency against a server that,
// like herdr, sleeps 100 ms before reading a request on a fraction of
// connections (docs/herdr.md §2), with hedging on and off. Run with a
// fixed count so both see the same number of calls:
//
//	go test -run '^$' -bench HedgedSnapshot -benchtime 400x ./herdr/
func BenchmarkHedgedSnapshot(b *testing.B) {
	answer := `{"id":"x","result":` + strings.Replace(readAnswer("session.snapshot", "0.8.2"), `"workspaces":[]`,
		`"workspaces":[{"workspace_id":"w1","number":1,"label":"repo","focused":true,"pane_count":3,"tab_count":2,"active_tab_id":"w1:t1","agent_status":"idle"}]`, 1) + "}\n"
	for _, stall := range []float64{0.1, 0.25} {
		for _, hedge := range []bool{false, true} {
			b.Run(fmt.Sprintf("stall=%.0f%%/hedge=%v", stall*100, hedge), func(b *testing.B) {
				var mu sync.Mutex
				rng := rand.New(rand.NewPCG(1, 2))
				srv := startRaw(b, func(c *rawConn) {
					mu.Lock()
					late := rng.Float64() < stall
					mu.Unlock()
					if late {
						time.Sleep(100 * time.Millisecond) // herdr's CONNECTION_POLL_INTERVAL
					}
					if _, err := c.br.ReadBytes('\n'); err != nil {
						return // a hedge's loser, closed while we slept
					}
					_, _ = io.WriteString(c, answer)
					_, _ = io.Copy(io.Discard, c.br)
				})
				benchSnapshots(b, New(srv.path, WithHedging(hedge), WithPlainRequests()))
			})
		}
	}
}
