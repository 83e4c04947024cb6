//go:build unix

package gitinfo

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestFIFOsInGitMetadataDoNotBlock: a FIFO named .git in an ancestor
// folder (anyone can make /tmp/.git one) is passed over, as git does, and
// a FIFO for HEAD in a real .git folder gives a repository without a
// branch; both at once instead of hanging the lookup.
func TestFIFOsInGitMetadataDoNotBlock(t *testing.T) {
	for _, at := range []string{".git", ".git/HEAD"} {
		t.Run(at, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "deep", "er")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(filepath.Join(root, at)), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(filepath.Join(root, at), 0o600); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
			type result struct {
				info Info
				ok   bool
			}
			done := make(chan result, 1)
			go func() { info, ok := New().Lookup(dir); done <- result{info, ok} }()
			select {
			case r := <-done:
				wantRepo := at == ".git/HEAD"
				if r.ok != wantRepo || r.info.Branch != "" {
					t.Errorf("Lookup(%s) = %+v, %v; want a repository %v, no branch", dir, r.info, r.ok, wantRepo)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Lookup blocked on a FIFO")
			}
		})
	}
}
