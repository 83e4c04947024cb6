//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// Requests on each request path, the figures behind hedged reads: on a
// real herdr with the 6-tab, 6-agent session, readSamples calls per
// client, 20 ms apart, the clients taking turns, quiet and then beside
// busy loops: `ping`, which herdr answers on the connection's own thread
// (its time is the connection's, herdr's read poll included), and
// `session.snapshot`, which goes through herdr's app loop. On the plain path a read that misses herdr's first
// look waits its 100 ms read poll, and a hedge (a second connection sent
// after twice the usual time) wins some back; on io_uring no read waits
// the poll, so a hedge would only add requests to a busy herdr.

// readSamples is how many reads each client makes per round.
const readSamples = 200

// readClient is one way of reading: method on c.
type readClient struct {
	name, method string
	c            *herdr.Client
}

// readRows measures reads and returns their rows.
func (w *world) readRows(bin string) ([]row, error) {
	rs, _, err := w.restServer(bin, restCase{tabs: 6, agents: 6})
	if err != nil {
		return nil, err
	}
	defer rs.close()
	sock := rs.srv.Socket
	ring, plain := herdr.New(sock), herdr.New(sock, herdr.WithPlainRequests())
	clients := []readClient{
		// ping is answered on herdr's connection thread, not its app
		// loop: all its time is the connection, the read poll included.
		{"io_uring", "ping", ring},
		{"plain connect+write", "ping", plain},
		{"io_uring, no hedge", "session.snapshot", ring},
		{"plain connect+write, no hedge", "session.snapshot", plain},
		{"plain connect+write, hedged (the daemon's fallback)", "session.snapshot", herdr.New(sock, herdr.WithPlainRequests(), herdr.WithHedging(true))},
	}
	quiet, err := readRound(clients, 0)
	if err != nil {
		return nil, err
	}
	busy, err := readRound(clients, busyLoops)
	if err != nil {
		return nil, err
	}
	var rows []row
	for i, rc := range clients {
		rows = append(rows, row{fmt.Sprintf("real herdr: `%s`, 6 tabs, 6 agents, %s (%d requests)", rc.method, rc.name, readSamples),
			fmt.Sprintf("quiet %s; %d busy loops %s", quiet[i], busyLoops, busy[i]), "-"})
	}
	fmt.Fprintln(os.Stderr, "bench: real herdr reads done")
	return rows, nil
}

// readRound reads with every client in turn, beside busy busy loops, and
// returns one figure per client: p50 / p95 / max, how many took over
// 50 ms, and for a hedging client its hedges.
func readRound(clients []readClient, busy int) ([]string, error) {
	if busy > 0 {
		stop, err := startBusy(busy)
		if err != nil {
			return nil, err
		}
		defer stop()
		time.Sleep(2 * time.Second)
	}
	load := loadAverage()
	took := make([][]time.Duration, len(clients))
	before := make([]herdr.HedgeStats, len(clients))
	for i, rc := range clients {
		before[i] = rc.c.HedgeStats()
	}
	for range readSamples {
		for i, rc := range clients {
			time.Sleep(20 * time.Millisecond)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			start := time.Now()
			err := rc.c.Call(ctx, rc.method, nil, nil)
			cancel()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", rc.name, err)
			}
			took[i] = append(took[i], time.Since(start))
		}
	}
	out := make([]string, len(clients))
	for i, rc := range clients {
		over := len(slices.DeleteFunc(slices.Clone(took[i]), func(d time.Duration) bool { return d <= 50*time.Millisecond }))
		out[i] = fmt.Sprintf("%s, %d over 50 ms", pcts(took[i]), over)
		if h := rc.c.HedgeStats(); h.Calls > before[i].Calls {
			out[i] += fmt.Sprintf(", %d hedged, %d won", h.Hedged-before[i].Hedged, h.Won-before[i].Won)
		}
		out[i] += " (load " + load + ")"
	}
	return out, nil
}
