package herdr

import (
	"net"
	"testing"
	"time"
)

func TestNextLook(t *testing.T) {
	phase := time.Unix(1000, 0)
	const poll = 100 * time.Millisecond
	ms := func(n int) time.Time { return phase.Add(time.Duration(n) * time.Millisecond) }
	for _, tc := range []struct {
		at, want int // ms after phase
	}{
		{0, 100},     // the look at accept is over: the next is a poll later
		{1, 100},     // within the first sleep
		{99, 100},    // just before a look
		{100, 100},   // on a look: written before it, read at it
		{101, 200},   // just missed one
		{4350, 4400}, // late in the connection's life
	} {
		if got := nextLook(phase, ms(tc.at), poll, 0); !got.Equal(ms(tc.want)) {
			t.Errorf("nextLook(+%d ms) = +%v, want +%d ms", tc.at, got.Sub(phase), tc.want)
		}
	}
}

func TestSoonestPicksTheNextLook(t *testing.T) {
	base := time.Unix(2000, 0)
	const poll = 100 * time.Millisecond
	conn := openConn(t)
	// Slots opened 0, 25, 50 and 75 ms into a cycle (one empty).
	slots := func(empty int) []warmSlot {
		s := make([]warmSlot, 4)
		for i := range s {
			s[i].phase = base.Add(time.Duration(i) * 25 * time.Millisecond)
			if i != empty {
				s[i].conn = conn
			}
		}
		return s
	}
	for _, tc := range []struct {
		name  string
		at    time.Duration // after base, a few cycles on
		empty int
		want  int
	}{
		{"just after slot 0's look", 301 * time.Millisecond, -1, 1},
		{"right on slot 2's look", 350 * time.Millisecond, -1, 2},
		{"slot 2 looks before slot 3", 330 * time.Millisecond, -1, 2},
		{"slot 3 next", 360 * time.Millisecond, -1, 3},
		{"before slot 0 wraps", 380 * time.Millisecond, -1, 0},
		{"the soonest is taken: the next one", 301 * time.Millisecond, 1, 2},
	} {
		got := soonest(slots(tc.empty), base.Add(tc.at), poll, 0)
		if got != tc.want {
			t.Errorf("%s: soonest = %d, want %d", tc.name, got, tc.want)
		}
	}
	if got := soonest(make([]warmSlot, 3), base, poll, 0); got != -1 {
		t.Errorf("no connections: soonest = %d, want -1", got)
	}
}

// With looks running late, an old connection's next look comes later than
// a whole number of polls; a young one's hardly.
func TestSoonestCountsDrift(t *testing.T) {
	now := time.Unix(3000, 0)
	const poll = 100 * time.Millisecond
	conn := openConn(t)
	slots := []warmSlot{
		// 40 looks old: due 5 ms from now by whole polls, 45 ms by drift.
		{conn: conn, phase: now.Add(5*time.Millisecond - 40*poll)},
		// 2 looks old: due 20 ms from now, 22 ms by drift.
		{conn: conn, phase: now.Add(20*time.Millisecond - 2*poll)},
	}
	if got := soonest(slots, now, poll, 0); got != 0 {
		t.Fatalf("without drift: soonest = %d, want the old one (0)", got)
	}
	if got := soonest(slots, now, poll, time.Millisecond); got != 1 {
		t.Fatalf("with 1 ms drift a look: soonest = %d, want the young one (1)", got)
	}
	if got, want := nextLook(slots[0].phase, now, poll, time.Millisecond), now.Add(5*time.Millisecond-40*poll+40*(poll+time.Millisecond)); !got.Equal(want) {
		t.Fatalf("nextLook with drift = %v, want %v", got.Sub(now), want.Sub(now))
	}
}

func TestLearnDriftIsTheMedianOfRecentReplies(t *testing.T) {
	p := &warmPool{cfg: defaultWarm, drifts: recentTimes{n: driftSamples}}
	phase := time.Unix(4000, 0)
	const poll = 100 * time.Millisecond
	// Replies 10 looks in, 5 ms late (0.5 ms a look), and one outlier.
	for range 5 {
		p.learn(phase, phase.Add(10*poll+5*time.Millisecond))
	}
	p.learn(phase, phase.Add(10*poll+50*time.Millisecond))
	if d := p.drifts.median(); d != 500*time.Microsecond {
		t.Fatalf("drift = %v, want 500µs (the median, not the outlier)", d)
	}
	// A reply within a young connection's first looks says little
	// about drift: ignored.
	p.learn(phase, phase.Add(poll+9*time.Millisecond))
	if n := p.drifts.len(); n != 6 {
		t.Fatalf("samples = %d, want 6: a reply 1 look in is not a sample", n)
	}
	for range 2 * driftSamples {
		p.learn(phase, phase.Add(20*poll+40*time.Millisecond))
	}
	if n, d := p.drifts.len(), p.drifts.median(); n != driftSamples || d != 2*time.Millisecond {
		t.Fatalf("after many: %d samples, drift %v; want %d, 2ms", n, d, driftSamples)
	}
}

