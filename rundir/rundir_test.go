package rundir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPathWithoutXDGIsUnderTheUsersOwnCache(t *testing.T) {
	home := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", home)
	got, err := Path()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, home+string(filepath.Separator)) {
		t.Fatalf("fallback runtime dir %s is not under the user's home %s", got, home)
	}
	if strings.HasPrefix(got, os.TempDir()+string(filepath.Separator)) && !strings.HasPrefix(home, os.TempDir()) {
		t.Fatalf("fallback runtime dir %s is in the shared temp dir", got)
	}
}

func TestDirChecks(t *testing.T) {
	for _, tc := range []struct {
		name    string
		plant   func(t *testing.T, dir string)
		wantErr string
		mode    os.FileMode
	}{
		{"fresh", func(*testing.T, string) {}, "", 0o700},
		{"loose mode tightened", func(t *testing.T, dir string) {
			mustMkdir(t, dir)
			if err := os.Chmod(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}, "", 0o700},
		{"symlink", func(t *testing.T, dir string) {
			if err := os.Symlink(t.TempDir(), dir); err != nil {
				t.Fatal(err)
			}
		}, "is a symlink", 0},
		{"file", func(t *testing.T, dir string) {
			if err := os.WriteFile(dir, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "not a directory", 0},
		{"other owner", func(t *testing.T, dir string) {
			if os.Geteuid() != 0 {
				t.Skip("needs root to chown")
			}
			mustMkdir(t, dir)
			if err := os.Chown(dir, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}, "owned by uid 65534", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := t.TempDir()
			t.Setenv("XDG_RUNTIME_DIR", rt)
			tc.plant(t, filepath.Join(rt, Name))
			dir, err := Dir()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), filepath.Join(rt, Name)) {
					t.Fatalf("Dir() = %q, %v; want an error naming the dir and %q", dir, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			fi, err := os.Lstat(dir)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != tc.mode {
				t.Fatalf("mode %v, want %v", fi.Mode().Perm(), tc.mode)
			}
		})
	}
}

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
}

func TestServerIDIsTheSocketNotItsSpelling(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "herdr.sock")
	if err := os.WriteFile(sock, nil, 0o600); err != nil { // any file has an inode
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	a, okA := ServerID(sock)
	b, okB := ServerID(filepath.Join(link, "herdr.sock"))
	if !okA || !okB || a != b {
		t.Fatalf("ServerID: %s (%v) vs %s (%v), want the same device+inode id", a, okA, b, okB)
	}
	// Before herdr starts there is no inode: the resolved path stands in.
	gone := filepath.Join(dir, "later.sock")
	c, okC := ServerID(gone)
	d, _ := ServerID(filepath.Join(link, "later.sock"))
	if okC || c != d {
		t.Fatalf("missing socket: %s (%v) vs %s, want one path-based id", c, okC, d)
	}
}

// A hard link (or a bind mount) to herdr's socket is the same server, and
// must find the daemon that serves it: one daemon per herdr server,
// whatever path reaches its socket.
func TestServerIDIsTheSameThroughAHardLink(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "herdr.sock")
	if err := os.WriteFile(sock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(t.TempDir(), "other.sock")
	if err := os.Link(sock, hard); err != nil {
		t.Skipf("hard link across temp folders: %v", err)
	}
	a, okA := ServerID(sock)
	b, okB := ServerID(hard)
	if !okA || !okB || a != b {
		t.Fatalf("ServerID: %s (%v) through the socket, %s (%v) through a hard link; want one id", a, okA, b, okB)
	}
}

func TestNudgeSocketIsTheSameThroughASymlink(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	dir := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	a, errA := NudgeSocket(filepath.Join(dir, "herdr.sock"))
	b, errB := NudgeSocket(filepath.Join(link, "herdr.sock"))
	if errA != nil || errB != nil || a != b {
		t.Fatalf("nudge sockets %s (%v) and %s (%v), want one", a, errA, b, errB)
	}
}

func TestKeyIsShortAndPerServer(t *testing.T) {
	a, b := Key("/run/user/1000/herdr.sock"), Key("/run/user/1000/herdr-work.sock")
	if a == b || len(a) != 16 {
		t.Fatalf("keys %q %q", a, b)
	}
}

// TestVerifyIsCheckWithoutTheRepair: Verify refuses what Check refuses,
// with the same error, and reports a loose mode without changing it.
func TestVerifyIsCheckWithoutTheRepair(t *testing.T) {
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, dir string)
		loose bool
	}{
		{"private", mustMkdir, false},
		{"loose", func(t *testing.T, dir string) {
			mustMkdir(t, dir)
			if err := os.Chmod(dir, 0o755); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"symlink", func(t *testing.T, dir string) {
			if err := os.Symlink(t.TempDir(), dir); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"file", func(t *testing.T, dir string) {
			if err := os.WriteFile(dir, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"missing", func(*testing.T, string) {}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), Name)
			tc.plant(t, dir)
			before, _ := os.Lstat(dir)
			loose, verr := Verify(dir)
			after, _ := os.Lstat(dir)
			if before != nil && before.Mode() != after.Mode() {
				t.Fatalf("Verify changed the mode: %v -> %v", before.Mode(), after.Mode())
			}
			if loose != tc.loose {
				t.Errorf("loose = %v, want %v", loose, tc.loose)
			}
			if cerr := Check(dir); fmt.Sprint(cerr) != fmt.Sprint(verr) {
				t.Errorf("Verify: %v; Check: %v; want the same refusal", verr, cerr)
			}
		})
	}
}

// TestReloadRecord: a record reads back as written, and replaces the one
// before; with none the error says so.
func TestReloadRecord(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	if _, err := Dir(); err != nil {
		t.Fatal(err)
	}
	const sock = "/run/herdr.sock"
	if _, err := ReadReload(sock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("no record: %v, want os.ErrNotExist", err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, want := range []Reload{{PID: 7, At: at, Error: "format: bad"}, {PID: 7, At: at.Add(time.Second)}} {
		if err := WriteReload(sock, want); err != nil {
			t.Fatal(err)
		}
		got, err := ReadReload(sock)
		if err != nil || got.PID != want.PID || !got.At.Equal(want.At) || got.Error != want.Error {
			t.Fatalf("read %+v %v, want %+v", got, err, want)
		}
	}
	path, _ := ReloadPath(sock)
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("record %v %v, want a private file", fi, err)
	}
}
