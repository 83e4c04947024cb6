package integration

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/pluginmanifest"
)

// downloadBound is HERDRTABRENAMER_DOWNLOAD_TIMEOUT under test, in seconds.
const downloadBound = 2

// downloadMax is HERDRTABRENAMER_DOWNLOAD_MAX under test: twice the
// archive.
func downloadMax(rel *fakeRelease) int { return 2 * len(rel.good) }

// installCase is one run of the plugin's [[build]] step with no Go on PATH.
type installCase struct {
	name string
	// tools are the programs on PATH besides baseTools; a name=SCRIPT entry
	// puts a stand-in shell script there instead of the real program.
	tools []string
	// serve answers the archive's URL; nil serves the good archive.
	serve func(rel *fakeRelease, w http.ResponseWriter, r *http.Request)
	// sums is release/SHA256SUMS in the checkout; nil lists the release's.
	sums func(rel *fakeRelease) string
	// ok: the build installs the release binary. Else it fails in one line
	// naming where (the archive, unless where says otherwise).
	ok       bool
	where    string
	requests int // archive requests the build may make
}

// baseTools are what the build script needs on every platform besides a
// downloader and a hasher: POSIX utilities, tar and gzip.
var baseTools = []string{"sh", "sed", "awk", "tr", "grep", "uname", "mktemp", "rm", "mkdir", "cp", "chmod", "mv", "cat", "head", "wc", "sleep", "tar", "gzip"}

func installCases() []installCase {
	serveBytes := func(f func(rel *fakeRelease) []byte) func(*fakeRelease, http.ResponseWriter, *http.Request) {
		return func(rel *fakeRelease, w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(f(rel)) }
	}
	curl := []string{"curl", "sha256sum"}
	return []installCase{
		{name: "good archive, curl", tools: curl, ok: true, requests: 1},
		{name: "good archive, wget", tools: []string{"wget", "sha256sum"}, ok: true, requests: 1},
		{name: "good archive, shasum as on macOS", tools: []string{"curl", "shasum"}, ok: true, requests: 1},
		{name: "go older than go.mod's", tools: []string{"curl", "sha256sum", "go=echo go version go1.21.0 linux/amd64"}, ok: true, requests: 1},
		{name: "tampered archive", tools: curl, requests: 1, serve: serveBytes(func(rel *fakeRelease) []byte { return rel.tampered })},
		{name: "damaged archive", tools: curl, requests: 1, serve: serveBytes(func(rel *fakeRelease) []byte {
			b := bytes.Clone(rel.good)
			b[len(b)/2] ^= 1
			return b
		})},
		{name: "missing archive (404)", tools: curl, requests: 1, serve: func(_ *fakeRelease, w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }},
		{name: "missing archive (404), wget", tools: []string{"wget", "sha256sum"}, requests: 1, serve: func(_ *fakeRelease, w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }},
		{name: "truncated archive", tools: curl, requests: 1, serve: serveBytes(func(rel *fakeRelease) []byte { return rel.good[:len(rel.good)/2] })},
		{name: "connection cut mid-archive", tools: curl, requests: 1, serve: cutConnection},
		{name: "another platform's archive", tools: curl, requests: 1, serve: serveBytes(func(rel *fakeRelease) []byte { return rel.other })},
		{name: "server never answers, curl", tools: curl, requests: 1, serve: hang},
		{name: "server never answers, wget", tools: []string{"wget", "sha256sum"}, requests: 1, serve: hang},
		// A byte a second keeps any per-read time limit from firing: the
		// limit must hold for the whole download.
		{name: "server drips the archive, curl", tools: curl, requests: 1, serve: drip},
		{name: "server drips the archive, wget", tools: []string{"wget", "sha256sum"}, requests: 1, serve: drip},
		// Far more than any archive: the download stops at
		// HERDRTABRENAMER_DOWNLOAD_MAX bytes, not at the time limit.
		{name: "endless archive, curl", tools: curl, requests: 1, serve: endless},
		{name: "endless archive, wget", tools: []string{"wget", "sha256sum"}, requests: 1, serve: endless},
		{name: "no curl or wget", tools: []string{"sha256sum"}},
		{name: "no sha256sum or shasum", tools: []string{"curl"}},
		{name: "checksums lack this archive", tools: curl, sums: func(rel *fakeRelease) string { return rel.otherLine }},
		{name: "checksums of another version", tools: curl, sums: func(rel *fakeRelease) string {
			return strings.ReplaceAll(rel.sums, "_"+rel.version+"_", "_9.9.9_")
		}},
		{name: "checksum malformed", tools: curl, sums: func(rel *fakeRelease) string { return strings.Replace(rel.sums, rel.goodSum, rel.goodSum[:60], 1) }},
		{name: "archive listed twice", tools: curl, sums: func(rel *fakeRelease) string {
			return rel.sums + strings.Replace(rel.otherLine, rel.otherName, rel.name, 1)
		}},
		{name: "platform without a release", tools: []string{"curl", "sha256sum", `uname=[ "$1" = -s ] && echo Plan9 || echo amd64`}, where: "Plan9"},
	}
}

