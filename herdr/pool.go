package herdr

import (
	"context"
	"net"
	"slices"
	"sync"
	"time"
)

// Warm connections. herdr reads a new connection's request line at once
// and, when it has not arrived, looks again every 100 ms (docs/herdr.md
// §2). A request written on a fresh connection therefore lands at once or
// 100 ms late, and which one is luck: connect wakes herdr, which may run
// before our write does. Reads get a second connection when late
// (hedge.go); a tab.rename must go out once, since the late copy would
// still land and could bury a newer name.
//
// So, while the daemon expects renames (a shell hook just spoke), the
// client keeps connections open that have sent nothing, opened at moments
// spread over the poll cycle. herdr looks at each one at its accept time
// plus a whole number of polls, or a little later (each sleep overshoots,
// never undershoots), so a line written now on the connection whose next
// look is soonest is read within about one spacing: 100 ms / size. Every
// request goes out exactly once, on exactly one connection.
//
// herdr drops a connection that sends nothing for 5 s and logs a warning;
// a closed connection ends quietly. Each warm connection is closed before
// then and its slot refilled where the cycle has its widest gap, and all
// are closed when the warm spell ends.

// warmConfig shapes the pool.
type warmConfig struct {
	size int           // connections kept open
	poll time.Duration // herdr's CONNECTION_POLL_INTERVAL
	// renew: replace a connection at this age, well under herdr's 5 s.
	// soonest counts only looks that cannot have come yet, so an old
	// connection, whose looks have drifted late, is passed over for a
	// stretch before each of its looks as long as its drift so far: at
	// 4.4 s and herdrsim's ~0.17 ms a look that was 7 ms, more than the
	// 6.25 ms between slots, and a rename waited for the slot after.
	renew  time.Duration
	margin time.Duration // write at least this long before the look aimed at
	// reach is how far off a warm connection's next look may be and the
	// connection still be taken over a fresh one (reachLocked).
	reach time.Duration
}

var defaultWarm = warmConfig{
	size:   16,
	poll:   100 * time.Millisecond,
	renew:  time.Second,
	margin: 250 * time.Microsecond,
	reach:  25 * time.Millisecond,
}

// WarmStats counts the warm pool's connections since the Client was made.
type WarmStats struct {
	Opened  uint64 // connections opened for the pool
	Used    uint64 // requests sent on a warm connection
	Retired uint64 // closed unused: renewed, or the warm spell ended
	Dead    uint64 // found closed by herdr when wanted; the request went on a fresh connection
	Failed  uint64 // dials that failed (herdr away)
}

// warmSlot is one place in the poll cycle.
type warmSlot struct {
	conn net.Conn
	// phase is taken just before the connect: herdr's looks at conn come
	// at phase + k·poll or later, never sooner.
	phase time.Time
	// due is when to open the slot's next connection (conn == nil).
	due time.Time
}

type warmPool struct {
	c   *Client
	cfg warmConfig
	now func() time.Time // the clock (tests)

	mu      sync.Mutex
	slots   []warmSlot
	until   time.Time
	running bool
	kick    chan struct{}
	done    chan struct{} // closed when the keeper has ended
	stats   WarmStats
	// drifts are how much later than a whole number of polls herdr's
	// looks came, per look, learnt from replies on warm connections: each
	// sleep of herdr's overshoots a little (docs/herdr.md §2), and it adds
	// up over a connection's life. Their median is the estimate.
	drifts recentTimes
	// missed is the share of fresh connections whose request herdr read
	// only after its poll (a moving average): a fresh connection costs
	// that times a poll on average. Where that is more than the reach, a
	// warm connection that far off is still worth taking.
	missed float64
}

// missedPrior is the share of fresh connections taken to miss herdr's
// first look before any is measured: a guess, replaced by measurement
// within some 16 requests.
const missedPrior = 0.15

// driftSamples is how many replies the drift estimate remembers.
const driftSamples = 16

func newWarmPool(c *Client) *warmPool {
	return &warmPool{c: c, cfg: defaultWarm, now: time.Now, kick: make(chan struct{}, 1), missed: missedPrior, drifts: recentTimes{n: driftSamples}}
}

