package gitinfo

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

const (
	sha1Hex   = "3f786850e387550fdab836ed7e6dc881de23001b"
	sha256Hex = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
)

// write creates path with content the way git does: a temporary file
// renamed over the old one.
func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := path + ".lock"
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, path string) string {
	t.Helper()
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// mkRepo lays out a main work tree at root with HEAD as given.
func mkRepo(t *testing.T, root, head string) {
	t.Helper()
	write(t, filepath.Join(root, ".git", "HEAD"), head)
	mkdir(t, filepath.Join(root, ".git", "refs", "heads"))
}

// mkWorktree lays out a linked worktree of mainRoot named name at wt; the
// .git file uses a relative or absolute gitdir.
func mkWorktree(t *testing.T, mainRoot, name, wt, head string, relative bool) {
	t.Helper()
	gitDir := filepath.Join(mainRoot, ".git", "worktrees", name)
	write(t, filepath.Join(gitDir, "HEAD"), head)
	write(t, filepath.Join(gitDir, "commondir"), "../..\n")
	write(t, filepath.Join(gitDir, "gitdir"), filepath.Join(wt, ".git")+"\n")
	target := gitDir
	if relative {
		rel, err := filepath.Rel(wt, gitDir)
		if err != nil {
			t.Fatal(err)
		}
		target = rel
	}
	write(t, filepath.Join(wt, ".git"), "gitdir: "+target+"\n")
}

// outsideAnyRepo skips the test when the temp folder itself lies inside a
// git work tree, where "no repository" cannot be observed.
func outsideAnyRepo(t *testing.T, dir string) {
	t.Helper()
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			t.Skipf("temp dir %s is inside the git work tree %s", dir, d)
		}
		if filepath.Dir(d) == d {
			return
		}
	}
}

func TestLookupLayouts(t *testing.T) {
	base := t.TempDir()
	outsideAnyRepo(t, base)

	plain := filepath.Join(base, "plain")
	mkRepo(t, plain, "ref: refs/heads/main\n")
	mkdir(t, filepath.Join(plain, "src", "deep", "er"))

	slashy := filepath.Join(base, "slashy")
	mkRepo(t, slashy, "ref: refs/heads/feat/login-form\n")

	detached := filepath.Join(base, "detached")
	mkRepo(t, detached, sha1Hex+"\n")

	detached256 := filepath.Join(base, "detached256")
	mkRepo(t, detached256, sha256Hex+"\n")

	mainRoot := filepath.Join(base, "project")
	mkRepo(t, mainRoot, "ref: refs/heads/main\n")
	relWT := filepath.Join(base, "worktrees", "project-fix")
	mkWorktree(t, mainRoot, "project-fix", relWT, "ref: refs/heads/fix\n", true)
	mkdir(t, filepath.Join(relWT, "cmd"))
	absWT := filepath.Join(base, "elsewhere", "hotfix")
	mkWorktree(t, mainRoot, "hotfix", absWT, sha1Hex+"\n", false)

	super := filepath.Join(base, "super")
	mkRepo(t, super, "ref: refs/heads/trunk\n")
	write(t, filepath.Join(super, ".git", "modules", "vendor", "lib", "HEAD"), sha1Hex+"\n")
	write(t, filepath.Join(super, ".git", "modules", "vendor", "lib", "config"), "[core]\n")
	write(t, filepath.Join(super, "vendor", "lib", ".git"), "gitdir: ../../.git/modules/vendor/lib\n")
	mkdir(t, filepath.Join(super, "vendor", "lib", "src"))

	nothing := mkdir(t, filepath.Join(base, "nothing", "here"))

	tests := []struct {
		name string
		dir  string
		want Info
		ok   bool
	}{
		{"plain repo root", plain, Info{Root: plain, Repo: "plain", Branch: "main", DefaultBranch: "main"}, true},
		{"nested dir", filepath.Join(plain, "src", "deep", "er"), Info{Root: plain, Repo: "plain", Branch: "main", DefaultBranch: "main"}, true},
		{"unclean path", plain + "/src/../src/deep/", Info{Root: plain, Repo: "plain", Branch: "main", DefaultBranch: "main"}, true},
		{"branch with slash", slashy, Info{Root: slashy, Repo: "slashy", Branch: "feat/login-form"}, true},
		{"detached sha1", detached, Info{Root: detached, Repo: "detached", Branch: sha1Hex[:7]}, true},
		{"detached sha256", detached256, Info{Root: detached256, Repo: "detached256", Branch: sha256Hex[:7]}, true},
		{"worktree relative gitdir", filepath.Join(relWT, "cmd"), Info{Root: relWT, Repo: "project-fix", Branch: "fix", Worktree: true}, true},
		{"worktree absolute gitdir", absWT, Info{Root: absWT, Repo: "hotfix", Branch: sha1Hex[:7], Worktree: true}, true},
		{"main tree of worktrees", mainRoot, Info{Root: mainRoot, Repo: "project", Branch: "main", DefaultBranch: "main"}, true},
		{"submodule", filepath.Join(super, "vendor", "lib", "src"), Info{Root: filepath.Join(super, "vendor", "lib"), Repo: "lib", Branch: sha1Hex[:7]}, true},
		{"superproject around submodule", filepath.Join(super, "vendor"), Info{Root: super, Repo: "super", Branch: "trunk", DefaultBranch: "trunk"}, true},
		{"no repository", nothing, Info{}, false},
		{"empty dir", "", Info{}, false},
	}
	c := New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Twice: the walk and the cache hit must agree.
			for i := range 2 {
				got, ok := c.Lookup(tt.dir)
				if got != tt.want || ok != tt.ok {
					t.Fatalf("Lookup(%q) #%d = %+v, %v; want %+v, %v", tt.dir, i+1, got, ok, tt.want, tt.ok)
				}
			}
		})
	}
}

