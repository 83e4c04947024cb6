package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/daemon"
	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
)

// A second daemon for the same herdr says who holds it and what to do.
func TestRunWhenADaemonAlreadyServesThisHerdr(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	sock := filepath.Join(t.TempDir(), "herdr.sock")
	if _, err := rundir.Dir(); err != nil {
		t.Fatal(err)
	}
	inst, err := daemon.AcquireInstance(daemon.InstanceLockPath(sock))
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Release()
	var errb bytes.Buffer
	if code := Main([]string{"run", "--socket", sock, "--state", ""}, &bytes.Buffer{}, &errb); code != 1 ||
		!strings.Contains(errb.String(), fmt.Sprintf("pid %d", os.Getpid())) || !strings.Contains(errb.String(), "--if-not-running") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := Main([]string{"run", "--socket", sock, "--state", "", "--if-not-running"}, &bytes.Buffer{}, &errb); code != 0 || errb.Len() != 0 {
		t.Fatalf("--if-not-running: exit %d, stderr %q", code, errb.String())
	}
}
