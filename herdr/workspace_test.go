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

// RenameWorkspace against the fake of every protocol: the label is stored
// as given ("" too) and the reply is the renamed workspace; an unknown id
// is herdr's workspace_not_found.
func TestRenameWorkspace(t *testing.T) {
	for _, p := range protocols {
		t.Run(fmt.Sprint(p.protocol), func(t *testing.T) {
			srv := herdrtest.Start(t, herdrsim.WithProtocol(p.protocol), herdrsim.WithTick(fastTick))
			ws, _, _ := srv.NewWorkspace("", t.TempDir())
			c := herdr.New(srv.SocketPath())
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			for _, label := range []string{"1 api", "", " spaced "} {
				got, err := c.RenameWorkspace(ctx, ws, label)
				if err != nil {
					t.Fatal(err)
				}
				if got.ID != ws || got.Label != label || got.Number != 1 {
					t.Errorf("RenameWorkspace(%q) = %+v", label, got)
				}
				if w, _ := srv.Workspace(ws); w.Label != label {
					t.Errorf("server label %q, want %q", w.Label, label)
				}
			}
			if _, err := c.RenameWorkspace(ctx, "wZZ", "x"); !herdr.IsCode(err, "workspace_not_found") {
				t.Errorf("rename of a missing workspace: %v", err)
			}
		})
	}
}
