package main

import (
	"bytes"
	"runtime/debug"
	"testing"
)

// TestVersionString: every channel, as the binary's build info and the
// -X flags of its builder describe it.
func TestVersionString(t *testing.T) {
	const (
		goInstall = "path\tgithub.com/herdrtabrenamer/herdrtabrenamer\nmod\tgithub.com/herdrtabrenamer/herdrtabrenamer\tv0.3.1\th1:x=\n"
		goBuild   = "path\tgithub.com/herdrtabrenamer/herdrtabrenamer\nmod\tgithub.com/herdrtabrenamer/herdrtabrenamer\tv0.0.0-20261203065208-77501eedf6dd\t\nbuild\tvcs=git\nbuild\tvcs.revision=77501eedf6dda9d5871a6e60f95512fa535ce5c2\nbuild\tvcs.time=2026-12-03T06:52:08Z\nbuild\tvcs.modified=false\n"
		modified  = "path\tx\nmod\tx\t(devel)\t\nbuild\tvcs.revision=abc\nbuild\tvcs.modified=true\n"
		noVCS     = "path\tx\nmod\tx\t(devel)\t\n"
		release   = "path\tgithub.com/herdrtabrenamer/herdrtabrenamer\nmod\tgithub.com/herdrtabrenamer/herdrtabrenamer\t(devel)\t\nbuild\t-ldflags=\"-X main.version=v0.1.0 -X main.channel=release\"\n"
	)
	tests := []struct {
		name             string
		stamped, channel string
		info             string // as `go version -m` prints it; "" for none
		want             string
	}{
		{"go install @version", "dev", "", goInstall, "v0.3.1 (go install)"},
		{"go build in a clone", "dev", "", goBuild, "v0.0.0-20261203065208-77501eedf6dd (go build, rev 77501eedf6dd, 2026-12-03T06:52:08Z)"},
		{"modified work tree", "dev", "", modified, "dev (go build, rev abc, modified)"},
		{"no VCS, no version", "dev", "", noVCS, "dev (go build)"},
		{"release archive", "v0.1.0", "release", release, "v0.1.0 (release)"},
		{"nix", "0.1.0-77501ee", "nix", noVCS, "0.1.0-77501ee (nix)"},
		{"packager stamps a version only", "v2.0.0", "", noVCS, "v2.0.0 (go build)"},
		{"no build info", "dev", "", "", "dev (go build)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var bi *debug.BuildInfo
			if tt.info != "" {
				var err error
				if bi, err = debug.ParseBuildInfo(tt.info); err != nil {
					t.Fatal(err)
				}
			}
			if got := formatVersion(tt.stamped, tt.channel, bi); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// The -X flags reach both spellings of the command, and they print the same.
func TestVersionCommandAndFlagAgree(t *testing.T) {
	oldVersion, oldChannel := version, channel
	t.Cleanup(func() { version, channel = oldVersion, oldChannel })
	version, channel = "v9.9.9-test", "release"
	var cmd, flag bytes.Buffer
	Main([]string{"version"}, &cmd, &bytes.Buffer{})
	Main([]string{"--version"}, &flag, &bytes.Buffer{})
	if cmd.String() != "herdrtabrenamer v9.9.9-test (release)\n" || cmd.String() != flag.String() {
		t.Fatalf("version %q, --version %q", cmd.String(), flag.String())
	}
}
