package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"testing"
)

// member is what an archive holds for one file, as read back.
type member struct {
	name  string
	mode  fs.FileMode
	data  string
	mtime int64
	owner string // uid:gid:uname:gname, tar only
}

// TestPackageTarget: each platform's files are written twice to the same
// bytes, and hold the binary, LICENSE, README.md and (but Windows's) the
// manual page with fixed times, owners and order.
func TestPackageTarget(t *testing.T) {
	d := docs{license: []byte("MIT\n"), readme: []byte("# readme\n"), man: []byte(".TH HERDRTABRENAMER 1\n")}
	tests := []struct {
		target target
		files  []string // file names written
		exe    string
	}{
		{target{"linux", "amd64"}, []string{"herdrtabrenamer_1.2.3_linux_amd64.tar.gz", "herdrtabrenamer_1.2.3_amd64.deb"}, "herdrtabrenamer"},
		{target{"linux", "arm64"}, []string{"herdrtabrenamer_1.2.3_linux_arm64.tar.gz", "herdrtabrenamer_1.2.3_arm64.deb"}, "herdrtabrenamer"},
		{target{"darwin", "arm64"}, []string{"herdrtabrenamer_1.2.3_darwin_arm64.tar.gz"}, "herdrtabrenamer"},
		{target{"darwin", "amd64"}, []string{"herdrtabrenamer_1.2.3_darwin_amd64.tar.gz"}, "herdrtabrenamer"},
		{target{"windows", "amd64"}, []string{"herdrtabrenamer_1.2.3_windows_amd64.zip"}, "herdrtabrenamer.exe"},
	}
	for _, tt := range tests {
		t.Run(tt.target.String(), func(t *testing.T) {
			bin := []byte("binary for " + tt.target.String())
			first, err := packageTarget(tt.target, "1.2.3", bin, d)
			if err != nil {
				t.Fatal(err)
			}
			second, err := packageTarget(tt.target, "1.2.3", bin, d)
			if err != nil {
				t.Fatal(err)
			}
			if len(first) != len(tt.files) {
				t.Fatalf("wrote %d files, want %q", len(first), tt.files)
			}
			for _, name := range tt.files {
				if !bytes.Equal(first[name], second[name]) {
					t.Errorf("%s differs between two runs", name)
				}
			}
			want := []member{
				{tt.exe, 0o755, string(bin), mtime.Unix(), "0:0::"},
				{"LICENSE", 0o644, "MIT\n", mtime.Unix(), "0:0::"},
				{"README.md", 0o644, "# readme\n", mtime.Unix(), "0:0::"},
			}
			if tt.target.goos != "windows" {
				want = append(want, member{manName, 0o644, ".TH HERDRTABRENAMER 1\n", mtime.Unix(), "0:0::"})
			}
			checkMembers(t, tt.files[0], readArchive(t, tt.files[0], first[tt.files[0]]), want)
		})
	}
}

func readArchive(t *testing.T, name string, b []byte) []member {
	t.Helper()
	if tt := (target{"windows", "amd64"}); name == tt.archiveName("1.2.3") {
		return readZip(t, b)
	}
	return readTarGz(t, b)
}

func readTarGz(t *testing.T, b []byte) []member {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if zr.Name != "" || !zr.ModTime.IsZero() {
		t.Errorf("gzip header holds name %q, time %v: want neither", zr.Name, zr.ModTime)
	}
	var out []member
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		owner := fmtOwner(h)
		out = append(out, member{h.Name, h.FileInfo().Mode() & (fs.ModeDir | fs.ModePerm), string(data), h.ModTime.Unix(), owner})
	}
}

func fmtOwner(h *tar.Header) string {
	return fmt.Sprintf("%d:%d:%s:%s", h.Uid, h.Gid, h.Uname, h.Gname)
}

func readZip(t *testing.T, b []byte) []member {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var out []member
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, member{f.Name, f.Mode(), string(data), f.Modified.Unix(), "0:0::"})
	}
	return out
}

func checkMembers(t *testing.T, name string, got, want []member) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s holds %+v, want %+v", name, got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s member %d: %+v, want %+v", name, i, got[i], want[i])
		}
	}
}
