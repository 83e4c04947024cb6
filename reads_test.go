package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// openers are the standard library's calls that open a path and block on
// a FIFO or a device found there for as long as no one writes to it.
var openers = map[string]bool{"Open": true, "OpenFile": true, "ReadFile": true, "ReadDir": true}

// allowedOpeners are the files that may call them, each with why its paths
// are no one else's to shape. Every other file reads through
// internal/safefile, which opens without blocking, reads regular files
// only and bounds what it reads.
var allowedOpeners = map[string]string{
	"internal/safefile/open_unix.go":    "the one reader",
	"internal/safefile/open_other.go":   "the one reader",
	"procinfo/local_linux.go":           "/proc of a process, which no program shapes",
	"claim/lockfile_unix.go":            "the instance lock in the private runtime folder (mode 0700, checked), opened O_RDWR: a FIFO does not block that",
	"claim/lockfile_windows.go":         "the instance lock; Windows paths name no FIFO",
	"state/flock_unix.go":               "the state file's lock, opened O_RDWR|O_NONBLOCK",
	"state/flock_windows.go":            "the state file's lock; Windows paths name no FIFO",
	"herdr/herdrtest/schema.go":         "tests: herdr's schemas",
	"herdr/herdrsim/procfs.go":          "the simulator: /proc",
	"herdr/herdrsim/workspaces.go":      "the simulator (tests, demo): the folders it was given",
	"release/main.go":                   "the release tool, run on this repository",
	"release/build.go":                  "the release tool, run on this repository",
	"release/archive.go":                "the release tool, run on this repository",
	"internal/realherdr/procs_linux.go": "the tests' real herdr: /proc",
	"internal/testutil/tty_linux.go":    "test helpers: /proc",
	"internal/resident/drop_linux.go":   "/proc/self/smaps, which no program shapes",
}

// TestNoBlockingOpens: no code that ships, outside internal/safefile and
// the files above, calls os.Open, os.OpenFile, os.ReadFile or os.ReadDir.
// A person or another program shapes the paths the daemon and the
// commands read (~/.ssh/config and its includes, herdr's plugins.json,
// agents' transcripts, git folders anywhere a pane goes), and one FIFO
// there would hang the daemon's pass, SIGTERM included, or status.
func TestNoBlockingOpens(t *testing.T) {
	fset := token.NewFileSet()
	seen := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || path == "integration") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || !openers[sel.Sel.Name] {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "os" {
				return true
			}
			seen[path] = true
			if allowedOpeners[filepath.ToSlash(path)] == "" {
				t.Errorf("%s: os.%s: read through internal/safefile, or say in allowedOpeners why no one else shapes the path", fset.Position(call.Pos()), sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for path := range allowedOpeners {
		if !seen[filepath.FromSlash(path)] {
			t.Errorf("%s is allowed to open paths but opens none: take it off the list", path)
		}
	}
}
