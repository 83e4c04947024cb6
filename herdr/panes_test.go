package herdr_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrtest"
)

// RenamePane against the fake of every protocol: herdr trims the label,
// an empty one clears it, the reply and the snapshot say what it stored,
// no event follows any of it, and an unknown id is pane_not_found
// (docs/herdr.md §13).
func TestRenamePane(t *testing.T) {
	for _, p := range protocols {
		t.Run(fmt.Sprint(p.protocol), func(t *testing.T) {
			srv := herdrtest.Start(t, herdrsim.WithProtocol(p.protocol), herdrsim.WithTick(fastTick))
			_, _, pane := srv.NewWorkspace("", t.TempDir())
			ring := len(srv.Ring())
			c := herdr.New(srv.SocketPath())
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			for _, tc := range []struct{ label, stored string }{
				{"tests", "tests"}, {" reviewer ", "reviewer"}, {"reviewer", "reviewer"},
				{"", ""}, {"docs", "docs"}, {"   ", ""},
			} {
				got, err := c.RenamePane(ctx, pane, tc.label)
				if err != nil {
					t.Fatal(err)
				}
				if got.ID != pane || got.Label != tc.stored {
					t.Errorf("RenamePane(%q) = %q, want %q", tc.label, got.Label, tc.stored)
				}
				snap, err := c.Snapshot(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if l := snap.Panes[0].Label; l != tc.stored {
					t.Errorf("after RenamePane(%q) the snapshot shows %q, want %q", tc.label, l, tc.stored)
				}
			}
			if n := len(srv.Ring()); n != ring {
				t.Errorf("pane renames put %d events in the ring, want none", n-ring)
			}
			if _, err := c.RenamePane(ctx, "w1:pZZ", "x"); !herdr.IsCode(err, "pane_not_found") {
				t.Errorf("rename of a missing pane: %v", err)
			}
		})
	}
}
