package realherdr

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestRealHerdrStartStopLeavesNothing: a started server answers its CLI,
// its own process and its pane's shell are found as its processes, and
// Stop ends them all.
func TestRealHerdrStartStopLeavesNothing(t *testing.T) {
	srv := startForTest(t)
	defer srv.Close()
	out, err := srv.CLI("workspace", "create", "--cwd", srv.Home, "--no-focus")
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		Result struct {
			Workspace struct {
				ID string `json:"workspace_id"`
			} `json:"workspace"`
		} `json:"result"`
	}
	if err := json.Unmarshal(out, &created); err != nil || created.Result.Workspace.ID == "" {
		t.Fatalf("workspace create answered %s (%v)", out, err)
	}
	id := created.Result.Workspace.ID
	procs := Leftovers(srv.Socket)
	var comms []string
	for _, p := range procs {
		comms = append(comms, p.Comm)
	}
	if len(procs) < 2 {
		t.Fatalf("running server's processes = %v, want herdr and the pane's shell at least", comms)
	}
	if err := srv.Stop(); err != nil {
		t.Fatal(err)
	}
	if left := Leftovers(srv.Socket); len(left) != 0 {
		t.Fatalf("after Stop still running: %v", left)
	}
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	out, err = srv.CLI("workspace", "list")
	if err != nil || !strings.Contains(string(out), `"workspace_id":"`+id+`"`) {
		t.Fatalf("after restart workspace list = %s, %v; want the saved workspace %s", out, err, id)
	}
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(srv.Base); !os.IsNotExist(err) {
		t.Fatalf("Close left %s: %v", srv.Base, err)
	}
}

// startForTest starts a server from the built binary; without one the
// test is skipped, except in CI.
func startForTest(t *testing.T) *Server {
	t.Helper()
	bin, err := Binary()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true but %v", err)
		}
		t.Skip(err)
	}
	srv, err := Start(bin, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return srv
}
