package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"
)

// pinnedGo is the Go release that built the committed checksums. The
// compiler's output, and so every checksum, changes with it; the tag
// workflow installs this one.
const pinnedGo = "go1.26.8"

// channel is what `herdrtabrenamer version` says built these binaries.
const channel = "release"

// semver is a plain MAJOR.MINOR.PATCH.
var semver = regexp.MustCompile(`^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`)

// target is one platform a release binary is built for.
type target struct{ goos, goarch string }

// allTargets are the platforms herdr runs on.
var allTargets = []target{
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"linux", "amd64"}, {"linux", "arm64"},
	{"windows", "amd64"},
}

func (t target) String() string { return t.goos + "/" + t.goarch }

// exe is the binary's file name on the target.
func (t target) exe() string {
	if t.goos == "windows" {
		return "herdrtabrenamer.exe"
	}
	return "herdrtabrenamer"
}

// archiveName is the release archive's file name, as the plugin build
// script and the formula spell it.
func (t target) archiveName(version string) string {
	ext := ".tar.gz"
	if t.goos == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("herdrtabrenamer_%s_%s_%s%s", version, t.goos, t.goarch, ext)
}

func targetNames(ts []target) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.String())
	}
	return out
}

// parseTargets reads a comma-separated GOOS/GOARCH list of allTargets.
func parseTargets(list string) ([]target, error) {
	var out []target
	for _, name := range strings.Split(list, ",") {
		i := slices.IndexFunc(allTargets, func(t target) bool { return t.String() == strings.TrimSpace(name) })
		if i < 0 {
			return nil, fmt.Errorf("-targets: unknown target %q: want some of %s", name, strings.Join(targetNames(allTargets), ","))
		}
		if !slices.Contains(out, allTargets[i]) {
			out = append(out, allTargets[i])
		}
	}
	return out, nil
}

// buildAll builds every target into out and writes its archives, the
// .deb for linux targets and out/SHA256SUMS; the manual page they carry
// comes from a build for this machine.
func buildAll(out, version string, targets []target, log io.Writer) (checksums, error) {
	if err := emptyDir(out); err != nil {
		return nil, err
	}
	docs, err := readDocs()
	if err != nil {
		return nil, err
	}
	work := filepath.Join(out, ".build")
	dir := func(t target) string { return filepath.Join(work, t.goos+"_"+t.goarch) }
	// The build for this machine prints the page; when it is a target too,
	// its binary is the one released.
	host := target{runtime.GOOS, runtime.GOARCH}
	hostBin, err := goBuild(host, version, dir(host))
	if err != nil {
		return nil, err
	}
	if docs.man, err = manPage(filepath.Join(dir(host), host.exe())); err != nil {
		return nil, err
	}
	sums := checksums{}
	for _, t := range targets {
		start := time.Now()
		bin := hostBin
		if t != host {
			if bin, err = goBuild(t, version, dir(t)); err != nil {
				return nil, err
			}
		}
		files, err := packageTarget(t, version, bin, docs)
		if err != nil {
			return nil, err
		}
		for name, data := range files {
			if err := os.WriteFile(filepath.Join(out, name), data, 0o644); err != nil {
				return nil, fmt.Errorf("write %s: %w", name, err)
			}
			sums.add(name, data)
		}
		fmt.Fprintf(log, "%s: %s (%v)\n", t, strings.Join(slices.Sorted(maps.Keys(files)), ", "), time.Since(start).Round(time.Millisecond))
	}
	if err := os.RemoveAll(work); err != nil {
		return nil, fmt.Errorf("remove %s: %w", work, err)
	}
	if err := os.WriteFile(filepath.Join(out, "SHA256SUMS"), []byte(sums.String()), 0o644); err != nil {
		return nil, fmt.Errorf("write %s: %w", filepath.Join(out, "SHA256SUMS"), err)
	}
	return sums, nil
}

// emptyDir makes dir, which must be absent or empty: a leftover file from
// another build must not be uploaded with this one.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err == nil && len(entries) > 0 {
		return fmt.Errorf("-out %s is not empty: remove it or pick another folder", dir)
	}
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("-out %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("-out %s: %w", dir, err)
	}
	return nil
}

// goBuild compiles the binary for t into dir with fixed flags and a fixed
// environment, so the bytes depend on the source and pinnedGo alone.
func goBuild(t target, version, dir string) ([]byte, error) {
	bin := filepath.Join(dir, t.exe())
	ldflags := fmt.Sprintf("-s -w -buildid= -X main.version=v%s -X main.channel=%s", version, channel)
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags="+ldflags, "-o", bin, ".")
	cmd.Env = buildEnv(os.Environ(), t)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go build for %s: %w: %s", t, err, strings.TrimSpace(stderr.String()))
	}
	b, err := os.ReadFile(bin)
	if err != nil {
		return nil, fmt.Errorf("read the %s binary: %w", t, err)
	}
	return b, nil
}

// buildEnv is env with every variable that changes the compiler's output
// set to one value: the user's go env file is ignored, cgo is off, and the
// toolchain is pinnedGo (the go command fetches it if another is installed).
func buildEnv(env []string, t target) []string {
	fixed := map[string]string{
		"GOOS": t.goos, "GOARCH": t.goarch, "CGO_ENABLED": "0",
		"GOAMD64": "v1", "GOARM64": "v8.0", "GOEXPERIMENT": "",
		"GOFLAGS": "-mod=readonly", "GOENV": "off", "GOTOOLCHAIN": pinnedGo,
	}
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		_, ok := fixed[k]
		return ok
	})
	for _, k := range slices.Sorted(maps.Keys(fixed)) {
		out = append(out, k+"="+fixed[k])
	}
	return out
}