// TestPluginBuildWithoutGo runs the manifest's [[build]] command as herdr
// does (argv, no shell, in a fresh clone) with no Go on PATH against a
// local server holding release files: it installs the release binary when
// the archive's SHA-256 is the one the clone's release/SHA256SUMS lists,
// and otherwise installs nothing and says why in one line.
func TestPluginBuildWithoutGo(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not on PATH: cannot clone the repository as herdr does")
	}
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skipf("no release archive for %s", runtime.GOOS)
	}
	root := pluginCheckout(t)
	argv := buildCommand(t, root)
	rel := newFakeRelease(t, root)
	var current atomic.Pointer[installCase]
	var requests atomic.Int32
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := current.Load()
		if r.URL.Path != "/v"+rel.version+"/"+rel.name || c == nil {
			http.NotFound(w, r)
			return
		}
		requests.Add(1)
		if c.serve == nil {
			_, _ = w.Write(rel.good)
			return
		}
		c.serve(rel, &stoppable{w, stop}, r)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(stop) })
	for _, c := range installCases() {
		t.Run(c.name, func(t *testing.T) {
			current.Store(&c)
			requests.Store(0)
			res := runInstall(t, root, argv, rel, c, srv.URL+"/v"+rel.version)
			if got := int(requests.Load()); got != c.requests {
				t.Errorf("%d requests for the archive, want %d", got, c.requests)
			}
			checkInstall(t, root, rel, c, res)
			// What a pipe and the sockets hold beyond the bound is at
			// most a few MiB; a download without one takes gigabytes in
			// the time limit here.
			if strings.HasPrefix(c.name, "endless") {
				if n := endlessServed.Load(); n > int64(downloadMax(rel))+32<<20 {
					t.Errorf("the server sent %d bytes before the build stopped reading; the bound is %d", n, downloadMax(rel))
				}
			}
		})
	}
}

