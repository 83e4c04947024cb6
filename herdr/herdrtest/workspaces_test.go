package herdrtest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
)

// mkRepo makes dir a git work tree root the way herdr recognises one: a
// .git directory holding HEAD (or, with file, a .git file naming one).
func mkRepo(t *testing.T, dir string, file bool) {
	t.Helper()
	gitDir := filepath.Join(dir, ".git")
	if file {
		gitDir = filepath.Join(t.TempDir(), "wt-gitdir")
		if err := os.WriteFile(filepath.Join(dir, ".git"), []byte("gitdir: "+gitDir+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(gitDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(gitDir, "HEAD"), []byte("ref: refs/heads/main\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, parts ...string) string {
	t.Helper()
	d := filepath.Join(parts...)
	if err := os.MkdirAll(d, 0o700); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestAutoWorkspaceLabel(t *testing.T) {
	root := t.TempDir()
	home := mkdir(t, root, "home")
	repo := mkdir(t, root, "src", "api")
	mkRepo(t, repo, false)
	wt := mkdir(t, root, "wt", "api-fix")
	mkRepo(t, wt, true)
	fake := mkdir(t, root, "fake") // a .git without HEAD is no repository
	mkdir(t, fake, ".git")
	cases := []struct{ name, cwd, want string }{
		{"repo root", repo, "api"},
		{"inside a repo", mkdir(t, repo, "web", "src"), "api"},
		{"linked worktree", mkdir(t, wt, "pkg"), "api-fix"},
		{"plain dir", mkdir(t, root, "notes"), "notes"},
		{"home", home, "~"},
		{"under home", mkdir(t, home, "x"), "x"},
		{"invalid .git marker", mkdir(t, fake, "sub"), "sub"},
		{"root", "/", "/"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := herdrsim.AutoWorkspaceLabel(c.cwd, home); got != c.want {
				t.Fatalf("AutoWorkspaceLabel(%q) = %q, want %q", c.cwd, got, c.want)
			}
		})
	}
}

func wsLabel(t *testing.T, s *herdrsim.Server, id string) string {
	t.Helper()
	w, ok := s.Workspace(id)
	if !ok {
		t.Fatalf("workspace %s gone", id)
	}
	return w.Label
}

// An automatic label follows the first tab's root pane; a custom one,
// from the API or the TUI, stays whatever the panes do.
func TestWorkspaceAutoLabelFollowsRootPane(t *testing.T) {
	root := t.TempDir()
	t.Setenv("HOME", mkdir(t, root, "home"))
	repo := mkdir(t, root, "src", "api")
	mkRepo(t, repo, false)
	s := start(t)
	auto, _, p1 := s.NewWorkspace("", mkdir(t, repo, "web"))
	named, _, p2 := s.NewWorkspace("mine", repo)
	steps := []struct {
		name        string
		do          func()
		auto, name2 string
	}{
		{"start", func() {}, "api", "mine"},
		{"cd out of the repo", func() { s.SetCwd(p1, mkdir(t, root, "notes")); s.SetCwd(p2, root) }, "notes", "mine"},
		{"osc7 home", func() { s.ReportOSC7(p1, os.Getenv("HOME")) }, "~", "mine"},
		{"split does not move the root", func() { s.Split(p1, repo) }, "~", "mine"},
		{"second tab does not count", func() { s.NewTab(auto, repo) }, "~", "mine"},
	}
	for _, st := range steps {
		st.do()
		if got := wsLabel(t, s, auto); got != st.auto {
			t.Fatalf("%s: automatic label %q, want %q", st.name, got, st.auto)
		}
		if got := wsLabel(t, s, named); got != st.name2 {
			t.Fatalf("%s: custom label %q, want %q", st.name, got, st.name2)
		}
	}
	s.HumanRenameWorkspace(auto, "  typed ")
	s.SetCwd(p1, repo)
	s.HumanRenameWorkspace(auto, "")
	if got := wsLabel(t, s, auto); got != "typed" {
		t.Fatalf("after a TUI rename: %q, want typed", got)
	}
}

// A person's renames in herdr's TUI modal are saved through the API's
// handlers (save_rename_modal_via_api): trimmed, blanks alone kept as
// typed, an empty input ignored, a tab's own number ignored while it has
// no custom name; every rename saved emits its event, an unchanged one
// too, and the new-tab prompt's name is tab.create's label. After each
// step a fence of the same kind follows (events of one kind keep their
// order): the step's event comes before the fence's, or none does.
func TestHumanRenamesAsTheTUI(t *testing.T) {
	s := start(t)
	ws, t1, _ := s.NewWorkspace("", t.TempDir())
	fenceTab, _ := s.NewTab(ws, t.TempDir())
	fenceWS, _, _ := s.NewWorkspace("", t.TempDir())
	st := subscribe(t, s, map[string]any{"type": "tab.renamed"}, map[string]any{"type": "workspace.renamed"},
		map[string]any{"type": "tab.created"})
	st.next(t) // ack
	n := 0
	tabFence := func() string { n++; l := fmt.Sprint("fence ", n); s.HumanRename(fenceTab, l); return l }
	wsFence := func() string { n++; l := fmt.Sprint("fence ", n); s.HumanRenameWorkspace(fenceWS, l); return l }
	createdFence := func() string { id, _ := s.NewTab(fenceWS, t.TempDir()); return id }
	for _, step := range []struct {
		name  string
		do    func()
		fence func() string
		want  string // a mark of the step's event, "" for none
	}{
		{"own number, no custom name", func() { s.HumanRename(t1, "1") }, tabFence, ""},
		{"empty", func() { s.HumanRename(t1, "") }, tabFence, ""},
		{"trimmed", func() { s.HumanRename(t1, "  notes ") }, tabFence, `"label":"notes"`},
		{"unchanged custom", func() { s.HumanRename(t1, "notes") }, tabFence, `"label":"notes"`},
		{"number over a custom name", func() { s.HumanRename(t1, "1") }, tabFence, `"label":"1"`},
		{"blanks alone", func() { s.HumanRename(t1, "  ") }, tabFence, `"label":"  "`},
		{"workspace empty", func() { s.HumanRenameWorkspace(ws, "") }, wsFence, ""},
		{"workspace trimmed", func() { s.HumanRenameWorkspace(ws, " proj ") }, wsFence, `"label":"proj"`},
		{"new tab named", func() { s.Focus(s.Snapshot().Panes[0].ID); s.HumanNewTab(" fresh ") }, createdFence, `"label":"fresh"`},
		{"new tab, its number", func() { s.HumanNewTab("4") }, createdFence, `"label":"4"`},
	} {
		step.do()
		fence := step.fence()
		var before []string
		for l := st.next(t); !strings.Contains(l, fence); l = st.next(t) {
			before = append(before, l)
		}
		if step.want == "" && len(before) != 0 || step.want != "" && (len(before) != 1 || !strings.Contains(before[0], step.want)) {
			t.Fatalf("%s: events %q, want one with %q (none if empty)", step.name, before, step.want)
		}
	}
	if got := wsLabel(t, s, ws); got != "proj" {
		t.Fatalf("workspace label %q, want proj", got)
	}
	var labels []string
	for _, tb := range s.Snapshot().Tabs {
		if tb.WorkspaceID == ws {
			labels = append(labels, tb.Label)
		}
	}
	if want := []string{"  ", "fence 6", "fresh", "4"}; !slices.Equal(labels, want) {
		t.Fatalf("tab labels %q, want %q", labels, want)
	}
}

// workspace.rename as herdr's handle_workspace_rename: any label, "" too,
// is stored as given; the reply is workspace_info and workspace_renamed
// follows, as it does for a rename typed in the TUI; unknown ids are
// workspace_not_found. Every line is checked
// against the schema of the played protocol.
func TestWorkspaceRenameAPI(t *testing.T) {
	for _, proto := range []int{17, 19, 20, 22} {
		t.Run(fmt.Sprint("protocol ", proto), func(t *testing.T) {
			s := start(t, herdrsim.WithProtocol(proto))
			st := subscribe(t, s, map[string]any{"type": "workspace.renamed"})
			st.next(t) // ack
			ws, _, _ := s.NewWorkspace("", t.TempDir())
			for _, label := range []string{"api ", ""} {
				r := result(t, call(t, s, "workspace.rename", map[string]any{"workspace_id": ws, "label": label}))
				w := r["workspace"].(map[string]any)
				if r["type"] != "workspace_info" || w["label"] != label || w["workspace_id"] != ws {
					t.Fatalf("rename %q: result %v", label, r)
				}
				want := `{"data":{"label":"` + label + `","type":"workspace_renamed","workspace_id":"` + ws + `"},"event":"workspace_renamed"}`
				if l := st.next(t); l != want {
					t.Fatalf("event %q, want %q", l, want)
				}
			}
			if got := wsLabel(t, s, ws); got != "" {
				t.Fatalf("label after rename to \"\": %q", got)
			}
			if code, _ := errCode(t, call(t, s, "workspace.rename", map[string]any{"workspace_id": "wZZ", "label": "x"})); code != "workspace_not_found" {
				t.Fatalf("unknown workspace: code %q", code)
			}
			if rs := s.WorkspaceRenames(); len(rs) != 2 || rs[0].Label != "api " || rs[1].WorkspaceID != ws {
				t.Fatalf("recorded renames %+v", rs)
			}
			// The TUI saves through the same handler: the event, with the
			// typed name trimmed, and no record among the API's renames.
			s.HumanRenameWorkspace(ws, " typed ")
			want := `{"data":{"label":"typed","type":"workspace_renamed","workspace_id":"` + ws + `"},"event":"workspace_renamed"}`
			if l := st.next(t); l != want {
				t.Fatalf("TUI rename: event %q, want %q", l, want)
			}
			if rs := s.WorkspaceRenames(); len(rs) != 2 {
				t.Fatalf("a TUI rename was recorded as the API's: %+v", rs)
			}
		})
	}
}
