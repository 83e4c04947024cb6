//go:build unix

package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/google/renameio/v2"
)

// The markers around the bench's part of docs/figures.md: -write replaces
// what is between them, the page's own prose around them stays.
const (
	figuresBegin = "<!-- figures:begin (written by go run ./integration/bench -write docs/figures.md) -->"
	figuresEnd   = "<!-- figures:end -->"
)

// spliceFigures returns page with the text between its figures markers
// replaced by table; an error when the markers are missing or out of
// order, so that -write fails before an hour's run, not after it.
func spliceFigures(page, table string) (string, error) {
	i := strings.Index(page, figuresBegin)
	j := strings.Index(page, figuresEnd)
	if i < 0 || j < i || strings.Count(page, figuresBegin) != 1 || strings.Count(page, figuresEnd) != 1 {
		return "", fmt.Errorf("no single %q ... %q pair of lines to write the figures between", figuresBegin, figuresEnd)
	}
	if !strings.HasSuffix(table, "\n") {
		table += "\n"
	}
	return page[:i+len(figuresBegin)] + "\n" + table + page[j:], nil
}

// checkPage reads path and checks that spliceFigures can write into it.
func checkPage(path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("-write: %w", err)
	}
	if _, err := spliceFigures(string(raw), ""); err != nil {
		return fmt.Errorf("-write %s: %w", path, err)
	}
	return nil
}

// writePage puts table between path's figures markers, atomically.
func writePage(path, table string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("-write: %w", err)
	}
	page, err := spliceFigures(string(raw), table)
	if err != nil {
		return fmt.Errorf("-write %s: %w", path, err)
	}
	if err := renameio.WriteFile(path, []byte(page), 0o644); err != nil {
		return fmt.Errorf("-write %s: %w", path, err)
	}
	return nil
}
