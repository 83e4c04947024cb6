//go:build unix

package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// OpenOwnedBeneath opens a file below root through no symlink on the way,
// and never blocks on a FIFO.
func TestOpenOwnedBeneath(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "a", "b"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a", "b", "f"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "f"), []byte("y"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "a", "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "a", "b", "f"), filepath.Join(root, "a", "b", "flink")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "a", "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	uid := os.Getuid()
	for _, tc := range []struct {
		rel  string
		want error // nil: opened
	}{
		{"a/b/f", nil},
		{"a/link/f", ErrSymlink},
		{"a/b/flink", ErrSymlink},
		{"a/fifo", ErrNotRegular},
		{"a/../a/b/f", nil}, // cleaned to a/b/f
		{"../f", errors.New("no name")},
	} {
		f, _, err := OpenOwnedBeneath(root, tc.rel, uid)
		switch {
		case tc.want == nil && err != nil:
			t.Errorf("%s: %v, want it opened", tc.rel, err)
		case tc.want != nil && err == nil:
			t.Errorf("%s: opened, want an error", tc.rel)
		case tc.want == ErrSymlink || tc.want == ErrNotRegular:
			if !errors.Is(err, tc.want) {
				t.Errorf("%s: %v, want %v", tc.rel, err, tc.want)
			}
		}
		if f != nil {
			f.Close()
		}
	}
}
