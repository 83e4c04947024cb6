package herdr

import (
	"context"
	"sync"
	"time"
)

// Hedged reads, on the plain path only. herdr reads a connection's
// request line non-blocking and, when the line has not arrived by its
// first read, sleeps 100 ms before looking again (docs/herdr.md §2). A
// plain connect and write loses that race by luck, so there a read that
// is late is sent again on a second connection and the first answer
// wins. Requests through io_uring (transport.go) never lose it, so they
// are never hedged: a late one is a busy herdr. Only reads are sent twice: closing the loser does
// not withdraw its request, herdr still reads the line from the socket
// buffer when its sleep ends, so a rename sent twice could land 100 ms
// later over a newer one; a second subscription is a second stream.
//
// The second request helps only against that poll. herdr answers requests
// on one app loop, so a server that is slow for real gets no faster from
// a second request, only busier. Hence: the wait before the second
// request follows what each method usually takes; no second request when
// the usual time itself is too long to beat the poll; at most one second
// request per call; and a budget of about one call in three, since a
// fresh connection misses herdr's first look often on a busy machine
// (docs/herdr.md §2).

// hedgeable are the methods that may go out twice: reads with no effect
// on herdr (tab.list and friends are the session.snapshot fallback).
var hedgeable = map[string]bool{
	"session.snapshot":  true,
	"pane.process_info": true,
	"workspace.list":    true,
	"tab.list":          true,
	"pane.list":         true,
}

// hedgeConfig tunes when a read goes out twice.
type hedgeConfig struct {
	// floor: never sooner than this. Scheduling noise on a busy machine
	// is a few ms, and is not what the hedge is for.
	floor time.Duration
	// ceiling: when twice the usual time is past this, no hedge. A
	// stalled request answers about 100 ms + usual after it was sent, a
	// hedge at d answers at d + usual: past ~60 ms the saving is small
	// and the server is likely just slow.
	ceiling time.Duration
	// prior: the wait before a method has minSamples answers. Long
	// enough that a big session's snapshot seldom trips it, short enough
	// to save most of a stall.
	prior      time.Duration
	window     int // answers remembered per method
	minSamples int
	// The budget is a token bucket in thousandths of a hedge: each call
	// deposits deposit, a hedge costs 1000, the bucket holds at most
	// burst and starts full. Over any stretch, hedges <= burst/1000 +
	// calls*deposit/1000.
	deposit, burst int
}

var defaultHedge = hedgeConfig{
	floor:      3 * time.Millisecond,
	ceiling:    60 * time.Millisecond,
	prior:      20 * time.Millisecond,
	window:     16,
	minSamples: 3,
	deposit:    334, // a third of calls
	burst:      3000,
}

const hedgeCost = 1000

// HedgeStats counts hedged reads since the Client was made. Subtract two
// readings field by field to get the counts of one stretch.
type HedgeStats struct {
	Calls  uint64 // hedgeable calls (session.snapshot, pane.process_info, the list fallback)
	Hedged uint64 // calls that sent a second request
	Won    uint64 // hedged calls that the second request answered first
	// Withheld counts calls that were late but got no second request:
	// the budget was spent, or the method's usual time was too long for
	// a hedge to help.
	Withheld uint64
}

// HedgeStats returns the client's hedging counters.
func (c *Client) HedgeStats() HedgeStats {
	c.hedge.mu.Lock()
	defer c.hedge.mu.Unlock()
	return c.hedge.stats
}

// WithHedging turns hedged reads on or off (the default) where requests
// take the plain path; through io_uring reads are never hedged. Off by
// default because a hedge is timing-driven: a caller that counts
// connections (an idle pass is one) or runs against a slow fake must
// choose it knowingly.
func WithHedging(on bool) Option {
	return func(c *Client) { c.hedge.off = !on }
}

type noHedgeKey struct{}

// WithoutHedge returns a context under which no read is hedged, for calls
// to which a 100 ms stall costs nothing (an idle poll): they then cost
// exactly one connection each.
func WithoutHedge(ctx context.Context) context.Context {
	return context.WithValue(ctx, noHedgeKey{}, true)
}

