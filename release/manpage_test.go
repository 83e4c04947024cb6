package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestBuiltPackageHasItsManPage packages this source for this machine as
// the release does, with the page its binary prints, installs the .deb
// with dpkg into a private root and reads the page there with man, as a
// person would after apt install. The archive carries the same page. The
// binary, with the release's version stamp, is built with -race: its
// packages are then those go test -race has compiled already, and only
// main is compiled again (the release's own compiler flags are checked
// by .ci/run's release build). The page does not depend on them.
func TestBuiltPackageHasItsManPage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	if runtime.GOOS != "linux" || !slices.Contains(allTargets, target{"linux", runtime.GOARCH}) {
		t.Skipf("no .deb is built for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	for _, tool := range []string{"dpkg", "man"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("CI=true but %s is not installed (.ci/run installs man-db)", tool)
			}
			t.Skipf("%s is not installed (apt-get install -y man-db): the page is only read back", tool)
		}
	}
	t.Chdir("..")
	version, err := manifestVersion(manifestFile)
	if err != nil {
		t.Fatal(err)
	}
	host := target{"linux", runtime.GOARCH}
	exe := filepath.Join(t.TempDir(), "herdrtabrenamer")
	build := exec.Command("go", "build", "-race", "-o", exe, "-ldflags=-X main.version=v"+version+" -X main.channel="+channel, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	d, err := readDocs()
	if err != nil {
		t.Fatal(err)
	}
	if d.man, err = manPage(exe); err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	files, err := packageTarget(host, version, bin, d)
	if err != nil {
		t.Fatal(err)
	}
	pkg := files[debName(version, host.goarch)]
	root, _ := installDeb(t, pkg)
	cmd := exec.Command("man", "-P", "cat", "herdrtabrenamer")
	cmd.Env = append(os.Environ(), "MANPATH="+filepath.Join(root, "usr/share/man"), "MANWIDTH=200", "LANG=C.UTF-8")
	text, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("man herdrtabrenamer after installing the .deb: %v\n%s", err, text)
	}
	for _, want := range []string{
		"herdrtabrenamer - Names herdr tabs after what runs inside them.",
		"herdrtabrenamer v" + version + " (release)",
		mtime.Format(time.DateOnly),
		"--apply", "--socket=PATH", "HERDRTABRENAMER_FORMAT",
		"COMMANDS", "run [flags]", "restore [flags]",
	} {
		if !strings.Contains(string(text), want) {
			t.Errorf("man herdrtabrenamer lacks %q:\n%s", want, text)
		}
	}
	var installed string
	for _, m := range readTarGz(t, []byte(readAr(t, pkg)[2].data)) {
		if m.name == "./usr/share/man/man1/"+manName+".gz" {
			installed = gunzip(t, m.data)
		}
	}
	archive := readTarGz(t, files[host.archiveName(version)])
	i := slices.IndexFunc(archive, func(m member) bool { return m.name == manName })
	if i < 0 {
		t.Fatalf("%s carries no %s", host.archiveName(version), manName)
	}
	if page := archive[i].data; page != installed || !strings.HasPrefix(page, ".TH HERDRTABRENAMER 1 ") {
		t.Errorf("the archive's %s is not the page the .deb installs:\n%.200s\n---\n%.200s", manName, page, installed)
	}
}
