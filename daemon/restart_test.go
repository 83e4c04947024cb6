package daemon

import (
	"context"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrtest"
)

// herdr restarted without its session numbers tabs from 1 again: a tab
// the new server makes is news, though an old one had its id. It is named
// at its event, not at the rest poll.
func TestNewTabsAfterARestartWithoutTheSessionAreNews(t *testing.T) {
	for _, proto := range []int{20, 22} {
		t.Run(map[int]string{20: "0.8", 22: "0.9"}[proto], func(t *testing.T) {
			dir := t.TempDir()
			f := newFixture(t, "{dir}", func(o *Options) { o.Poll, o.RestPoll = 0, time.Hour },
				herdrsim.WithDir(dir), herdrsim.WithProtocol(proto))
			ws, _, _ := f.srv.NewWorkspace("main", home+"/a")
			f.srv.NewTab(ws, home+"/b")
			f.srv.NewTab(ws, home+"/c")
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- f.d.Run(ctx, nil) }()
			defer func() { cancel(); <-done }()
			waitFor(t, "the first names", func() bool { return f.labels()[2] == "c" })
			_ = f.srv.Close()
			f.srv = herdrtest.Start(t, herdrsim.WithDir(dir), herdrsim.WithProtocol(proto), herdrsim.WithTick(5*time.Millisecond))
			ws, _, _ = f.srv.NewWorkspace("main", home+"/x")
			waitFor(t, "the new server's first tab named", func() bool { return f.labels()[0] == "x" })
			// No poll comes for an hour: only the event can name it.
			f.srv.NewTab(ws, home+"/y") // w1:t2 again
			waitFor(t, "the new server's second tab named", func() bool { return f.labels()[1] == "y" })
		})
	}
}
