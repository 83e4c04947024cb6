package main

import (
	"bytes"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionFromBuildInfo(t *testing.T) {
	tests := []struct {
		name string
		info string // as `go version -m` prints it
		want string
	}{
		{"go install @version", "path\tgithub.com/herdrtabrenamer/herdrtabrenamer\nmod\tgithub.com/herdrtabrenamer/herdrtabrenamer\tv0.3.1\th1:x=\n", "v0.3.1"},
		{"go build in a clone", "path\tgithub.com/herdrtabrenamer/herdrtabrenamer\nmod\tgithub.com/herdrtabrenamer/herdrtabrenamer\tv0.0.0-20261203065208-77501eedf6dd\t\nbuild\tvcs=git\nbuild\tvcs.revision=77501eedf6dda9d5871a6e60f95512fa535ce5c2\nbuild\tvcs.time=2026-12-03T06:52:08Z\nbuild\tvcs.modified=false\n",
			"v0.0.0-20261203065208-77501eedf6dd (rev 77501eedf6dd, 2026-12-03T06:52:08Z)"},
		{"modified work tree", "path\tx\nmod\tx\t(devel)\t\nbuild\tvcs.revision=abc\nbuild\tvcs.modified=true\n", "dev (rev abc, modified)"},
		{"no VCS, no version", "path\tx\nmod\tx\t(devel)\t\n", "dev"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bi, err := debug.ParseBuildInfo(tt.info)
			if err != nil {
				t.Fatal(err)
			}
			if got := formatBuildInfo(bi); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// A packager's -X main.version wins; both spellings print the same.
func TestVersionCommandAndFlagAgree(t *testing.T) {
	old := version
	t.Cleanup(func() { version = old })
	version = "v9.9.9-test"
	var cmd, flag bytes.Buffer
	Main([]string{"version"}, &cmd, &bytes.Buffer{})
	Main([]string{"--version"}, &flag, &bytes.Buffer{})
	if cmd.String() != "herdrtabrenamer v9.9.9-test\n" || cmd.String() != flag.String() {
		t.Fatalf("version %q, --version %q", cmd.String(), flag.String())
	}
	if strings.Contains(versionString(), "dev") {
		t.Fatal("the -X version is not used")
	}
}
