package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain gives the package's tests their own runtime, config and state
// folders: without XDG_RUNTIME_DIR the daemon's lock and sockets would go
// to the shared per-user folder under the temp dir, and a developer's own
// config.toml would change what the tests see. It fails the run if a test
// left files in that shared folder anyway.
// When a testscript transcript (testdata/script) runs "herdrtabrenamer",
// the test binary is the program itself.
func TestMain(m *testing.M) {
	testscript.Main(isolated{m}, map[string]func(){
		"herdrtabrenamer": func() { os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr)) },
	})
}

// isolated runs the tests with their own folders (see TestMain).
type isolated struct{ m *testing.M }

func (i isolated) Run() int {
	shared := filepath.Join(os.TempDir(), "herdrtabrenamer-"+strconv.Itoa(os.Getuid()))
	before := entries(shared)
	dir, err := os.MkdirTemp("", "herdrtabrenamer-main-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for _, v := range []string{"XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_STATE_HOME"} {
		d := filepath.Join(dir, v)
		if err := os.Mkdir(d, 0o700); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		os.Setenv(v, d)
	}
	for _, v := range []string{"HERDRTABRENAMER_CONFIG", "HERDRTABRENAMER_HOOKS", "HERDRTABRENAMER_SOCKET", "HERDR_PANE_ID", "HERDR_TAB_ID"} {
		os.Unsetenv(v)
	}
	code := i.m.Run()
	os.RemoveAll(dir)
	for _, e := range entries(shared) {
		if !slices.Contains(before, e) {
			fmt.Fprintf(os.Stderr, "a test left %s in the shared runtime folder; give it its own XDG_RUNTIME_DIR\n", filepath.Join(shared, e))
			code = 1
		}
	}
	return code
}

func entries(dir string) []string {
	des, _ := os.ReadDir(dir)
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}
