package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
)

// workspaceLabels lists the session's workspace labels in sidebar order.
func workspaceLabels(srv *herdrsim.Server) []string {
	var out []string
	for _, w := range srv.Snapshot().Workspaces {
		out = append(out, w.Label)
	}
	return out
}

// stateWorkspaces reads the workspaces the state file remembers.
func stateWorkspaces(t *testing.T, path string) map[string]string {
	t.Helper()
	var sf struct {
		Workspaces map[string]struct {
			Label string `json:"label"`
		} `json:"workspaces"`
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read state: %v", err)
	}
	if err := json.Unmarshal(b, &sf); err != nil {
		t.Fatalf("state %s: %v\n%s", path, err, b)
	}
	out := map[string]string{}
	for id, m := range sf.Workspaces {
		out[id] = m.Label
	}
	return out
}

// TestWorkspaceNames runs docs/templates.md's workspace example through `once
// --apply`: herdr's automatic labels give way to rendered names, people's
// labels (given at creation or typed later) stay, a second pass renames
// nothing, and the state file keeps our name ours for the next run after
// the branch it shows changed.
func TestWorkspaceNames(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	sb := newSandbox(t)
	shop := sb.HomePath("src", "shop")
	head := filepath.Join(shop, ".git", "HEAD")
	writeFile(t, head, "ref: refs/heads/feature/ABC-123\n")
	web := sb.HomePath("src", "shop", "web")
	notes := sb.HomePath("notes")
	for _, d := range []string{web, notes} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	w1, _, _ := srv.NewWorkspace("", web)
	w2, _, _ := srv.NewWorkspace("", notes)
	srv.NewWorkspace("scratch", notes)
	w4, _, _ := srv.NewWorkspace("", notes)
	srv.HumanRenameWorkspace(w4, "deploy")
	if got, want := workspaceLabels(srv), []string{"shop", "notes", "scratch", "deploy"}; !slices.Equal(got, want) {
		t.Fatalf("herdr's own labels %q, want %q", got, want)
	}

	once := func(state string) {
		t.Helper()
		out, errOut, code := runCLI(t, sb, "once", "--apply", "--socket", srv.SocketPath(), "--state", state,
			"--workspace-format", "{index} {repo|dir}:{branch}")
		if code != 0 {
			t.Fatalf("once --apply: exit %d\n%s%s", code, out, errOut)
		}
	}
	once(sb.StatePath)
	want := []string{"1 shop:feature/ABC-123", "2 notes", "scratch", "deploy"}
	if got := workspaceLabels(srv); !slices.Equal(got, want) {
		t.Fatalf("workspace labels %q, want %q", got, want)
	}
	if n := len(srv.WorkspaceRenames()); n != 2 {
		t.Fatalf("%d workspace renames, want 2", n)
	}
	if got := stateWorkspaces(t, sb.StatePath); got[w1] != want[0] || got[w2] != want[1] || len(got) != 2 {
		t.Fatalf("state remembers %v", got)
	}

	srv.ResetCounters()
	once(sb.StatePath)
	if n := len(srv.WorkspaceRenames()); n != 0 {
		t.Fatalf("a second pass renamed %d workspaces: %+v", n, srv.WorkspaceRenames())
	}

	// A checkout: "1 shop:feature/ABC-123" is no render of the template
	// and not herdr's label any more; only the state file says it is ours.
	writeFile(t, head, "ref: refs/heads/main\n")
	once(sb.StatePath)
	if got := workspaceLabels(srv)[0]; got != "1 shop:main" {
		t.Fatalf("after a checkout, with the state file: %q, want %q", got, "1 shop:main")
	}
	// Without it the same situation reads as a person's name: kept.
	writeFile(t, head, "ref: refs/heads/fix\n")
	once("")
	if got := workspaceLabels(srv)[0]; got != "1 shop:main" {
		t.Fatalf("after a checkout, with no state: %q renamed, want it kept", got)
	}
}