// hedger holds what a Client learnt about answer times and its budget.
type hedger struct {
	cfg hedgeConfig
	off bool
	// newTimer starts the hedge timer; tests replace it to fire by hand.
	newTimer func(time.Duration) (<-chan time.Time, func() bool)

	mu     sync.Mutex
	recent map[string]*recentTimes // answer times per method
	tokens int
	stats  HedgeStats
}

func newHedger() *hedger {
	return &hedger{
		off:    true,
		cfg:    defaultHedge,
		recent: make(map[string]*recentTimes),
		tokens: defaultHedge.burst,
		newTimer: func(d time.Duration) (<-chan time.Time, func() bool) {
			t := time.NewTimer(d)
			return t.C, t.Stop
		},
	}
}

func (h *hedger) applies(ctx context.Context, method string) bool {
	return !h.off && hedgeable[method] && ctx.Value(noHedgeKey{}) == nil
}

// plan counts a call and says how long to wait before hedging it; ok is
// false when it will not be hedged at all.
func (h *hedger) plan(method string) (wait time.Duration, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stats.Calls++
	h.tokens = min(h.tokens+h.cfg.deposit, h.cfg.burst)
	wait = h.waitLocked(method)
	if wait > h.cfg.ceiling || h.tokens < hedgeCost {
		// Counted as withheld only if the call turns out late: the
		// caller reports that through late.
		return wait, false
	}
	return wait, true
}

// waitLocked is twice the median of the method's recent answers, at
// least floor, or the prior before enough answers.
func (h *hedger) waitLocked(method string) time.Duration {
	r := h.recent[method]
	if r == nil || r.len() < h.cfg.minSamples {
		return h.cfg.prior
	}
	return max(2*r.median(), h.cfg.floor)
}

// learn remembers one successful answer time.
func (h *hedger) learn(method string, d time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.recent[method]
	if r == nil {
		r = &recentTimes{n: h.cfg.window}
		h.recent[method] = r
	}
	r.add(d)
}

// take spends one hedge from the budget, if there is one left (another
// call may have spent it since plan).
func (h *hedger) take() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.tokens < hedgeCost {
		h.stats.Withheld++
		return false
	}
	h.tokens -= hedgeCost
	h.stats.Hedged++
	return true
}

func (h *hedger) late() {
	h.mu.Lock()
	h.stats.Withheld++
	h.mu.Unlock()
}

func (h *hedger) won() {
	h.mu.Lock()
	h.stats.Won++
	h.mu.Unlock()
}

// observe takes in what the hedge learns from: the answer times of the
// calls it planned, the races its second send won, and the late calls it
// sent no second request for.
func (h *hedger) observe(o outcome) {
	switch {
	case o.kind == freshAnswered && o.hedging:
		h.learn(o.method, o.took)
	case o.kind == secondWon:
		h.won()
	case o.kind == lateAlone:
		h.late()
	}
}

// hedgedExchange is roundTrip for an idempotent read: when the first
// request has not been answered after the method's usual wait, the same
// line goes out a second time and the first reply wins (raceTwo). Both
// share the call's deadline. The loser's connection is closed (herdr sees
// a plain close, never another byte) before this returns.
func (c *Client) hedgedExchange(ctx context.Context, out outgoing) ([]byte, error) {
	h := c.hedge
	out.hedging = true
	wait, ok := h.plan(out.method)
	fresh := func(ctx context.Context) ([]byte, error) { return c.roundTrip(ctx, out) }
	if !ok {
		start := time.Now()
		reply, err := fresh(ctx)
		if time.Since(start) > wait {
			h.observe(outcome{kind: lateAlone, method: out.method})
		}
		return reply, err
	}
	admit := func() bool {
		if !h.take() {
			return false
		}
		c.log.Debug("herdr: hedging a late read", "hedged", out.method, "after", wait, "socket", c.path)
		return true
	}
	due, stop := h.newTimer(wait)
	defer stop()
	reply, res, err := raceTwo(ctx, fresh, fresh, due, admit)
	if res.secondWon {
		h.observe(outcome{kind: secondWon, method: out.method})
	}
	return reply, err
}
