package main

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// channel names what built the binary when the builder says so with
// -ldflags "-X main.channel=...": "release" for the release archives (and
// the Homebrew formula and .deb made from them), "nix" for the flake. Left
// empty, the build info tells `go install` from `go build`.
var channel = ""

// VerCmd prints the version.
type VerCmd struct{}

// Run prints the version.
func (VerCmd) Run(env *runEnv) error {
	_, err := fmt.Fprintln(env.stdout, "herdrtabrenamer", versionString())
	return err
}

// versionString is the version and the channel that built the binary, with
// what Go recorded of the source when no packager stamped a version.
func versionString() string {
	bi, _ := debug.ReadBuildInfo()
	return formatVersion(version, channel, bi)
}

// formatVersion renders "v1.2.3 (go install)", "v0.1.0 (release)" or
// "v0.0.0-20261203065208-77501eedf6dd (go build, rev 77501eedf6dd,
// 2026-12-03T06:52:08Z, modified)". stamped is -X main.version ("dev" when
// unset), ch is -X main.channel, bi may be nil.
func formatVersion(stamped, ch string, bi *debug.BuildInfo) string {
	if ch == "" {
		ch = buildChannel(bi)
	}
	if stamped != "dev" || bi == nil {
		return stamped + " (" + ch + ")"
	}
	v, extra := buildInfoDetails(bi)
	return v + " (" + strings.Join(append([]string{ch}, extra...), ", ") + ")"
}

// buildChannel tells `go install module@version`, which builds the module
// from the module cache and so records its go.sum hash, from `go build` or
// `go run` in a checkout, which records none.
func buildChannel(bi *debug.BuildInfo) string {
	if bi != nil && bi.Main.Sum != "" {
		return "go install"
	}
	return "go build"
}

// buildInfoDetails is the module version Go recorded ("dev" for none) and
// the VCS revision, commit time and modified flag, leaving out what the
// build did not record.
func buildInfoDetails(bi *debug.BuildInfo) (string, []string) {
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "dev"
	}
	var rev, when string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	var extra []string
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		extra = append(extra, "rev "+rev)
	}
	if when != "" {
		extra = append(extra, when)
	}
	if modified {
		extra = append(extra, "modified")
	}
	return v, extra
}
