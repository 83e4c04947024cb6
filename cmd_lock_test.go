package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrtest"
)

// lock and release mark a tab of a running herdr. Without one, or for a
// tab it does not have, they fail and write nothing: the mark would land
// on whatever server next uses the socket.
func TestLockReleaseNeedAHerdrWithTheTab(t *testing.T) {
	srv := herdrtest.Start(t)
	_, tab, _ := srv.NewWorkspace("w", "/")
	missing := filepath.Join(t.TempDir(), "herdr.sock")
	tests := []struct {
		name, socket, tab string
		code              int
		want              string
	}{
		{"no herdr", missing, "w1:t1", 1, "start herdr"},
		{"unknown tab", srv.SocketPath(), "w1:t9", 1, "has no tab w1:t9"},
		{"existing tab", srv.SocketPath(), tab, 0, ""},
	}
	for _, cmd := range []string{"lock", "release"} {
		for _, tt := range tests {
			t.Run(cmd+" "+tt.name, func(t *testing.T) {
				state := filepath.Join(t.TempDir(), "state.json")
				var out, errb bytes.Buffer
				code := Main([]string{cmd, tt.tab, "--socket", tt.socket, "--state", state}, &out, &errb)
				if code != tt.code {
					t.Fatalf("exit %d, want %d; stderr %q", code, tt.code, errb.String())
				}
				_, statErr := os.Stat(state)
				if tt.code != 0 {
					if out.Len() != 0 || !os.IsNotExist(statErr) {
						t.Fatalf("failed %s printed %q or wrote %s", cmd, out.String(), state)
					}
					if msg := errb.String(); !strings.Contains(msg, tt.want) || strings.Count(msg, "\n") != 1 {
						t.Fatalf("stderr %q, want one line with %q", msg, tt.want)
					}
					return
				}
				if statErr != nil || !strings.HasPrefix(out.String(), cmd) {
					t.Fatalf("stdout %q, state %v", out.String(), statErr)
				}
			})
		}
	}
}