func TestDefaultBranch(t *testing.T) {
	base := t.TempDir()
	outsideAnyRepo(t, base)
	origin := func(root, target string) {
		write(t, filepath.Join(root, ".git", "refs", "remotes", "origin", "HEAD"), target)
	}
	dev := filepath.Join(base, "dev")
	mkRepo(t, dev, "ref: refs/heads/develop\n")
	origin(dev, "ref: refs/remotes/origin/develop\n")
	wt := filepath.Join(base, "dev-feature")
	mkWorktree(t, dev, "dev-feature", wt, "ref: refs/heads/ABC-1-x\n", true)
	onMain := filepath.Join(base, "onmain")
	mkRepo(t, onMain, "ref: refs/heads/main\n")
	origin(onMain, "ref: refs/remotes/origin/master\n")
	master := filepath.Join(base, "master")
	mkRepo(t, master, "ref: refs/heads/master\n")
	garbage := filepath.Join(base, "garbage")
	mkRepo(t, garbage, "ref: refs/heads/main\n")
	origin(garbage, "ref: refs/remotes/upstream/x\n")
	feature := filepath.Join(base, "feature")
	mkRepo(t, feature, "ref: refs/heads/feature\n")

	tests := []struct {
		dir, branch, def string
	}{
		{dev, "develop", "develop"},  // origin/HEAD names it
		{wt, "ABC-1-x", "develop"},   // a linked worktree reads the common dir
		{onMain, "main", "master"},   // origin/HEAD wins over the usual names
		{master, "master", "master"}, // no origin: the usual names
		{garbage, "main", "main"},    // origin/HEAD of another remote is ignored
		{feature, "feature", ""},     // nothing to tell
	}
	c := New()
	for _, tt := range tests {
		got, ok := c.Lookup(tt.dir)
		if !ok || got.Branch != tt.branch || got.DefaultBranch != tt.def {
			t.Errorf("Lookup(%s) = branch %q default %q (%v), want %q %q", filepath.Base(tt.dir), got.Branch, got.DefaultBranch, ok, tt.branch, tt.def)
		}
	}
}