// Warm keeps a pool of idle connections open for the next d (extending a
// spell already running), so that requests that go out once (tab.rename,
// tab.get, ping) wait a few ms for herdr's read poll instead of 0 or
// 100 ms. Reads dial afresh; a late one is hedged, on a warm connection
// if there is one. d <= 0 ends the spell at once. Call Cool before
// dropping the Client.
func (c *Client) Warm(d time.Duration) {
	p := c.warm
	p.mu.Lock()
	defer p.mu.Unlock()
	if d <= 0 {
		p.until = time.Time{}
		p.wake()
		return
	}
	if u := p.now().Add(d); u.After(p.until) {
		p.until = u
	}
	if !p.running {
		p.running = true
		p.done = make(chan struct{})
		now := p.now()
		p.slots = make([]warmSlot, p.cfg.size)
		for i := range p.slots {
			p.slots[i].due = now.Add(time.Duration(i) * p.cfg.poll / time.Duration(p.cfg.size))
		}
		go p.keep()
	}
}

// Cool ends a warm spell and waits until every warm connection is closed.
func (c *Client) Cool() {
	p := c.warm
	p.mu.Lock()
	p.until = time.Time{}
	done := p.done
	p.wake()
	p.mu.Unlock()
	if done != nil {
		<-done
	}
}

// WarmStats returns the warm pool's counters.
func (c *Client) WarmStats() WarmStats {
	c.warm.mu.Lock()
	defer c.warm.mu.Unlock()
	return c.warm.stats
}

// wake tells keep to look at the pool again (a spell began or was
// renewed, a connection was taken).
func (p *warmPool) wake() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// keep opens, renews and finally closes the pool's connections; it runs
// while a spell lasts.
func (p *warmPool) keep() {
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-timer.C:
		case <-p.kick:
		}
		now := p.now()
		p.mu.Lock()
		if !now.Before(p.until) {
			p.closeAllLocked()
			p.running = false
			close(p.done)
			p.mu.Unlock()
			return
		}
		var open []int
		next := p.until
		for i := range p.slots {
			s := &p.slots[i]
			if s.conn != nil && !now.Before(s.phase.Add(p.cfg.renew)) {
				_ = s.conn.Close()
				s.conn = nil
				p.stats.Retired++
				s.due = p.gapLocked(now, i)
			}
			switch {
			case s.conn != nil:
				next = earlier(next, s.phase.Add(p.cfg.renew))
			case now.Before(s.due):
				next = earlier(next, s.due)
			default:
				open = append(open, i)
			}
		}
		p.mu.Unlock()
		for _, i := range open {
			p.open(i)
		}
		timer.Reset(next.Sub(p.now()))
	}
}

// open dials slot i's connection.
func (p *warmPool) open(i int) {
	ctx, cancel := context.WithTimeout(context.Background(), p.c.timeout)
	defer cancel()
	phase := p.now()
	conn, err := p.c.dial(ctx, p.c.path)
	p.mu.Lock()
	defer p.mu.Unlock()
	s := &p.slots[i]
	if err != nil {
		p.stats.Failed++
		// Again a poll later; the spell's end stops the retries.
		s.due = phase.Add(p.cfg.poll)
		return
	}
	p.stats.Opened++
	s.conn, s.phase = conn, phase
}

// gapLocked says when to open a connection for empty slot skip: at the
// middle of the widest gap between the places in the poll cycle that the
// other slots hold or are about to, the first time that place comes
// round. Slots drift (their looks run late, and each connection opens a
// little after it was due), and refilling a slot at its old place would
// let them bunch up over time, leaving holes a request then waits
// through; aiming at the widest gap spreads them out again.
func (p *warmPool) gapLocked(now time.Time, skip int) time.Time {
	poll := p.cfg.poll
	var places []time.Duration
	for i, s := range p.slots {
		switch {
		case i == skip:
		case s.conn != nil:
			looks := now.Sub(s.phase) / poll
			places = append(places, cyclePlace(s.phase.Add(looks*p.drifts.median()), poll))
		case !s.due.IsZero():
			places = append(places, cyclePlace(s.due, poll))
		}
	}
	if len(places) == 0 {
		return now
	}
	slices.Sort(places)
	target, widest := places[0]+poll/2, time.Duration(0)
	for i, at := range places {
		end := places[0] + poll
		if i+1 < len(places) {
			end = places[i+1]
		}
		if gap := end - at; gap > widest {
			target, widest = at+gap/2, gap
		}
	}
	wait := (target - cyclePlace(now, poll) + 2*poll) % poll
	return now.Add(wait)
}

// cyclePlace is t's place in a cycle of length poll.
func cyclePlace(t time.Time, poll time.Duration) time.Duration {
	return time.Duration(t.UnixNano() % int64(poll))
}

func (p *warmPool) closeAllLocked() {
	for i := range p.slots {
		if s := &p.slots[i]; s.conn != nil {
			_ = s.conn.Close()
			s.conn = nil
			p.stats.Retired++
		}
	}
}

