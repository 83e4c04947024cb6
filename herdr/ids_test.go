package herdr

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestEncodeNumber(t *testing.T) {
	// The examples of docs/herdr.md §5.
	tests := []struct {
		n    int
		want string
	}{{1, "1"}, {9, "9"}, {10, "A"}, {31, "Z"}, {32, "0"}, {33, "11"}, {64, "10"}, {1024, "Z0"}, {0, ""}, {-3, ""}}
	for _, tt := range tests {
		if got := EncodeNumber(tt.n); got != tt.want {
			t.Errorf("EncodeNumber(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestDecodeNumberRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 1<<30).Draw(t, "n")
		got, err := DecodeNumber(EncodeNumber(n))
		if err != nil || got != n {
			t.Fatalf("DecodeNumber(EncodeNumber(%d)) = %d, %v", n, got, err)
		}
	})
}

func TestDecodeNumberErrors(t *testing.T) {
	for _, s := range []string{"", "a", "I", "L", "O", "U", "1-", strings.Repeat("Z", 8)} {
		if _, err := DecodeNumber(s); err == nil {
			t.Errorf("DecodeNumber(%q) succeeded", s)
		}
	}
}

func TestParseIDs(t *testing.T) {
	tests := []struct {
		kind, id string
		ws       string
		n        int
		ok       bool
	}{
		{"pane", "w1:p3", "w1", 3, true},
		{"pane", "wA:p11", "wA", 33, true},
		{"pane", "w1:t3", "", 0, false},
		{"pane", "w1-3", "", 0, false},
		{"pane", "w1:p", "", 0, false},
		{"pane", "w1:pa", "", 0, false}, // lowercase fails, as in herdr
		{"pane", "x1:p1", "", 0, false},
		{"tab", "w1:t2", "w1", 2, true},
		{"tab", "w0:tZ0", "w0", 1024, true},
		{"tab", "w1:2", "", 0, false},
		{"tab", "t_w1_2", "", 0, false},
		{"workspace", "w1", "", 1, true},
		{"workspace", "wZ0", "", 1024, true},
		{"workspace", "w", "", 0, false},
		{"workspace", "1", "", 0, false},
		{"workspace", "wabc", "", 0, false},
	}
	for _, tt := range tests {
		var ws string
		var n int
		var err error
		switch tt.kind {
		case "pane":
			ws, n, err = ParsePaneID(tt.id)
		case "tab":
			ws, n, err = ParseTabID(tt.id)
		default:
			n, err = ParseWorkspaceID(tt.id)
		}
		if tt.ok != (err == nil) || ws != tt.ws || n != tt.n {
			t.Errorf("parse %s %q = %q %d %v, want %q %d ok=%v", tt.kind, tt.id, ws, n, err, tt.ws, tt.n, tt.ok)
		}
		if err != nil && (!strings.Contains(err.Error(), tt.id) || strings.Contains(err.Error(), "\n")) {
			t.Errorf("error %q should name %q on one line", err, tt.id)
		}
	}
}
