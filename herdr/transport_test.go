package herdr

import (
	"context"
	"net"
	"os"
	"testing"
	"time"
)

// A request goes out on the process's path: through io_uring the
// connection comes back as the socket's file, its line already sent;
// a caller's dialer, or the plain path, gives a net.Conn.
func TestSendTakesTheProcessPath(t *testing.T) {
	srv := startRaw(t, func(c *rawConn) {
		c.readRequest()
		c.write(`{"id":"x","result":{"type":"pong","version":"0.8.2","protocol":20}}` + "\n")
	})
	for _, tc := range []struct {
		name string
		dial bool
	}{{"process path", false}, {"caller's dialer", true}} {
		t.Run(tc.name, func(t *testing.T) {
			c := New(srv.path)
			if tc.dial {
				countWrites(c)
			}
			line, _, err := c.encodeRequest("ping", nil)
			if err != nil {
				t.Fatal(err)
			}
			w, err := c.send(context.Background(), "ping", line, time.Now().Add(5*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			_, isFile := w.(*os.File)
			_, isConn := w.(net.Conn)
			ring := c.RequestPath().Ring
			if ring != isFile || ring == isConn {
				t.Errorf("RequestPath().Ring = %v, connection a %T", ring, w)
			}
			if tc.dial && ring {
				t.Error("a client with its own dialer takes the ring")
			}
			if reply, err := c.converse(context.Background(), w, "ping", time.Now().Add(5*time.Second)); err != nil || len(reply) == 0 {
				t.Errorf("reply %q, %v", reply, err)
			}
		})
	}
}

// Through io_uring a read is never sent twice, however late its answer:
// it did not wait herdr's read poll, so herdr is busy for real.
func TestNoHedgeThroughIOURing(t *testing.T) {
	srv := startStall(t, readAnswer)
	c := New(srv.path, WithHedging(true))
	if !c.RequestPath().Ring {
		t.Skipf("io_uring unavailable here: %v", c.RequestPath())
	}
	done := goCall(context.Background(), c, reads[0].call)
	h := srv.nextHeld(t)
	time.Sleep(3 * defaultHedge.prior) // past the wait before a hedge
	close(h.release)
	if r := waitCall(t, done); r.err != nil || r.who != "first" {
		t.Fatalf("call = %q, %v; want the first request's answer", r.who, r.err)
	}
	if n := srv.conns.Load(); n != 1 {
		t.Errorf("server saw %d connections, want 1", n)
	}
	if s := c.HedgeStats(); s != (HedgeStats{}) {
		t.Errorf("stats = %+v, want none", s)
	}
}
