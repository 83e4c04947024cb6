//go:build unix

package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpenRefusesWhatIsNoRegularFileWithoutBlocking: a FIFO with no
// writer, a folder and a device are refused at once; a regular file reads.
func TestOpenRefusesWhatIsNoRegularFileWithoutBlocking(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path string
		want string // "" for success, else a word of the error
	}{
		{fifo, "FIFO"}, {dir, "folder"}, {"/dev/null", "device"}, {plain, ""},
	}
	for _, tt := range tests {
		done := make(chan error, 1)
		go func() { _, err := ReadFile(tt.path, 64); done <- err }()
		select {
		case err := <-done:
			if tt.want == "" && err != nil {
				t.Errorf("ReadFile(%s) = %v, want the content", tt.path, err)
			}
			if tt.want != "" && (!errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("ReadFile(%s) = %v, want ErrNotRegular naming %s", tt.path, err, tt.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("ReadFile(%s) blocked", tt.path)
		}
	}
	if _, err := ReadFile(plain, 3); err == nil || !strings.Contains(err.Error(), "larger than 3 bytes") {
		t.Errorf("ReadFile over the bound = %v, want an error", err)
	}
}

// TestOpenOwnedRefusesSymlinksAndOtherOwners: OpenOwned reads a plain file
// of uid, and refuses a symlink to that very file, another uid's file, a
// FIFO and a device, the FIFO without blocking.
func TestOpenOwnedRefusesSymlinksAndOtherOwners(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(plain, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	me := os.Getuid()
	tests := []struct {
		name string
		path string
		uid  int
		want error // nil for success
	}{
		{"own plain file", plain, me, nil},
		{"symlink to it", link, me, ErrSymlink},
		{"another user's file", plain, me + 1, ErrNotOwned},
		{"FIFO", fifo, me, ErrNotRegular},
		{"device", "/dev/null", 0, ErrNotRegular},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			type result struct {
				fi  os.FileInfo
				err error
			}
			done := make(chan result, 1)
			go func() {
				f, fi, err := OpenOwned(tt.path, tt.uid)
				if f != nil {
					f.Close()
				}
				done <- result{fi, err}
			}()
			select {
			case r := <-done:
				if tt.want == nil && (r.err != nil || r.fi == nil || r.fi.Size() != 5) {
					t.Errorf("OpenOwned(%s) = %v, %v; want the file", tt.path, r.fi, r.err)
				}
				if tt.want != nil && !errors.Is(r.err, tt.want) {
					t.Errorf("OpenOwned(%s) = %v, want %v", tt.path, r.err, tt.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("OpenOwned(%s) blocked", tt.path)
			}
		})
	}
}
