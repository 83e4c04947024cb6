package gitinfo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// FuzzGitFiles: the files Lookup reads in any folder a pane visits (a
// .git file, HEAD, a worktree's commondir, origin/HEAD), each holding
// whatever an input holds. A lookup answers, allocates at most 4 MiB and,
// while fuzzing, takes at most 100 ms (the best of three: testutil.WithinBounds). The seeds run
// with the normal tests.
func FuzzGitFiles(f *testing.F) {
	for _, seed := range []struct {
		which uint8
		data  string
	}{
		{0, "gitdir: ../repo/.git/worktrees/wt\n"},
		{1, "ref: refs/heads/main\n"},
		{1, "ref: refs/heads/feature/x..y\n"},
		{1, "0123456789abcdef0123456789abcdef01234567\n"},
		{2, "ref: refs/remotes/origin/trunk\n"},
		{3, "../..\n"},
	} {
		f.Add(seed.which, []byte(seed.data))
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		root := t.TempDir()
		put := func(rel string, b []byte) {
			p := filepath.Join(root, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		switch which % 4 {
		case 0: // a .git file: its gitdir line
			put(".git", data)
		case 1:
			put(".git/HEAD", data)
		case 2:
			put(".git/HEAD", []byte("ref: refs/heads/main\n"))
			put(".git/refs/remotes/origin/HEAD", data)
		case 3: // a worktree's commondir
			put(".git", []byte("gitdir: wt\n"))
			put("wt/HEAD", []byte("ref: refs/heads/main\n"))
			put("wt/commondir", data)
		}
		testutil.WithinBounds(t, "a lookup", len(data), func() { New().Lookup(filepath.Join(root)) })
	})
}

// BenchmarkWorstGitFiles looks up a work tree whose .git file, HEAD and
// origin/HEAD are each at the bound of a read (4 KiB).
func BenchmarkWorstGitFiles(b *testing.B) {
	root := b.TempDir()
	long := strings.Repeat("x", maxSmallFile-32)
	for rel, content := range map[string]string{
		".git":                     "gitdir: wt\n",
		"wt/HEAD":                  "ref: refs/heads/" + long,
		"wt/commondir":             "../.." + long,
		"refs/remotes/origin/HEAD": "ref: refs/remotes/origin/" + long,
	} {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		New().Lookup(root)
	}
}
