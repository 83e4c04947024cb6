// Command release builds herdrtabrenamer's release files: a tar.gz for
// linux and darwin on amd64 and arm64 (each with the binary, LICENSE,
// README.md and the manual page herdrtabrenamer.1), a zip for
// windows/amd64 (the same but the manual page), a .deb for linux on amd64
// and arm64, and SHA256SUMS listing them all. Two runs on one commit give the same
// bytes on any machine with the pinned Go: the binaries are built with
// -trimpath, no VCS stamp, no cgo and fixed flags, and the archives are
// written with fixed times, owners and order. So the checksums are
// committed (release/SHA256SUMS) before the version is tagged, the
// herdr plugin's build step checks what it downloads against them, and
// Formula/herdrtabrenamer.rb, rendered from them, makes the repository a
// Homebrew tap.
//
// From the repository root:
//
//	go run ./release -out dist -check   build, then fail unless release/SHA256SUMS and the formula match
//	go run ./release -update            build in a temporary folder, then rewrite release/SHA256SUMS and the formula
//	go run ./release -out DIR -targets linux/amd64   build some targets only
//
// The tag workflow (.github/workflows/release.yml) and .ci/run run the
// first line; after any change to what goes into the archives (the Go
// source, README.md, LICENSE) run the second and commit its two files.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/pluginmanifest"
)

// Paths from the repository root.
const (
	manifestFile = "herdr-plugin.toml"
	sumsFile     = "release/SHA256SUMS"
	formulaFile  = "Formula/herdrtabrenamer.rb"
)

// options are the command line.
type options struct {
	out     string
	targets []target
	check   bool
	update  bool
	tag     string
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

// run builds what the options ask for and checks or updates the
// committed checksums.
func run(args []string, stdout io.Writer) error {
	o, err := parseFlags(args)
	if err != nil {
		return err
	}
	version, err := manifestVersion(manifestFile)
	if err != nil {
		return err
	}
	if o.tag != "" && o.tag != "v"+version {
		return fmt.Errorf("tag %s does not match version %q in %s: tag v%s instead, or set the version in hooks/herdr-plugin.toml.tmpl, regenerate the manifest and run go run ./release -update", o.tag, version, manifestFile, version)
	}
	if (o.check || o.update) && runtime.Version() != pinnedGo {
		return fmt.Errorf("the committed checksums come from %s, this is %s: run it as GOTOOLCHAIN=%s go run ./release", pinnedGo, runtime.Version(), pinnedGo)
	}
	out := o.out
	if out == "" {
		if out, err = os.MkdirTemp("", "herdrtabrenamer-release-"); err != nil {
			return fmt.Errorf("make a folder to build in: %w (set TMPDIR, or pass -out DIR)", err)
		}
		defer os.RemoveAll(out)
	}
	sums, err := buildAll(out, version, o.targets, stdout)
	if err != nil {
		return err
	}
	switch {
	case o.update:
		return update(sums, version)
	case o.check:
		return check(sums, version)
	}
	return nil
}

// parseFlags reads the command line.
func parseFlags(args []string) (options, error) {
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	var o options
	var targets string
	fs.StringVar(&o.out, "out", "", "write the release files into `DIR`, which must be empty or absent (default: a temporary folder, removed at the end)")
	fs.StringVar(&targets, "targets", strings.Join(targetNames(allTargets), ","), "comma-separated GOOS/GOARCH `list` to build")
	fs.BoolVar(&o.check, "check", false, "fail unless "+sumsFile+" and "+formulaFile+" match the build")
	fs.BoolVar(&o.update, "update", false, "rewrite "+sumsFile+" and "+formulaFile+" from the build")
	fs.StringVar(&o.tag, "tag", "", "fail unless `TAG` is v followed by herdr-plugin.toml's version")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q: see go run ./release -h", fs.Arg(0))
	}
	var err error
	if o.targets, err = parseTargets(targets); err != nil {
		return o, err
	}
	if (o.check || o.update) && len(o.targets) != len(allTargets) {
		return o, errors.New("-check and -update need every target: leave out -targets")
	}
	if o.check && o.update {
		return o, errors.New("-check and -update exclude each other")
	}
	return o, nil
}

// manifestVersion is the plugin manifest's version, which is the release's:
// the plugin build downloads the archives of the version it declares.
func manifestVersion(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read the version: %w (run go run ./release from the repository root)", err)
	}
	m, err := pluginmanifest.Parse(string(b))
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if !semver.MatchString(m.Version) {
		return "", fmt.Errorf("%s: version %q is not MAJOR.MINOR.PATCH: fix it in hooks/herdr-plugin.toml.tmpl", path, m.Version)
	}
	return m.Version, nil
}

// update writes the committed checksums and the formula rendered from them.
func update(sums checksums, version string) error {
	formula, err := renderFormula(sums, version)
	if err != nil {
		return err
	}
	if err := os.WriteFile(sumsFile, []byte(sums.String()), 0o644); err != nil {
		return fmt.Errorf("write the checksums: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(formulaFile), 0o755); err != nil {
		return fmt.Errorf("write the formula: %w", err)
	}
	if err := os.WriteFile(formulaFile, []byte(formula), 0o644); err != nil {
		return fmt.Errorf("write the formula: %w", err)
	}
	return nil
}

// check fails unless the committed checksums are those of this build and
// the committed formula is their render, naming each file that differs.
func check(sums checksums, version string) error {
	b, err := os.ReadFile(sumsFile)
	if err != nil {
		return fmt.Errorf("read the committed checksums: %w", err)
	}
	committed, err := parseChecksums(string(b))
	if err != nil {
		return fmt.Errorf("%s: %w", sumsFile, err)
	}
	const fix = "if the change is intended, run go run ./release -update and commit " + sumsFile + " and " + formulaFile
	if diff := sums.diff(committed); diff != "" {
		return fmt.Errorf("this build differs from %s (%s); the build is reproducible, so the source, README.md or LICENSE changed since the checksums were made: %s", sumsFile, diff, fix)
	}
	formula, err := renderFormula(committed, version)
	if err != nil {
		return err
	}
	b, err = os.ReadFile(formulaFile)
	if err != nil || string(b) != formula {
		return fmt.Errorf("%s is not the render of %s: %s", formulaFile, sumsFile, fix)
	}
	return nil
}
