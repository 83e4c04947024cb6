package main

import (
	"bytes"
	"crypto/md5"
	"fmt"
	"io/fs"
	"strings"
)

// debName is the Debian package's file name (Debian's arch names match
// Go's for amd64 and arm64).
func debName(version, arch string) string {
	return fmt.Sprintf("herdrtabrenamer_%s_%s.deb", version, arch)
}

// deb writes a Debian binary package, the way dpkg-deb lays one out: an
// ar archive of debian-binary, control.tar.gz and data.tar.gz. It installs
// the binary to /usr/bin, LICENSE and README.md to
// /usr/share/doc/herdrtabrenamer and the manual page, gzipped as Debian's
// policy asks, to /usr/share/man/man1, everything owned by root.
func deb(version, arch string, bin []byte, d docs) ([]byte, error) {
	const doc = "./usr/share/doc/herdrtabrenamer/"
	man, err := gzipped(d.man)
	if err != nil {
		return nil, fmt.Errorf("%s.gz: %w", manName, err)
	}
	data := []file{
		{"./", fs.ModeDir | 0o755, nil},
		{"./usr/", fs.ModeDir | 0o755, nil},
		{"./usr/bin/", fs.ModeDir | 0o755, nil},
		{"./usr/bin/herdrtabrenamer", 0o755, bin},
		{"./usr/share/", fs.ModeDir | 0o755, nil},
		{"./usr/share/doc/", fs.ModeDir | 0o755, nil},
		{doc, fs.ModeDir | 0o755, nil},
		{doc + "README.md", 0o644, d.readme},
		{doc + "copyright", 0o644, d.license},
		{"./usr/share/man/", fs.ModeDir | 0o755, nil},
		{"./usr/share/man/man1/", fs.ModeDir | 0o755, nil},
		{"./usr/share/man/man1/" + manName + ".gz", 0o644, man},
	}
	dataTar, err := tarGz(data, "root", "root")
	if err != nil {
		return nil, fmt.Errorf("data.tar.gz: %w", err)
	}
	control := []file{
		{"./", fs.ModeDir | 0o755, nil},
		{"./control", 0o644, []byte(debControl(version, arch, data))},
		{"./md5sums", 0o644, []byte(md5sums(data))},
	}
	controlTar, err := tarGz(control, "root", "root")
	if err != nil {
		return nil, fmt.Errorf("control.tar.gz: %w", err)
	}
	return arArchive([]file{
		{"debian-binary", 0o644, []byte("2.0\n")},
		{"control.tar.gz", 0o644, controlTar},
		{"data.tar.gz", 0o644, dataTar},
	}), nil
}

// debControl is the package's control file. Installed-Size is in KiB.
func debControl(version, arch string, data []file) string {
	size := 0
	for _, f := range data {
		size += (len(f.data) + 1023) / 1024
	}
	return fmt.Sprintf(`Package: herdrtabrenamer
Version: %s
Architecture: %s
Maintainer: herdrtabrenamer authors <https://github.com/herdrtabrenamer/herdrtabrenamer/issues>
Installed-Size: %d
Section: utils
Priority: optional
Homepage: https://github.com/herdrtabrenamer/herdrtabrenamer
Description: names herdr tabs after what runs inside them
 herdrtabrenamer is a daemon for herdr, the terminal multiplexer for coding
 agents: it names each tab after the program running in it, its directory,
 git repository or agent status, and never touches a name a person chose.
`, version, arch, size)
}

// md5sums lists the regular files' MD5s as dpkg --verify reads them.
func md5sums(data []file) string {
	var b strings.Builder
	for _, f := range data {
		if f.mode.IsRegular() {
			fmt.Fprintf(&b, "%x  %s\n", md5.Sum(f.data), strings.TrimPrefix(f.name, "./"))
		}
	}
	return b.String()
}

// arArchive writes files as a common ar archive, each with time mtime,
// owner 0 and mode 0644, as dpkg expects a .deb.
func arArchive(files []file) []byte {
	var b bytes.Buffer
	b.WriteString("!<arch>\n")
	for _, f := range files {
		fmt.Fprintf(&b, "%-16s%-12d%-6d%-6d%-8o%-10d`\n", f.name, mtime.Unix(), 0, 0, 0o100644, len(f.data))
		b.Write(f.data)
		if len(f.data)%2 == 1 {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}