func TestParseHead(t *testing.T) {
	tests := []struct {
		head, want string
	}{
		{"ref: refs/heads/main\n", "main"},
		{"ref:refs/heads/main", "main"},
		{"ref: refs/heads/release/v1.2\r\n", "release/v1.2"},
		{sha1Hex, sha1Hex[:7]},
		{"  " + sha1Hex + "\n\n", sha1Hex[:7]},
		{sha256Hex, sha256Hex[:7]},
		{"", ""},
		{"hello world", ""},
		{"ref: refs/tags/v1", ""},
		{"ref: refs/heads/", ""},
		{"ref: refs/heads/.invalid", ""}, // reftable placeholder
		{"ref: refs/heads/a b", ""},
		{"ref: refs/heads/evil\x1b]0;pwned\x07", ""},
		{"ref: refs/heads/a..b", ""},
		{"ref: refs/heads/x.lock", ""},
		{strings.ToUpper(sha1Hex), ""},
		{sha1Hex[:39], ""},
		{"3f786850e387550fdab836ed7e6dc881de23001g", ""},
		{"\x00\x01\x02binary", ""},
	}
	for _, tt := range tests {
		if got := parseHead(tt.head); got != tt.want {
			t.Errorf("parseHead(%q) = %q, want %q", tt.head, got, tt.want)
		}
	}
}

func TestGarbageFiles(t *testing.T) {
	base := t.TempDir()
	tests := []struct {
		name  string
		setup func(root string)
	}{
		{"garbage HEAD", func(root string) { mkRepo(t, root, "not a head at all\n") }},
		{"empty HEAD", func(root string) { mkRepo(t, root, "") }},
		{"missing HEAD", func(root string) { mkdir(t, filepath.Join(root, ".git")) }},
		{"huge HEAD", func(root string) { mkRepo(t, root, "ref: refs/heads/"+strings.Repeat("a", 2*maxSmallFile)) }},
		{"HEAD is a directory", func(root string) { mkdir(t, filepath.Join(root, ".git", "HEAD")) }},
		{"garbage .git file", func(root string) { write(t, filepath.Join(root, ".git"), "this is not a gitfile\n") }},
		{"empty gitdir", func(root string) { write(t, filepath.Join(root, ".git"), "gitdir:   \n") }},
		{"dangling gitdir", func(root string) { write(t, filepath.Join(root, ".git"), "gitdir: /nonexistent/x/y\n") }},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := filepath.Join(base, fmt.Sprint("r", i))
			tt.setup(root)
			c := New()
			for range 2 {
				got, ok := c.Lookup(root)
				want := Info{Root: root, Repo: filepath.Base(root)}
				if !ok || got != want {
					t.Fatalf("Lookup = %+v, %v; want %+v, true", got, ok, want)
				}
			}
		})
	}
}