// buildCommand is the manifest's one [[build]] command.
func buildCommand(t *testing.T, root string) []string {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(root, "herdr-plugin.toml"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := pluginmanifest.Parse(string(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Build) != 1 {
		t.Fatalf("%d build commands, want 1", len(m.Build))
	}
	return m.Build[0].Command
}

// fakeRelease is what the local release server holds: the release
// archive for this platform, built from the clone by the release command,
// and another platform's, which release/SHA256SUMS also lists.
type fakeRelease struct {
	version, name, goodSum string
	good                   []byte
	tampered               []byte // a valid archive whose binary is not the release's
	otherName, otherLine   string
	other                  []byte
	sums                   string // both lines, sorted
}

func newFakeRelease(t *testing.T, root string) *fakeRelease {
	t.Helper()
	out := filepath.Join(t.TempDir(), "dist")
	cmd := exec.Command("go", "run", "./release", "-out", out, "-targets", runtime.GOOS+"/"+runtime.GOARCH)
	cmd.Dir = root
	cmd.Env = offlineGoEnv(t)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./release in %s: %v\n%s", root, err, b)
	}
	sums, err := os.ReadFile(filepath.Join(out, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	rel := &fakeRelease{}
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		sum, name, _ := strings.Cut(line, "  ")
		if strings.HasSuffix(name, "_"+runtime.GOOS+"_"+runtime.GOARCH+".tar.gz") {
			rel.goodSum, rel.name = sum, name
			rel.version = strings.Split(name, "_")[1]
		}
	}
	if rel.good, err = os.ReadFile(filepath.Join(out, rel.name)); err != nil {
		t.Fatalf("the release command wrote no archive for %s/%s (SHA256SUMS:\n%s): %v", runtime.GOOS, runtime.GOARCH, sums, err)
	}
	rel.tampered = fakeArchive(t, "herdrtabrenamer", append(readMember(t, rel.good, "herdrtabrenamer"), "tampered"...))
	rel.otherName = "herdrtabrenamer_" + rel.version + "_" + otherPlatform() + ".tar.gz"
	rel.other = fakeArchive(t, "herdrtabrenamer", []byte("#!/bin/sh\necho herdrtabrenamer v0.0.0 '(other platform)'\n"))
	otherSum := sha256.Sum256(rel.other)
	rel.otherLine = hex.EncodeToString(otherSum[:]) + "  " + rel.otherName + "\n"
	lines := []string{rel.goodSum + "  " + rel.name + "\n", rel.otherLine}
	if rel.otherName < rel.name {
		lines[0], lines[1] = lines[1], lines[0]
	}
	rel.sums = strings.Join(lines, "")
	return rel
}

// otherPlatform is a release platform that is not this one.
func otherPlatform() string {
	if runtime.GOOS == "linux" {
		return "darwin_" + runtime.GOARCH
	}
	return "linux_" + runtime.GOARCH
}

// fakeArchive is a valid tar.gz holding one executable file, data: a
// release-shaped archive that is not the release's.
func fakeArchive(t *testing.T, name string, data []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(data))}); err != nil {
		t.Fatal(err)
	}
	_, _ = tw.Write(data)
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readMember is one file of a tar.gz.
func readMember(t *testing.T, archive []byte, name string) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("%s in the release archive: %v", name, err)
		}
		if h.Name == name {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
}

// offlineGoEnv runs go with the test's caches and no network.
func offlineGoEnv(t *testing.T) []string {
	t.Helper()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GOPROXY=off", "GOFLAGS=-mod=readonly"}
	for _, key := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		b, err := exec.Command("go", "env", key).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", key, err)
		}
		env = append(env, key+"="+strings.TrimSpace(string(b)))
	}
	return env
}

// installResult is how one build run ended.
type installResult struct {
	err            error
	stdout, stderr string
	took           time.Duration
	tmp            string // its TMPDIR
}

// runInstall runs argv in root with PATH holding baseTools and c.tools
// only, so no go, and release/SHA256SUMS as the case has it.
func runInstall(t *testing.T, root string, argv []string, rel *fakeRelease, c installCase, base string) installResult {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(root, "bin")); err != nil {
		t.Fatal(err)
	}
	sums := rel.sums
	if c.sums != nil {
		sums = c.sums(rel)
	}
	if err := os.WriteFile(filepath.Join(root, "release", "SHA256SUMS"), []byte(sums), 0o644); err != nil {
		t.Fatal(err)
	}
	tools := toolDir(t, append(slices.Clone(baseTools), c.tools...))
	res := installResult{tmp: t.TempDir()}
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(tools, argv[0]), argv[1:]...)
	cmd.Dir = root
	cmd.Env = []string{"PATH=" + tools, "HOME=" + t.TempDir(), "TMPDIR=" + res.tmp, "LANG=C",
		"HERDRTABRENAMER_RELEASE_BASE=" + base, fmt.Sprintf("HERDRTABRENAMER_DOWNLOAD_TIMEOUT=%d", downloadBound),
		fmt.Sprintf("HERDRTABRENAMER_DOWNLOAD_MAX=%d", downloadMax(rel))}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	res.err = cmd.Run()
	res.took = time.Since(start)
	res.stdout, res.stderr = stdout.String(), stderr.String()
	t.Logf("%q: %v in %v\nstdout:\n%s\nstderr:\n%s", argv, res.err, res.took.Round(time.Millisecond), res.stdout, res.stderr)
	return res
}

