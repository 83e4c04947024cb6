package main

import (
	"fmt"
	"os"
	"testing"
)

// TestMain gives the package's tests their own runtime, config and state
// folders: without XDG_RUNTIME_DIR the daemon's lock and sockets would go
// to the shared per-user folder under the temp dir, and a developer's own
// config.toml would change what the tests see.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "herdrtabrenamer-main-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, v := range []string{"XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_STATE_HOME"} {
		d := dir + "/" + v
		if err := os.Mkdir(d, 0o700); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Setenv(v, d)
	}
	os.Unsetenv("HERDRTABRENAMER_CONFIG")
	os.Unsetenv("HERDRTABRENAMER_HOOKS")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
