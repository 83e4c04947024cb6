package main

import (
	"bytes"
	"strings"
	"testing"
)

// The hook fast path must answer exactly as the kong path does.
func TestHookNudgeFastPathMatchesKong(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	t.Setenv("HERDR_SOCKET_PATH", "/tmp/no-herdr-here.sock")
	tests := []struct {
		args []string
		fast bool
		code int
		pane string // $HERDR_PANE_ID
	}{
		{[]string{"nudge", "--quiet", "--when", "precmd", "w1:p3"}, true, 0, ""},
		{[]string{"nudge", "--quiet", "--when=preexec", "w1:p3"}, true, 0, ""},
		{[]string{"nudge", "w1:p3"}, true, 3, ""},
		{[]string{"nudge", "bogus"}, true, 2, ""},
		{[]string{"nudge", "--quiet", "bogus"}, true, 0, ""},
		{[]string{"nudge", "--when", "later", "w1:p3"}, false, 2, ""},
		{[]string{"nudge", "--socket", "/x", "w1:p3"}, true, 3, ""},
		{[]string{"nudge", "--socket=/x", "--quiet", "w1:p3"}, true, 0, ""},
		{[]string{"nudge", "--socket", "", "w1:p3"}, true, 3, ""},
		{[]string{"nudge", "--log-level", "debug", "w1:p3"}, false, 3, ""},
		{[]string{"nudge", "w1:p3", "w1:p4"}, false, 2, ""},
		{[]string{"nudge"}, false, 2, ""},
		// herdr's plugin event hook: the pane comes from the environment.
		{[]string{"nudge", "--quiet"}, true, 0, "w1:p3"},
		{[]string{"nudge"}, true, 3, "w1:p3"},
		{[]string{"nudge"}, true, 2, "bogus"},
		{[]string{"nudge", "w1:p4"}, true, 3, "bogus"},
		{[]string{"once"}, false, 0, ""},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " ")+" pane="+tt.pane, func(t *testing.T) {
			t.Setenv("HERDR_PANE_ID", tt.pane)
			n, g, ok := hookNudge(tt.args)
			if ok != tt.fast {
				t.Fatalf("fast path taken = %v, want %v", ok, tt.fast)
			}
			if tt.args[0] != "nudge" {
				return
			}
			var slow bytes.Buffer
			want := Main(tt.args, &bytes.Buffer{}, &slow)
			if want != tt.code {
				t.Fatalf("kong path exit %d, want %d (%s)", want, tt.code, slow.String())
			}
			if !ok {
				return
			}
			var fast bytes.Buffer
			if got := n.runFast(g, &fast); got != want || fast.String() != slow.String() {
				t.Fatalf("fast path: exit %d %q; kong path: exit %d %q", got, fast.String(), want, slow.String())
			}
		})
	}
}
