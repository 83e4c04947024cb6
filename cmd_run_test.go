package main

import (
	"bytes"
	"fmt"
	"github.com/herdrtabrenamer/herdrtabrenamer/claim"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/rundir"
)

// A second daemon for the same herdr says who holds it and what to do.
func TestRunWhenADaemonAlreadyServesThisHerdr(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	sock := filepath.Join(t.TempDir(), "herdr.sock")
	if _, err := rundir.Dir(); err != nil {
		t.Fatal(err)
	}
	inst, err := claim.AcquireInstance(claim.InstanceLockPath(sock))
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

// --settle comes from the flag, its environment variable or the config
// file's settle key, and a negative one is refused with the flag's name.
func TestRunSettle(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		env        []string
		args       []string
		want       time.Duration
		wantErr    string
	}{
		{name: "default: at once", want: 0},
		{name: "flag", args: []string{"--settle", "1500ms"}, want: 1500 * time.Millisecond},
		{name: "config key", file: "settle = \"2s\"\n", want: 2 * time.Second},
		{name: "environment beats the file", file: "settle = \"2s\"\n", env: []string{"HERDRTABRENAMER_SETTLE", "300ms"}, want: 300 * time.Millisecond},
		{name: "negative", args: []string{"--settle=-1s"}, wantErr: "--settle -1s: must not be negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv("XDG_CONFIG_HOME", dir)
			if tc.file != "" {
				cfg := filepath.Join(dir, "herdrtabrenamer", "config.toml")
				if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(cfg, []byte(tc.file), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tc.env != nil {
				t.Setenv(tc.env[0], tc.env[1])
			}
			cli, _, err := parseFor(t, append([]string{"run", "--socket", filepath.Join(dir, "h.sock"), "--state", ""}, tc.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			opt, err := cli.Run.build(&cli.Globals, &runEnv{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if opt.Naming.Settle != tc.want {
				t.Fatalf("settle %v, want %v", opt.Naming.Settle, tc.want)
			}
		})
	}
}
