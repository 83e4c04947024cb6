package uring

import (
	"context"
	"fmt"
	"net"
	"os"
	"testing"
	"time"
)

// BenchmarkPool: requests from as many goroutines as GOMAXPROCS (-cpu)
// through pools of one ring (a mutex, in effect), two and four, against
// a local server that answers each connection's line; and the plain
// connect and write for scale. A request holds its ring only for the
// connect and send, a few microseconds, so one ring rarely makes a
// caller wait.
func BenchmarkPool(b *testing.B) {
	path := echoServer(b)
	line := []byte(`{"id":"htr-1","method":"ping","params":{}}` + "\n")
	for _, size := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("rings=%d", size), func(b *testing.B) {
			p, err := NewPool(size)
			if err != nil {
				b.Skipf("io_uring unavailable here: %v", err)
			}
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					f, err := p.ConnectSend(context.Background(), path, line, time.Now().Add(5*time.Second))
					if err != nil {
						b.Error(err)
						return
					}
					readAll(b, f)
				}
			})
		})
	}
	b.Run("plain", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				c, err := net.Dial("unix", path)
				if err != nil {
					b.Error(err)
					return
				}
				if _, err := c.Write(line); err != nil {
					b.Error(err)
				}
				buf := make([]byte, 256)
				for {
					if _, err := c.Read(buf); err != nil {
						break
					}
				}
				c.Close()
			}
		})
	})
}

func readAll(b *testing.B, f *os.File) {
	defer f.Close()
	buf := make([]byte, 256)
	for {
		if _, err := f.Read(buf); err != nil {
			return
		}
	}
}
