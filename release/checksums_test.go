package main

import (
	"strings"
	"testing"
)

var (
	sumA = strings.Repeat("0123456789abcdef", 4)
	sumB = strings.Repeat("fedcba9876543210", 4)
)

// TestParseChecksums: what String writes reads back; anything looser is
// refused, since the plugin build script matches lines exactly.
func TestParseChecksums(t *testing.T) {
	good := sumA + "  a.tar.gz\n" + sumB + "  b.zip\n"
	tests := []struct {
		name, text, err string
	}{
		{"as written", good, ""},
		{"unsorted", sumB + "  b.zip\n" + sumA + "  a.tar.gz\n", "not sorted"},
		{"listed twice", sumA + "  a.tar.gz\n" + sumB + "  a.tar.gz\n", "listed twice"},
		{"upper-case hex", strings.ToUpper(sumA) + "  a.tar.gz\n", "line 1"},
		{"short hash", sumA[:63] + "  a.tar.gz\n", "line 1"},
		{"binary-mode star", sumA + " *a.tar.gz\n", "line 1"},
		{"path in the name", sumA + "  ../a.tar.gz\n", "line 1"},
		{"no final newline", strings.TrimSuffix(good, "\n"), "newline"},
		{"empty line", good + "\n", "line 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseChecksums(tt.text)
			if tt.err == "" {
				if err != nil || c.String() != tt.text {
					t.Fatalf("got %q, %v; want %q back", c.String(), err, tt.text)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("error %v, want one with %q", err, tt.err)
			}
		})
	}
}

// TestChecksumsDiff names each file that differs, is missing or is new.
func TestChecksumsDiff(t *testing.T) {
	tests := []struct {
		name          string
		built, listed checksums
		want          []string
	}{
		{"same", checksums{"a": sumA}, checksums{"a": sumA}, nil},
		{"changed", checksums{"a": sumA}, checksums{"a": sumB}, []string{"a: built 0123456789ab…, listed fedcba987654…"}},
		{"not built", checksums{}, checksums{"a": sumA}, []string{"a: listed but not built"}},
		{"not listed", checksums{"b": sumB}, checksums{}, []string{"b: built but not listed"}},
		{"several, by name", checksums{"b": sumB, "a": sumA}, checksums{"a": sumB}, []string{"a: built 0123456789ab…, listed fedcba987654…", "b: built but not listed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.built.diff(tt.listed); got != strings.Join(tt.want, "; ") {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}
