package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDebLayout reads the .deb back as dpkg does: an ar archive of
// debian-binary, control.tar.gz and data.tar.gz, in that order, the
// control file naming the package, and data the files under /usr.
func TestDebLayout(t *testing.T) {
	bin := []byte("binary")
	page := ".TH HERDRTABRENAMER 1\n"
	b, err := deb("1.2.3", "arm64", bin, docs{license: []byte("MIT\n"), readme: []byte("# r\n"), man: []byte(page)})
	if err != nil {
		t.Fatal(err)
	}
	members := readAr(t, b)
	if names := strings.Join(arNames(members), " "); names != "debian-binary control.tar.gz data.tar.gz" {
		t.Fatalf("members %s", names)
	}
	if members[0].data != "2.0\n" {
		t.Errorf("debian-binary %q", members[0].data)
	}
	control := readTarGz(t, []byte(members[1].data))
	if len(control) != 3 || !strings.Contains(control[1].data, "Package: herdrtabrenamer\nVersion: 1.2.3\nArchitecture: arm64\n") {
		t.Errorf("control.tar.gz: %+v", control)
	}
	var files []string
	for _, m := range readTarGz(t, []byte(members[2].data)) {
		if m.owner != "0:0:root:root" || m.mtime != mtime.Unix() {
			t.Errorf("%s: owner %s, time %d", m.name, m.owner, m.mtime)
		}
		if m.mode&fs.ModeDir == 0 {
			files = append(files, m.name)
		}
		if m.name == "./usr/share/man/man1/herdrtabrenamer.1.gz" {
			if got := gunzip(t, m.data); got != page {
				t.Errorf("the manual page unzips to %q, want %q", got, page)
			}
		}
	}
	want := "./usr/bin/herdrtabrenamer ./usr/share/doc/herdrtabrenamer/README.md ./usr/share/doc/herdrtabrenamer/copyright ./usr/share/man/man1/herdrtabrenamer.1.gz"
	if strings.Join(files, " ") != want {
		t.Errorf("data.tar.gz files %q, want %q", files, want)
	}
}

// TestDebInstalls installs the package with dpkg into a private root,
// checks it, runs the installed program and removes it again.
func TestDebInstalls(t *testing.T) {
	if _, err := exec.LookPath("dpkg"); err != nil {
		t.Skip("dpkg is not installed: the .deb is only read back")
	}
	script := []byte("#!/bin/sh\necho installed and running\n")
	b, err := deb("1.2.3", debArch(t), script, docs{license: []byte("MIT\n"), readme: []byte("# r\n")})
	if err != nil {
		t.Fatal(err)
	}
	root, dpkg := installDeb(t, b)
	dpkg("--verify", "herdrtabrenamer")
	out, err := exec.Command(filepath.Join(root, "usr/bin/herdrtabrenamer")).Output()
	if err != nil || string(out) != "installed and running\n" {
		t.Errorf("the installed program: %q, %v", out, err)
	}
	dpkg("--remove", "herdrtabrenamer")
	if _, err := os.Stat(filepath.Join(root, "usr/bin/herdrtabrenamer")); err == nil {
		t.Error("dpkg --remove left the program behind")
	}
}

// installDeb installs the package b with dpkg into a private root, and
// returns the root and a way to run dpkg on it.
func installDeb(t *testing.T, b []byte) (root string, dpkg func(args ...string) string) {
	t.Helper()
	dir := t.TempDir()
	pkg := filepath.Join(dir, "herdrtabrenamer.deb")
	root = filepath.Join(dir, "root")
	for _, d := range []string{"var/lib/dpkg/info", "var/lib/dpkg/updates"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "var/lib/dpkg/status"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pkg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	dpkg = func(args ...string) string {
		t.Helper()
		base := []string{"--root=" + root, "--admindir=" + filepath.Join(root, "var/lib/dpkg"),
			"--force-not-root", "--force-script-chrootless", "--no-triggers"}
		out, err := exec.Command("dpkg", append(base, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("dpkg %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	dpkg("--install", pkg)
	return root, dpkg
}

// gunzip is the content of a gzip stream whose header holds no name and
// no time.
func gunzip(t *testing.T, data string) string {
	t.Helper()
	zr, err := gzip.NewReader(strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if zr.Name != "" || !zr.ModTime.IsZero() {
		t.Errorf("gzip header holds name %q, time %v: want neither", zr.Name, zr.ModTime)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// debArch is dpkg's architecture here, so dpkg accepts the package.
func debArch(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("dpkg", "--print-architecture").Output()
	if err != nil {
		t.Fatalf("dpkg --print-architecture: %v", err)
	}
	return strings.TrimSpace(string(out))
}

type arMember struct{ name, data string }

func arNames(ms []arMember) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.name)
	}
	return out
}

// readAr reads a common ar archive, checking each header's fixed fields.
func readAr(t *testing.T, b []byte) []arMember {
	t.Helper()
	rest, ok := bytes.CutPrefix(b, []byte("!<arch>\n"))
	if !ok {
		t.Fatal("no ar magic")
	}
	var out []arMember
	for len(rest) > 0 {
		if len(rest) < 60 || string(rest[58:60]) != "`\n" {
			t.Fatalf("bad ar header at %d", len(b)-len(rest))
		}
		h := string(rest[:60])
		size, err := strconv.Atoi(strings.TrimSpace(h[48:58]))
		if err != nil {
			t.Fatal(err)
		}
		if mt := strings.TrimSpace(h[16:28]); mt != strconv.FormatInt(mtime.Unix(), 10) {
			t.Errorf("%s: mtime %s", strings.TrimSpace(h[:16]), mt)
		}
		out = append(out, arMember{strings.TrimSpace(h[:16]), string(rest[60 : 60+size])})
		rest = rest[60+size+size%2:]
	}
	return out
}
