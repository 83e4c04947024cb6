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
