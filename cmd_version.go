package main

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// VerCmd prints the version.
type VerCmd struct{}

// Run prints the version.
func (VerCmd) Run(env *runEnv) error {
	_, err := fmt.Fprintln(env.stdout, "herdrtabrenamer", versionString())
	return err
}

// versionString is -X main.version when a packager set it, else what Go
// recorded in the binary: the module version (`go install ...@v1.2.3`, or
// a pseudo-version from the checkout's commit) and the VCS revision.
func versionString() string {
	if version != "dev" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return version
	}
	return formatBuildInfo(bi)
}

// formatBuildInfo renders "v1.2.3 (rev 0123456789ab, 2026-12-03T06:00:00Z,
// modified)", leaving out what the build did not record.
func formatBuildInfo(bi *debug.BuildInfo) string {
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
	if len(extra) == 0 {
		return v
	}
	return v + " (" + strings.Join(extra, ", ") + ")"
}