func TestBranchFollowsCheckout(t *testing.T) {
	root := filepath.Join(t.TempDir(), "repo")
	mkRepo(t, root, "ref: refs/heads/main\n")
	sub := mkdir(t, filepath.Join(root, "pkg"))
	c := New()

	steps := []struct {
		name, head, want string
		inPlace          bool
	}{
		{"start", "", "main", false},
		{"checkout dev", "ref: refs/heads/dev\n", "dev", false},
		{"detach", sha1Hex + "\n", sha1Hex[:7], false},
		{"checkout long-branch-name", "ref: refs/heads/long-branch-name\n", "long-branch-name", false},
		// An editor or tool that rewrites in place keeps the inode; the
		// size change must still be seen.
		{"in-place rewrite", "ref: refs/heads/x\n", "x", true},
		{"garbage", "zzz\n", "", false},
		{"back to main", "ref: refs/heads/main\n", "main", false},
	}
	for _, s := range steps {
		if s.head != "" {
			head := filepath.Join(root, ".git", "HEAD")
			if s.inPlace {
				if err := os.WriteFile(head, []byte(s.head), 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				write(t, head, s.head)
			}
		}
		for _, dir := range []string{root, sub} {
			got, ok := c.Lookup(dir)
			if !ok || got.Branch != s.want {
				t.Fatalf("%s: Lookup(%s) = %+v, %v; want branch %q", s.name, dir, got, ok, s.want)
			}
		}
	}
}

func TestRootVanishes(t *testing.T) {
	outer := filepath.Join(t.TempDir(), "outer")
	mkRepo(t, outer, "ref: refs/heads/main\n")
	inner := filepath.Join(outer, "inner")
	mkRepo(t, inner, "ref: refs/heads/dev\n")
	dir := mkdir(t, filepath.Join(inner, "src"))
	c := New()

	if got, ok := c.Lookup(dir); !ok || got.Repo != "inner" || got.Branch != "dev" {
		t.Fatalf("before: Lookup = %+v, %v; want inner/dev", got, ok)
	}
	if err := os.RemoveAll(filepath.Join(inner, ".git")); err != nil {
		t.Fatal(err)
	}
	if got, ok := c.Lookup(dir); !ok || got.Repo != "outer" || got.Branch != "main" {
		t.Fatalf("after inner .git removed: Lookup = %+v, %v; want outer/main", got, ok)
	}
	// A .git file replacing the outer .git directory (the tree became a
	// worktree) is a different entry and must be re-read.
	if err := os.RemoveAll(filepath.Join(outer, ".git")); err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(filepath.Dir(outer), "store", "worktrees", "outer")
	write(t, filepath.Join(elsewhere, "HEAD"), "ref: refs/heads/moved\n")
	write(t, filepath.Join(elsewhere, "commondir"), "../..\n")
	write(t, filepath.Join(outer, ".git"), "gitdir: "+elsewhere+"\n")
	if got, ok := c.Lookup(dir); !ok || got.Branch != "moved" || !got.Worktree {
		t.Fatalf("after .git became a file: Lookup = %+v, %v; want moved, worktree", got, ok)
	}
}

func TestNoRepoAfterRemoval(t *testing.T) {
	base := t.TempDir()
	outsideAnyRepo(t, base)
	root := filepath.Join(base, "r")
	mkRepo(t, root, "ref: refs/heads/main\n")
	c := New()
	if _, ok := c.Lookup(root); !ok {
		t.Fatal("Lookup before removal: want a repository")
	}
	if err := os.RemoveAll(filepath.Join(root, ".git")); err != nil {
		t.Fatal(err)
	}
	if got, ok := c.Lookup(root); ok {
		t.Fatalf("Lookup after removal = %+v, true; want no repository", got)
	}
	if n := c.size(); n != 0 {
		t.Fatalf("Len after a miss = %d, want the stale entry dropped", n)
	}
}

// Git rewrites files inside .git (index, locks, logs) on every status; that
// must not count as a change of the repository.
func TestGitDirChurnKeepsEntry(t *testing.T) {
	root := filepath.Join(t.TempDir(), "r")
	mkRepo(t, root, "ref: refs/heads/main\n")
	e := walk(root)
	if e == nil || !e.fresh() {
		t.Fatal("fresh entry expected right after the walk")
	}
	write(t, filepath.Join(root, ".git", "index"), "DIRC")
	if err := os.Remove(filepath.Join(root, ".git", "index")); err != nil {
		t.Fatal(err)
	}
	if !e.fresh() {
		t.Fatal("entry went stale after files inside .git changed; HEAD did not")
	}
	write(t, filepath.Join(root, ".git", "HEAD"), "ref: refs/heads/main\n")
	if e.fresh() {
		t.Fatal("entry still fresh after HEAD was replaced")
	}
}

func TestEvictsOldest(t *testing.T) {
	root := filepath.Join(t.TempDir(), "r")
	mkRepo(t, root, "ref: refs/heads/main\n")
	c := New()
	c.max = 3
	var dirs []string
	for i := range 5 {
		dirs = append(dirs, mkdir(t, filepath.Join(root, fmt.Sprint("d", i))))
	}
	for _, d := range dirs[:3] {
		c.Lookup(d)
	}
	c.Lookup(dirs[0]) // used again: d1 is now the oldest
	c.Lookup(dirs[3])
	c.Lookup(dirs[4])
	if n := c.size(); n != 3 {
		t.Fatalf("Len = %d, want 3", n)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, d := range []string{dirs[0], dirs[3], dirs[4]} {
		if _, ok := c.byDir[d]; !ok {
			t.Errorf("%s evicted, want it kept", d)
		}
	}
	for _, d := range []string{dirs[1], dirs[2]} {
		if _, ok := c.byDir[d]; ok {
			t.Errorf("%s kept, want it evicted", d)
		}
	}
}

func TestConcurrentLookups(t *testing.T) {
	root := filepath.Join(t.TempDir(), "r")
	mkRepo(t, root, "ref: refs/heads/main\n")
	var dirs []string
	for i := range 8 {
		dirs = append(dirs, mkdir(t, filepath.Join(root, fmt.Sprint("d", i))))
	}
	c := New()
	c.max = 4 // force evictions while others read
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				d := dirs[(g+i)%len(dirs)]
				if got, ok := c.Lookup(d); !ok || got.Root != root || got.Branch != "main" {
					errs <- fmt.Sprintf("Lookup(%s) = %+v, %v", d, got, ok)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestRealGit checks the hand-built layouts against what git really writes.
func TestRealGit(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not on PATH")
	}
	base := t.TempDir()
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command(gitBin, append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(),
			"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com",
			"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	repo := mkdir(t, filepath.Join(base, "app"))
	git(repo, "init", "-q", "-b", "main")
	git(repo, "commit", "-q", "--allow-empty", "-m", "first")
	wt := filepath.Join(base, "app-feature")
	git(repo, "worktree", "add", "-q", "-b", "feature", wt)
	mkdir(t, filepath.Join(wt, "src"))

	c := New()
	if got, ok := c.Lookup(repo); !ok || got != (Info{Root: repo, Repo: "app", Branch: "main", DefaultBranch: "main"}) {
		t.Fatalf("main tree: Lookup = %+v, %v", got, ok)
	}
	want := Info{Root: wt, Repo: "app-feature", Branch: "feature", Worktree: true}
	if got, ok := c.Lookup(filepath.Join(wt, "src")); !ok || got != want {
		t.Fatalf("worktree: Lookup = %+v, %v; want %+v", got, ok, want)
	}
	git(wt, "checkout", "-q", "--detach")
	short := git(wt, "rev-parse", "--short=7", "HEAD")
	if got, _ := c.Lookup(filepath.Join(wt, "src")); got.Branch != short {
		t.Fatalf("after detach: Branch = %q, want %q", got.Branch, short)
	}
	git(repo, "checkout", "-q", "-b", "other")
	if got, _ := c.Lookup(repo); got.Branch != "other" {
		t.Fatalf("after checkout -b other: Branch = %q, want other", got.Branch)
	}
	// A clone's origin/HEAD names the default branch on any branch.
	git(repo, "checkout", "-q", "main")
	clone := filepath.Join(base, "clone")
	git(base, "clone", "-q", repo, clone)
	git(clone, "checkout", "-q", "-b", "topic")
	if got, _ := c.Lookup(clone); got.Branch != "topic" || got.DefaultBranch != "main" {
		t.Fatalf("clone on topic: %+v, want default branch main", got)
	}
}

func BenchmarkLookupHit(b *testing.B) {
	root := filepath.Join(b.TempDir(), "repo")
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(root, "a", "b", "c")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	c := New()
	if _, ok := c.Lookup(dir); !ok {
		b.Fatal("no repository found")
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := c.Lookup(dir); !ok {
			b.Fatal("no repository found")
		}
	}
}

// BenchmarkLookupMiss is a directory in no repository: never cached, a
// walk to the file system root every time.
func BenchmarkLookupMiss(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "a", "b")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	c := New()
	b.ReportAllocs()
	for b.Loop() {
		c.Lookup(dir)
	}
}
