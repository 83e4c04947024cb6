package daemon

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/claim"
)

// One daemon serves a herdr server whatever path reaches its socket: a
// second one through a hard link to it finds the first.
func TestSecondDaemonThroughAHardLinkIsRefused(t *testing.T) {
	f := newFixture(t, "{proc|dir}", nil)
	f.srv.NewWorkspace("main", home+"/a")
	runDaemon(t, f, nil)
	waitFor(t, "first pass", func() bool { return f.labels()[0] == "a" })
	link := filepath.Join(t.TempDir(), "other.sock")
	if err := os.Link(f.srv.SocketPath(), link); err != nil {
		t.Skipf("hard link: %v", err)
	}
	g := newFixture(t, "{proc|dir}", func(o *Options) { o.Socket = link })
	// A daemon that starts runs until its context ends.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := g.d.Run(ctx, nil); !errors.Is(err, claim.ErrAlreadyRunning) {
		t.Fatalf("a second daemon through a hard link: err = %v, want ErrAlreadyRunning", err)
	}
}
