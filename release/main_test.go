package main

import (
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// ciCommand is how the tag workflow and .ci/run both build: the same
// command, so CI proves what a release will publish.
const ciCommand = "go run ./release -check -out "

// TestParseFlags: what the command line may ask for, and what it may not.
func TestParseFlags(t *testing.T) {
	tests := []struct {
		name    string
		args    []string
		targets int
		err     string
	}{
		{"defaults", nil, len(allTargets), ""},
		{"some targets", []string{"-targets", "linux/amd64, darwin/arm64,linux/amd64"}, 2, ""},
		{"unknown target", []string{"-targets", "plan9/amd64"}, 0, `unknown target "plan9/amd64"`},
		{"check needs every target", []string{"-check", "-targets", "linux/amd64"}, 0, "need every target"},
		{"update needs every target", []string{"-update", "-targets", "linux/amd64"}, 0, "need every target"},
		{"check and update", []string{"-check", "-update"}, 0, "exclude each other"},
		{"stray argument", []string{"dist"}, 0, `unexpected argument "dist"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := parseFlags(tt.args)
			if tt.err == "" {
				if err != nil || len(o.targets) != tt.targets {
					t.Fatalf("%d targets, %v; want %d", len(o.targets), err, tt.targets)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("error %v, want one with %q", err, tt.err)
			}
		})
	}
}

// TestRunRefusesBeforeBuilding: a tag that is not the manifest's version
// stops the workflow before anything is built or published.
func TestRunRefusesBeforeBuilding(t *testing.T) {
	t.Chdir("..")
	version, err := manifestVersion(manifestFile)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir() + "/dist"
	tests := []struct {
		name string
		args []string
		err  string
	}{
		{"tag of another version", []string{"-tag", "v" + version + ".1"}, "does not match version"},
		{"tag without v", []string{"-tag", version}, "does not match version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := run(append(tt.args, "-out", out), io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("error %v, want one with %q", err, tt.err)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s was made: the run built before refusing", out)
			}
		})
	}
}

// TestBuildEnv: whatever the caller's environment says, the variables that
// change the compiler's output have one value each.
func TestBuildEnv(t *testing.T) {
	in := []string{"HOME=/h", "GOFLAGS=-race", "GOOS=plan9", "CGO_ENABLED=1", "GOENV=/x/env", "GOAMD64=v3", "GOTOOLCHAIN=local", "GOEXPERIMENT=rangefunc"}
	got := buildEnv(in, target{"linux", "arm64"})
	want := []string{"HOME=/h", "CGO_ENABLED=0", "GOAMD64=v1", "GOARCH=arm64", "GOARM64=v8.0", "GOENV=off",
		"GOEXPERIMENT=", "GOFLAGS=-mod=readonly", "GOOS=linux", "GOTOOLCHAIN=" + pinnedGo}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

// TestWorkflowAndCI: the tag workflow installs the pinned Go and runs the
// same build as .ci/run, and actionlint accepts it.
func TestWorkflowAndCI(t *testing.T) {
	workflow := readFile(t, "../.github/workflows/release.yml")
	ci := readFile(t, "../.ci/run")
	if want := `go-version: "` + strings.TrimPrefix(pinnedGo, "go") + `"`; !strings.Contains(workflow, want) {
		t.Errorf("release.yml does not install %s (%s)", pinnedGo, want)
	}
	for name, text := range map[string]string{"release.yml": workflow, ".ci/run": ci} {
		if !strings.Contains(text, ciCommand) {
			t.Errorf("%s does not build with %q", name, ciCommand)
		}
	}
	if !strings.Contains(ci, "go tool actionlint") {
		t.Error(".ci/run does not lint the workflows with actionlint")
	}
	cmd := exec.Command("go", "tool", "actionlint", "release.yml")
	cmd.Dir = "../.github/workflows"
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("actionlint: %v\n%s", err, out)
	}
}

// TestPluginBuildScriptLint: the plugin build script is POSIX sh, which
// herdr's sh may be (dash, busybox, macOS's sh).
func TestPluginBuildScriptLint(t *testing.T) {
	if _, err := exec.LookPath("shellcheck"); err != nil {
		t.Skip("shellcheck is not installed (apt-get install -y shellcheck); skipping")
	}
	if out, err := exec.Command("shellcheck", "--shell=sh", "plugin-build.sh").CombinedOutput(); err != nil {
		t.Errorf("shellcheck plugin-build.sh: %v\n%s", err, out)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
