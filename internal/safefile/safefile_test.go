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
