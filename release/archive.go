package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// mtime is every file's time in every archive: a build at another moment
// must give the same bytes. Any fixed time would do; this one is the
// project's first year.
var mtime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// file is one archive member.
type file struct {
	name string
	mode fs.FileMode // fs.ModeDir for a folder
	data []byte
}

// docs are the files every archive carries beside the binary: LICENSE,
// README.md and, but for Windows's, the manual page.
type docs struct{ license, readme, man []byte }

// manName is the manual page's file name in the archives; the .deb
// installs it gzipped under /usr/share/man/man1 and the formula with
// man1.install.
const manName = "herdrtabrenamer.1"

func readDocs() (docs, error) {
	var d docs
	var err error
	if d.license, err = os.ReadFile("LICENSE"); err != nil {
		return d, fmt.Errorf("read the archives' LICENSE: %w (run go run ./release from the repository root)", err)
	}
	if d.readme, err = os.ReadFile("README.md"); err != nil {
		return d, fmt.Errorf("read the archives' README.md: %w (run go run ./release from the repository root)", err)
	}
	return d, nil
}

// packageTarget makes t's release files from its binary: the archive, and
// for linux the .deb.
func packageTarget(t target, version string, bin []byte, d docs) (map[string][]byte, error) {
	members := []file{
		{t.exe(), 0o755, bin},
		{"LICENSE", 0o644, d.license},
		{"README.md", 0o644, d.readme},
	}
	if t.goos != "windows" {
		members = append(members, file{manName, 0o644, d.man})
	}
	out := map[string][]byte{}
	var err error
	name := t.archiveName(version)
	if t.goos == "windows" {
		out[name], err = zipArchive(members)
	} else {
		out[name], err = tarGz(members, "", "")
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if t.goos == "linux" {
		name = debName(version, t.goarch)
		if out[name], err = deb(version, t.goarch, bin, d); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return out, nil
}

// tarGz writes files, in their order, as a gzipped ustar archive owned by
// owner (uid and gid 0) with every time mtime.
func tarGz(files []file, owner, group string) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := &tar.Header{
			Name: f.name, Mode: int64(f.mode.Perm()), Size: int64(len(f.data)),
			Typeflag: tar.TypeReg, ModTime: mtime, Uname: owner, Gname: group,
			Format: tar.FormatUSTAR,
		}
		if f.mode.IsDir() {
			h.Typeflag, h.Size = tar.TypeDir, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("tar %s: %w", f.name, err)
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, fmt.Errorf("tar %s: %w", f.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return gzipped(buf.Bytes())
}

// gzipped is data compressed as gzip -9n does: best compression, and a
// header that holds no name and no time.
func gzipped(data []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(data); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// zipArchive writes files, in their order, deflated, each with time mtime
// and its Unix mode.
func zipArchive(files []file) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		h := &zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: mtime}
		h.SetMode(f.mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			return nil, fmt.Errorf("zip %s: %w", f.name, err)
		}
		if _, err := w.Write(f.data); err != nil {
			return nil, fmt.Errorf("zip %s: %w", f.name, err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
