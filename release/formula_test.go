package main

import (
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestCommittedRelease: release/SHA256SUMS lists exactly this version's
// release files, and the committed formula is their render. (.ci/run's
// release build checks the sums against the source.)
func TestCommittedRelease(t *testing.T) {
	version, err := manifestVersion("../" + manifestFile)
	if err != nil {
		t.Fatal(err)
	}
	sums, err := parseChecksums(readFile(t, "SHA256SUMS"))
	if err != nil {
		t.Fatalf("release/SHA256SUMS: %v", err)
	}
	var want []string
	for _, tg := range allTargets {
		want = append(want, tg.archiveName(version))
		if tg.goos == "linux" {
			want = append(want, debName(version, tg.goarch))
		}
	}
	got := slices.Sorted(maps.Keys(sums))
	if slices.Sort(want); !slices.Equal(got, want) {
		t.Fatalf("release/SHA256SUMS lists %q, want %q: run go run ./release -update", got, want)
	}
	formula, err := renderFormula(sums, version)
	if err != nil {
		t.Fatal(err)
	}
	if readFile(t, "../"+formulaFile) != formula {
		t.Fatalf("%s is not the render of release/SHA256SUMS: run go run ./release -update", formulaFile)
	}
}

// TestFormulaPicksEachPlatform loads the committed formula with Ruby under
// a stand-in for Homebrew's DSL: on each platform it downloads that
// platform's archive with its committed checksum, installs the binary, its
// manual page and its completions, and has a test.
func TestFormulaPicksEachPlatform(t *testing.T) {
	if _, err := exec.LookPath("ruby"); err != nil {
		t.Skip("ruby is not installed (apt-get install -y ruby): the formula is only compared with its render")
	}
	version, err := manifestVersion("../" + manifestFile)
	if err != nil {
		t.Fatal(err)
	}
	sums, err := parseChecksums(readFile(t, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range allTargets {
		if tg.goos == "windows" {
			continue
		}
		t.Run(tg.String(), func(t *testing.T) {
			out, err := exec.Command("ruby", "testdata/formula_harness.rb", tg.goos, tg.goarch, "../"+formulaFile).CombinedOutput()
			if err != nil {
				t.Fatalf("ruby: %v\n%s", err, out)
			}
			name := tg.archiveName(version)
			for _, line := range []string{
				"version " + version,
				"url " + releaseBase + version + "/" + name,
				"sha256 " + sums[name],
				"bin_install herdrtabrenamer",
				"man1_install " + manName,
				"completions BIN/herdrtabrenamer completion",
				"test block",
			} {
				if !slices.Contains(strings.Split(string(out), "\n"), line) {
					t.Errorf("the formula on %s lacks %q:\n%s", tg, line, out)
				}
			}
			if n := strings.Count(string(out), "\nurl "); n != 1 {
				t.Errorf("%d urls on %s, want 1:\n%s", n, tg, out)
			}
		})
	}
}
