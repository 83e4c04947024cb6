package daemon

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/facts/gitinfo"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/namer"
	"github.com/herdrtabrenamer/herdrtabrenamer/state"
)

func withWorkspaces(t *testing.T, format string) func(*Options) {
	return func(o *Options) {
		nm, err := namer.New(namer.Config{Format: format, MaxLen: 24, Home: home})
		if err != nil {
			t.Fatal(err)
		}
		o.Naming.WorkspaceNamer = nm
	}
}

func (f *fixture) wsLabels() []string {
	var out []string
	for _, w := range f.srv.Snapshot().Workspaces {
		out = append(out, w.Label)
	}
	return out
}

func (f *fixture) wantWorkspaces(want ...string) {
	f.t.Helper()
	if got := f.wsLabels(); strings.Join(got, "|") != strings.Join(want, "|") {
		f.t.Fatalf("workspace labels = %q, want %q", got, want)
	}
}

// Workspace names: herdr's automatic label is replaced, a person's is
// kept, an idle pass renames nothing, and the state file keeps our name
// ours for the next daemon once the directory it was made of changed.
func TestWorkspaceNames(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "{dir}", withWorkspaces(t, "{index} {dir}"))
	_, _, p1 := f.srv.NewWorkspace("", home+"/src/api")
	f.srv.NewWorkspace("", home+"/src/web")
	f.srv.NewWorkspace("scratch", home+"/tmp")
	f.wantWorkspaces("api", "web", "scratch")
	f.once()
	f.wantWorkspaces("1 api", "2 web", "scratch")
	if m := f.d.State().Entry(state.WorkspaceTarget("w1")); m.Label != "1 api" {
		t.Fatalf("state of w1: %+v", m)
	}

	f.srv.ResetCounters()
	f.once()
	if n := len(f.srv.WorkspaceRenames()); n != 0 {
		t.Fatalf("idle pass renamed %d workspaces", n)
	}

	// The pane moves: "1 api" is neither herdr's label nor a render of
	// the template now; only the state file says it is ours.
	f.srv.SetCwd(p1, home+"/src/cli")
	opt := f.d.opt
	d2, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	f.d = d2
	f.once()
	f.wantWorkspaces("1 cli", "2 web", "scratch")

	// Without that memory the same label is a person's.
	f.srv.SetCwd(p1, home+"/src/db")
	opt.StatePath = ""
	if f.d, err = New(opt); err != nil {
		t.Fatal(err)
	}
	f.once()
	f.wantWorkspaces("1 cli", "2 web", "scratch")
}

func TestWorkspaceDryRunPrintsOnce(t *testing.T) {
	f := newFixture(t, "{dir}", func(o *Options) {
		o.Naming.Apply = false
		withWorkspaces(t, "{index} {dir}")(o)
	})
	f.srv.NewWorkspace("", home+"/src/api")
	for range 2 {
		reps, _, err := f.d.pass(t.Context(), passInput{})
		if err != nil {
			t.Fatal(err)
		}
		f.d.dry.tabs(f.d.opt.Out, reps)
	}
	f.wantWorkspaces("api")
	if got := strings.Count(f.out.String(), "would rename workspace w1 \"api\" -> \"1 api\""); got != 1 {
		t.Fatalf("dry run printed the workspace decision %d times:\n%s", got, f.out.String())
	}
}

func TestWorkspaceMemoryPruned(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	f := newFixture(t, "{dir}", func(o *Options) {
		o.Now = func() time.Time { return now }
		withWorkspaces(t, "{dir}!")(o)
	})
	_, tab, _ := f.srv.NewWorkspace("", home+"/src/api")
	f.srv.NewWorkspace("", home+"/src/web")
	f.once()
	f.srv.CloseTab(tab) // its last tab: the workspace closes
	steps := []struct {
		after time.Duration
		kept  bool
	}{{0, true}, {state.PruneAfter / 2, true}, {state.PruneAfter, false}}
	for _, st := range steps {
		now = now.Add(st.after)
		f.once()
		if ok := f.d.State().Has(state.WorkspaceTarget("w1")); ok != st.kept {
			t.Fatalf("after %v: w1 remembered = %v, want %v", st.after, ok, st.kept)
		}
	}
	if !f.d.State().Has(state.WorkspaceTarget("w2")) {
		t.Fatal("a workspace still open was forgotten")
	}
}