// A warm connection is taken when its next look is within reach (a
// quarter poll), or nearer than what a fresh one costs on average (the
// poll, as often as fresh ones miss herdr's first look) where that is
// more: not while a pool fills, whose first connections look again only
// a poll after they opened.
func TestTakeWeighsAWarmLookAgainstAFreshConnection(t *testing.T) {
	conn := openConn(t)
	for _, tc := range []struct {
		name   string
		opened time.Duration // before now
		missed float64
		want   bool
	}{
		{"pool filling: next look 95 ms off", 5 * time.Millisecond, 0.15, false},
		{"next look 10 ms off, 15% of fresh ones miss", 90 * time.Millisecond, 0.15, true},
		{"next look 10 ms off, 2% miss", 90 * time.Millisecond, 0.02, true},
		{"next look 1 ms off, 2% miss", 99 * time.Millisecond, 0.02, true},
		{"next look 20 ms off, 2% miss", 80 * time.Millisecond, 0.02, true},
		{"next look 30 ms off, 8% miss", 70 * time.Millisecond, 0.08, false},
		{"next look 30 ms off, 40% miss", 70 * time.Millisecond, 0.40, true},
	} {
		now := time.Unix(5000, 0)
		p := &warmPool{cfg: defaultWarm, now: func() time.Time { return now }, running: true, kick: make(chan struct{}, 1), missed: tc.missed}
		p.slots = []warmSlot{{conn: conn, phase: now.Add(-tc.opened)}, {due: now.Add(time.Millisecond)}}
		got, phase, ok := p.take()
		if ok != tc.want {
			t.Errorf("%s: took %v, want %v", tc.name, ok, tc.want)
			continue
		}
		if !ok {
			continue
		}
		if got != conn || !phase.Equal(now.Add(-tc.opened)) || p.stats.Used != 1 {
			t.Errorf("%s: take = %v, %v (stats %+v); want the warm connection", tc.name, got, phase, p.stats)
		}
		if p.slots[0].conn != nil || p.slots[0].due.IsZero() {
			t.Errorf("%s: slot after take %+v; want it empty with its refill planned", tc.name, p.slots[0])
		}
	}
}

func TestFreshMissesAreAMovingAverage(t *testing.T) {
	p := &warmPool{cfg: defaultWarm, missed: missedPrior}
	for range 100 {
		p.fresh(time.Millisecond)
	}
	if p.missed > 0.01 {
		t.Fatalf("after 100 quick answers missed = %.3f, want near 0", p.missed)
	}
	for range 3 {
		p.fresh(101 * time.Millisecond)
	}
	if p.missed < 0.15 || p.missed > 0.2 {
		t.Fatalf("after 3 of 103 waited a poll, missed = %.3f, want about 3/16", p.missed)
	}
}

func TestRefillAimsAtTheWidestGap(t *testing.T) {
	cycle := time.Unix(6000, 0) // a whole number of polls since the epoch: place 0
	at := func(ms int) time.Time { return cycle.Add(time.Duration(ms) * time.Millisecond) }
	conn := openConn(t)
	p := &warmPool{cfg: defaultWarm}
	p.slots = []warmSlot{
		{conn: conn, phase: at(-300)}, // place 0
		{conn: conn, phase: at(-180)}, // place 20
		{due: at(130)},                // planned at place 30
		{},                            // the slot to refill
	}
	now := at(240) // place 40
	// Places 0, 20, 30: the widest gap is 30..100, its middle 65.
	if got, want := p.gapLocked(now, 3), at(265); !got.Equal(want) {
		t.Fatalf("refill at %v, want %v (place 65)", got.Sub(cycle), want.Sub(cycle))
	}
	// A place already passed in this cycle comes round in the next.
	if got, want := p.gapLocked(at(270), 3), at(365); !got.Equal(want) {
		t.Fatalf("refill at %v, want %v", got.Sub(cycle), want.Sub(cycle))
	}
	if got := (&warmPool{cfg: defaultWarm, slots: make([]warmSlot, 2)}).gapLocked(now, 0); !got.Equal(now) {
		t.Fatalf("an empty pool refills at %v, want now", got.Sub(now))
	}
}

// openConn is a connection for a slot to hold: the choice of a slot only
// asks whether it has one.
func openConn(t *testing.T) net.Conn {
	conn, other := net.Pipe()
	t.Cleanup(func() { conn.Close(); other.Close() })
	return conn
}
