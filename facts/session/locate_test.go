package session

import (
	"strings"
	"testing"
)

func TestIsSafeID(t *testing.T) {
	for _, tc := range []struct {
		id   string
		want bool
	}{
		{"3f2c9a1e-7b4d-4c1a-9e2f-0a1b2c3d4e5f", true},
		{"a", true},
		{"A_z-9", true},
		{strings.Repeat("a", 128), true},
		{strings.Repeat("a", 129), false},
		{"", false},
		{"..", false},
		{"../x", false},
		{"a/b", false},
		{"a b", false},
		{"a\x00", false},
		{"é", false},
		{"a.jsonl", false},
	} {
		if got := isSafeID(tc.id); got != tc.want {
			t.Errorf("isSafeID(%q) = %v, want %v", tc.id, got, tc.want)
		}
	}
}