// BenchmarkPass2000Workspaces is BenchmarkPass2000 with workspace names
// on. benchSession's 200 workspaces carry people's labels, the costly
// case: herdr's automatic labels are looked up on disk every pass.
func BenchmarkPass2000Workspaces(b *testing.B) {
	benchmarkPass(b, 2000, func(o *Options) {
		nm, err := namer.New(namer.Config{Format: "{index} {repo|dir}", MaxLen: 24, Home: home})
		if err != nil {
			b.Fatal(err)
		}
		o.Naming.WorkspaceNamer = nm
		o.Naming.Git = gitinfo.New()
	})
}

// A person's workspace name that matches a folder is still theirs when
// herdr would not show that folder: herdr's automatic label is the git work
// tree's name when there is one (not the folder's own), and comes from the
// first tab's root pane (not a pane split from it).
func TestWorkspaceNamedAfterAFolderHerdrDoesNotShowIsKept(t *testing.T) {
	root := t.TempDir()
	shop := filepath.Join(root, "shop")
	for _, dir := range []string{filepath.Join(shop, ".git"), filepath.Join(shop, "api"), filepath.Join(root, "x"), filepath.Join(root, "y")} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(shop, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, "{dir}", func(o *Options) {
		withWorkspaces(t, "{dir}!")(o)
		o.Naming.Git = gitinfo.New()
	})
	f.srv.NewWorkspace("api", filepath.Join(shop, "api")) // herdr would say "shop"
	_, _, root1 := f.srv.NewWorkspace("y", filepath.Join(root, "x"))
	f.srv.Split(root1, filepath.Join(root, "y")) // herdr would say "x"
	f.srv.NewWorkspace("", filepath.Join(root, "x"))
	f.once()
	f.wantWorkspaces("api", "y", "x!")
}

// A killed daemon's workspace rename lands after the next daemon's own:
// the late label is ours too, and the workspace still follows its folder.
func TestLateWorkspaceRenameOfAKilledDaemonStaysOurs(t *testing.T) {
	f := newFixture(t, "{dir}", withWorkspaces(t, "{dir}!"))
	_, _, p := f.srv.NewWorkspace("", home+"/src/api")
	b, err := json.Marshal(map[string]any{"version": state.Version, "tabs": map[string]any{},
		"workspaces": map[string]any{"w1": map[string]any{"pending": "old!"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.d.opt.StatePath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	f.d.state, _ = state.Load(f.d.opt.StatePath, f.d.opt.Socket)
	f.once()
	f.wantWorkspaces("api!")
	// The killed daemon's rename lands now.
	if _, err := herdr.New(f.srv.SocketPath()).RenameWorkspace(context.Background(), "w1", "old!"); err != nil {
		t.Fatal(err)
	}
	f.srv.SetCwd(p, home+"/src/cli")
	f.once()
	f.wantWorkspaces("cli!")
}

// A rename goes out only once the label it sets is on disk as ours: with a
// state file that cannot be written, no workspace is renamed, as no tab
// is (a rename whose reply is lost would otherwise read as a person's).
func TestNoWorkspaceRenameWithoutItsRecordSaved(t *testing.T) {
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skip("needs /proc, a folder no one can write into")
	}
	f := newFixture(t, "{dir}", func(o *Options) {
		withWorkspaces(t, "{index} {dir}")(o)
		o.StatePath = "/proc/herdrtabrenamer-test/state.json"
	})
	_, tab, _ := f.srv.NewWorkspace("", home+"/src/api")
	f.srv.HumanRename(tab, "mine") // no tab rename to hold the pass up
	_, _ = f.d.Once(context.Background())
	f.wantWorkspaces("api")
	f.wantLabels("mine")
}