// take hands out the warm connection herdr will likely look at soonest,
// if the pool has one, with the moment it was opened (for learn), and
// plans its slot's next connection for the widest gap in the cycle.
func (p *warmPool) take() (net.Conn, time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.running {
		return nil, time.Time{}, false
	}
	now := p.now()
	at := now.Add(p.cfg.margin)
	drift := p.drifts.median()
	best := soonest(p.slots, at, p.cfg.poll, drift)
	if best < 0 || nextLook(p.slots[best].phase, at, p.cfg.poll, drift).Sub(now) > p.reachLocked() {
		return nil, time.Time{}, false
	}
	s := &p.slots[best]
	conn, phase := s.conn, s.phase
	s.conn = nil
	s.due = p.gapLocked(now, best)
	p.stats.Used++
	p.wake()
	return conn, phase, true
}

// learn takes in a reply read at `at` on a warm connection opened at
// phase: herdr read the request at its last look before then, which puts
// an upper bound on how late its looks run. The median of recent bounds
// is the estimate; replies on young connections, where the time herdr
// took to answer weighs more than the drift, are left out.
func (p *warmPool) learn(phase, at time.Time) {
	looks := at.Sub(phase) / p.cfg.poll
	if looks < 3 {
		return
	}
	sample := (at.Sub(phase) - looks*p.cfg.poll) / looks
	p.mu.Lock()
	p.drifts.add(sample)
	p.mu.Unlock()
}

// soonest is the slot with a connection whose next look by herdr at or
// after t is likely to come first, or -1.
//
// Each slot is judged by its look k, the first with phase + k·poll >= t:
// look k cannot come before then, so a line written now is read by look k
// at the latest, k·drift or so after that bound. The looks before it may
// already be over, since drift is only an estimate; counting on one of
// them could cost a whole poll.
func soonest(slots []warmSlot, t time.Time, poll, drift time.Duration) int {
	best, bestLook := -1, time.Time{}
	for i, s := range slots {
		if s.conn == nil {
			continue
		}
		if look := nextLook(s.phase, t, poll, drift); best < 0 || look.Before(bestLook) {
			best, bestLook = i, look
		}
	}
	return best
}

// nextLook is when herdr likely makes look k at a connection opened at
// phase, k being the first look (k >= 1: the one at accept is over) that
// cannot come before t: phase + k·poll >= t. Its likely time adds the
// drift of k looks.
func nextLook(phase, t time.Time, poll, drift time.Duration) time.Time {
	k := max((t.Sub(phase)+poll-1)/poll, 1)
	return phase.Add(k * (poll + drift))
}

// reachLocked is how far off a warm connection's next look may be for it
// to be taken over a fresh connection. A fresh one is answered at once
// when herdr's first look finds its request and a whole poll later when
// it misses, and which one is luck: the connect wakes herdr, which may
// look before the write. A person notices the slow rename, not the mean,
// so a warm look within reach is always taken; further off only while
// fresh connections miss so often that their mean cost (the poll, as
// often as they miss) is higher still.
func (p *warmPool) reachLocked() time.Duration {
	return max(time.Duration(p.missed*float64(p.cfg.poll)), p.cfg.reach)
}

// fresh takes in how long a request on a fresh connection took: one that
// took most of a poll or more waited for it (or herdr was slow, and then
// a warm connection is no worse).
func (p *warmPool) fresh(took time.Duration) { p.noteFresh(took >= p.cfg.poll*9/10) }

// missedLook takes in a fresh request that was still waiting when its
// hedge answered: it missed herdr's first look.
func (p *warmPool) missedLook() { p.noteFresh(true) }

func (p *warmPool) noteFresh(missed bool) {
	v := 0.0
	if missed {
		v = 1
	}
	p.mu.Lock()
	p.missed += (v - p.missed) / 16
	p.mu.Unlock()
}

// observe takes in what the pool learns from: how long fresh requests
// took and which lost a race to a second send (how often fresh
// connections miss herdr's first look), replies on warm connections (how
// late its looks run), and warm connections herdr had closed.
func (p *warmPool) observe(o outcome) {
	switch o.kind {
	case freshAnswered:
		p.fresh(o.took)
	case warmAnswered:
		p.learn(o.phase, p.now())
	case warmClosed:
		p.dead()
	case secondWon:
		p.missedLook()
	}
}

func (p *warmPool) dead() {
	p.mu.Lock()
	p.stats.Dead++
	p.mu.Unlock()
}

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
