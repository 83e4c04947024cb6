//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// -write replaces what is between the figures markers and nothing else;
// a page without one pair of markers is refused.
func TestSpliceFigures(t *testing.T) {
	const table = "| figure | measured | target |\n|---|---|---|\n| x | 1 ms | - |\n"
	page := func(mid string) string {
		return "# Figures\n\n" + figuresBegin + "\n" + mid + figuresEnd + "\n\nProse stays.\n"
	}
	for _, tc := range []struct {
		name, in, want string
		err            bool
	}{
		{"old table replaced", page("| old |\n"), page(table), false},
		{"empty between", page(""), page(table), false},
		{"no markers", "# Figures\n", "", true},
		{"end before begin", figuresEnd + "\n" + figuresBegin + "\n", "", true},
		{"two begins", page("") + figuresBegin + "\n", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := spliceFigures(tc.in, strings.TrimSuffix(table, "\n"))
			if (err != nil) != tc.err {
				t.Fatalf("err = %v, want an error: %v", err, tc.err)
			}
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// The project's figures page takes -write, and writePage puts the table
// in a copy of it leaving the prose around the markers as it was.
func TestWriteFiguresPage(t *testing.T) {
	src := filepath.Join("..", "..", "docs", "figures.md")
	if err := checkPage(src); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "figures.md")
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writePage(path, "NEW TABLE\n"); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	before, _, _ := strings.Cut(string(raw), figuresBegin)
	_, after, _ := strings.Cut(string(raw), figuresEnd)
	if want := before + figuresBegin + "\nNEW TABLE\n" + figuresEnd + after; string(got) != want {
		t.Errorf("writePage changed more than the figures:\n%s", got)
	}
}