// toolDir is a folder of links to the named programs, found on the test's
// PATH, and of stand-in scripts for name=SCRIPT entries, which replace an
// earlier entry of that name.
func toolDir(t *testing.T, names []string) string {
	t.Helper()
	scripts := map[string]string{}
	for _, name := range names {
		if name, script, ok := strings.Cut(name, "="); ok {
			scripts[name] = script
		}
	}
	dir := t.TempDir()
	for _, name := range names {
		if strings.Contains(name, "=") {
			continue
		}
		if _, ok := scripts[name]; ok {
			continue
		}
		path, err := exec.LookPath(name)
		if err != nil {
			t.Skipf("%s is not installed, and the build script's test needs it: %v", name, err)
		}
		if err := os.Symlink(path, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	for name, script := range scripts {
		// O_EXCL: never write through a link to a real program.
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString("#!/bin/sh\n" + script + "\n"); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// checkInstall: a good run left a release binary that says so; a failed
// one left no binary and one line naming where it failed. Either way the
// script's temporary folder is gone and the wait stayed bounded.
func checkInstall(t *testing.T, root string, rel *fakeRelease, c installCase, res installResult) {
	t.Helper()
	if left, _ := os.ReadDir(res.tmp); len(left) > 0 {
		t.Errorf("the build left %d files in TMPDIR", len(left))
	}
	if limit := time.Duration(downloadBound+5) * time.Second; res.took > limit {
		t.Errorf("the build took %v; HERDRTABRENAMER_DOWNLOAD_TIMEOUT=%d should end it within %v", res.took, downloadBound, limit)
	}
	bin := filepath.Join(root, "bin", "herdrtabrenamer")
	if !c.ok {
		if res.err == nil {
			t.Fatal("the build succeeded, want a refusal")
		}
		if _, err := os.Stat(bin); err == nil {
			t.Errorf("a failed build left %s", bin)
		}
		lines := strings.Split(strings.TrimSuffix(res.stderr, "\n"), "\n")
		where := c.where
		if where == "" {
			where = rel.name
		}
		if len(lines) != 1 || !strings.Contains(lines[0], where) {
			t.Errorf("stderr %q: want one line naming %s", res.stderr, where)
		}
		return
	}
	if res.err != nil {
		t.Fatalf("the build failed: %v", res.err)
	}
	out, err := exec.Command(bin, "version").Output()
	if want := "herdrtabrenamer v" + rel.version + " (release)\n"; err != nil || string(out) != want {
		t.Errorf("%s version: %q, %v; want %q", bin, out, err, want)
	}
}

// stoppable lets a handler that never answers end when the test does.
type stoppable struct {
	http.ResponseWriter
	stop <-chan struct{}
}

// hang accepts the request and sends nothing until the client gives up.
func hang(_ *fakeRelease, w http.ResponseWriter, r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-w.(*stoppable).stop:
	}
}

// drip sends the archive a byte a second.
func drip(rel *fakeRelease, w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Length", fmt.Sprint(len(rel.good)))
	f, _ := w.(*stoppable).ResponseWriter.(http.Flusher)
	for _, b := range rel.good {
		if _, err := w.Write([]byte{b}); err != nil {
			return
		}
		if f != nil {
			f.Flush()
		}
		select {
		case <-time.After(time.Second):
		case <-r.Context().Done():
			return
		case <-w.(*stoppable).stop:
			return
		}
	}
}

// endlessServed is how many bytes endless sent last.
var endlessServed atomic.Int64

// endless sends zeros, without a length, until the client stops reading.
func endless(_ *fakeRelease, w http.ResponseWriter, _ *http.Request) {
	endlessServed.Store(0)
	chunk := make([]byte, 64<<10)
	for {
		n, err := w.Write(chunk)
		endlessServed.Add(int64(n))
		if err != nil {
			return
		}
	}
}

// cutConnection promises the whole archive and closes the connection
// after half of it.
func cutConnection(rel *fakeRelease, w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Length", fmt.Sprint(len(rel.good)))
	_, _ = w.Write(rel.good[:len(rel.good)/2])
	if f, ok := w.(*stoppable).ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
	panic(http.ErrAbortHandler)
}
