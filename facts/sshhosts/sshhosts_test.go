package sshhosts

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

func TestDisplayBasic(t *testing.T) {
	a := New(filepath.Join("testdata", "basic", "config"))
	tests := []struct{ dest, want string }{
		{"nas", "nas"},
		{"admin@nas", "nas"},
		{"NAS", "NAS"}, // an alias is shown as typed
		{"storage", "storage"},
		{"10.0.0.5", "nas"}, // first alias of the first block with that HostName
		{"root@10.0.0.5", "nas"},
		{"10.0.0.5:2222", "nas"},
		{"ssh://root@10.0.0.5:22", "nas"},
		{"ssh://10.0.0.5/", "nas"},
		{"second-nas", "second-nas"},
		{"gw", "gw"},
		{"gateway.example.com", "gw"},
		{"GATEWAY.Example.COM", "gw"}, // host names are case-insensitive
		{"web", "web"},
		{"quoted alias", "quoted alias"},
		{"web-01.internal", "quoted alias"},
		{"box.corp.example.com", "box"}, // %h expanded with the alias
		{"192.168.1.20", "pi"},
		{"192.168.1.99", "192.168.1.99"},             // a second HostName is ignored, as ssh does
		{"shared.example.com", "shared.example.com"}, // wildcard blocks alias nothing
		{"x.lan", "x.lan"},
		{"dev-1", "dev-1"},
		{"10.9.9.9", "10.9.9.9"}, // Match blocks are skipped
		{"fallback.example.com", "fallback.example.com"},
		{"fe80::1", "v6"},
		{"[fe80::1]:22", "v6"},
		{"user@[fe80::1]", "v6"},
		{"crlf.example.com", "crlf"},
		{"unknown.example.org", "unknown.example.org"},
		{"a@b@10.0.0.5", "nas"}, // ssh splits the user off at the last @
		{"host:notaport", "host:notaport"},
		{"  nas  ", "nas"},
		{"", ""},
		{"user@", ""},
	}
	for _, tt := range tests {
		if got := a.Display(tt.dest); got != tt.want {
			t.Errorf("Display(%q) = %q, want %q", tt.dest, got, tt.want)
		}
	}
}

func TestDisplayInclude(t *testing.T) {
	a := New(filepath.Join("testdata", "include", "config"))
	tests := []struct{ dest, want string }{
		{"work.example.com", "work"},
		{"192.168.0.1", "router"},
		{"deep.example.com", "deep"},                   // nested include, relative to the top file's folder
		{"nope.example.com", "nope.example.com"},       // not matched by *.conf
		{"jump.example.com", "jump"},                   // Include inside a Host block applies to it
		{"ignored.example.com", "ignored.example.com"}, // the included HostName came first
		{"inner.example.com", "inner"},
		{"outer.example.com", "outer"}, // the include's Host line does not swallow the rest
		{"top.example.com", "top"},
	}
	for _, tt := range tests {
		if got := a.Display(tt.dest); got != tt.want {
			t.Errorf("Display(%q) = %q, want %q", tt.dest, got, tt.want)
		}
	}
}

func TestHostOf(t *testing.T) {
	tests := []struct{ dest, want string }{
		{"host", "host"},
		{"user@host", "host"},
		{"host:22", "host"},
		{"ssh://host", "host"},
		{"ssh://user@host:2222", "host"},
		{"ssh://user@host:2222/some/path", "host"},
		{"ssh://[2001:db8::1]:22", "2001:db8::1"},
		{"2001:db8::1", "2001:db8::1"},
		{"[2001:db8::1", "[2001:db8::1"},
		{"host:", "host:"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := HostOf(tt.dest); got != tt.want {
			t.Errorf("HostOf(%q) = %q, want %q", tt.dest, got, tt.want)
		}
	}
}

func TestSplitLine(t *testing.T) {
	tests := []struct {
		line    string
		keyword string
		args    []string
		err     string
	}{
		{"", "", nil, ""},
		{"   # just a comment", "", nil, ""},
		{"Host a b", "Host", []string{"a", "b"}, ""},
		{"Host=a", "Host", []string{"a"}, ""},
		{"Host = a", "Host", []string{"a"}, ""},
		{"Host =a b", "Host", []string{"a", "b"}, ""},
		{"\tHostName\t\tx.example.com   ", "HostName", []string{"x.example.com"}, ""},
		{`Host "two words" 'single q' x`, "Host", []string{"two words", "single q", "x"}, ""},
		{`Host a"b c"d`, "Host", []string{"ab cd"}, ""},
		{`Host a\ b`, "Host", []string{"a b"}, ""},
		{"Host a # the rest is a comment", "Host", []string{"a"}, ""},
		{"Host a#b", "Host", []string{"a#b"}, ""},
		{`Host ""`, "Host", []string{""}, ""},
		{"Compression", "Compression", nil, ""},
		{`Host "open`, "", nil, "Host: unterminated \" quote"},
		{`HostName 'x`, "", nil, "HostName: unterminated ' quote"},
	}
	for _, tt := range tests {
		kw, args, err := splitLine(tt.line)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if kw != tt.keyword || !reflect.DeepEqual(args, tt.args) || gotErr != tt.err {
			t.Errorf("splitLine(%q) = %q, %q, %q; want %q, %q, %q", tt.line, kw, args, gotErr, tt.keyword, tt.args, tt.err)
		}
	}
}

type logBuffer = testutil.Buffer

// newEager returns Aliases that stat on every call, so a test sees each
// change at once.
func newEager(path string) *Aliases {
	a := New(path)
	a.interval = 0
	return a
}

func newWithLog(path string) (*Aliases, *logBuffer) {
	a := newEager(path)
	lb := &logBuffer{}
	a.log = slog.New(slog.NewTextHandler(lb, nil))
	return a, lb
}

// put replaces path atomically, as editors and home-manager do.
func put(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func TestReloadOnChange(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config")
	a, logs := newWithLog(path)

	check := func(step, dest, want string) {
		t.Helper()
		if got := a.Display(dest); got != want {
			t.Fatalf("%s: Display(%q) = %q, want %q", step, dest, got, want)
		}
	}
	check("missing file", "10.0.0.5", "10.0.0.5")

	put(t, path, "Host nas\n  HostName 10.0.0.5\n")
	check("file created", "10.0.0.5", "nas")

	put(t, path, "Host storage-box\n  HostName 10.0.0.5\n")
	check("file rewritten", "10.0.0.5", "storage-box")

	// Rewritten in place (same inode), with a different size.
	if err := os.WriteFile(path, []byte("Host nas2\n  HostName 10.0.0.5\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	check("file rewritten in place", "10.0.0.5", "nas2")

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	check("file removed", "10.0.0.5", "10.0.0.5")

	if l := logs.Lines(); len(l) != 0 {
		t.Fatalf("no warning expected for missing or good files, got %q", l)
	}
}

func TestBrokenFileKeepsLastGood(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config")
	put(t, path, "Host nas\n  HostName 10.0.0.5\n")
	a, logs := newWithLog(path)
	if got := a.Display("10.0.0.5"); got != "nas" {
		t.Fatalf("good file: Display = %q, want nas", got)
	}

	broken := []struct{ name, content, inLog string }{
		{"unterminated quote", "Host nas-new\n  HostName \"10.0.0.5\n", "config:2: HostName: unterminated"},
		{"Host without name", "Host\n", "config:1: missing name after Host"},
		{"two HostNames on a line", "Host x\n HostName a b\n", "config:2: want one value after HostName, got 2"},
		{"empty Include", "Include\n", "config:1: missing file after Include"},
	}
	for i, b := range broken {
		put(t, path, b.content)
		for range 3 { // warned once per change, not once per call
			if got := a.Display("10.0.0.5"); got != "nas" {
				t.Fatalf("%s: Display = %q, want the last good alias nas", b.name, got)
			}
		}
		l := logs.Lines()
		if len(l) != i+1 {
			t.Fatalf("%s: %d warnings, want %d: %q", b.name, len(l), i+1, l)
		}
		if !strings.Contains(l[i], b.inLog) || !strings.Contains(l[i], "level=WARN") {
			t.Fatalf("%s: warning %q does not say %q", b.name, l[i], b.inLog)
		}
	}

	put(t, path, "Host fixed\n  HostName 10.0.0.5\n")
	if got := a.Display("10.0.0.5"); got != "fixed" {
		t.Fatalf("after fix: Display = %q, want fixed", got)
	}
}

func TestIncludeLoop(t *testing.T) {
	a, logs := newWithLog(filepath.Join("testdata", "loop", "config"))
	// Nothing good was ever read, so nothing is aliased.
	if got := a.Display("before.example.com"); got != "before.example.com" {
		t.Fatalf("Display = %q, want the host as typed", got)
	}
	l := logs.Lines()
	if len(l) != 1 || !strings.Contains(l[0], "nested deeper than 8") {
		t.Fatalf("warnings = %q, want one about nesting", l)
	}
}

func TestConfigBecomesDirectory(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config")
	put(t, path, "Host nas\n  HostName 10.0.0.5\n")
	a, logs := newWithLog(path)
	a.Display("x")
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if got := a.Display("10.0.0.5"); got != "nas" {
			t.Fatalf("Display = %q, want the last good alias nas", got)
		}
	}
	if l := logs.Lines(); len(l) != 1 || !strings.Contains(l[0], "not a regular file (a folder)") {
		t.Fatalf("warnings = %q, want one saying it is a directory", l)
	}
}

func TestUnreadableFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads files regardless of mode")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "config")
	put(t, path, "Host nas\n  HostName 10.0.0.5\n")
	a, logs := newWithLog(path)
	a.Display("x")
	if err := os.Chmod(path, 0); err != nil {
		t.Fatal(err)
	}
	// chmod moves ctime, not mtime or size: swap in an unreadable copy
	// so the change is one ssh users make (a new file with bad modes).
	put(t, path, "Host other\n  HostName 10.0.0.5\n")
	if err := os.Chmod(path, 0); err != nil {
		t.Fatal(err)
	}
	if got := a.Display("10.0.0.5"); got != "nas" {
		t.Fatalf("Display = %q, want the last good alias nas", got)
	}
	if l := logs.Lines(); len(l) != 1 || !strings.Contains(l[0], "permission denied") {
		t.Fatalf("warnings = %q, want one saying permission denied", l)
	}
}

func TestCheckThrottled(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config")
	put(t, path, "Host old\n HostName 10.0.0.5\n")
	a := New(path)
	clock := time.Unix(1_000_000, 0)
	a.now = func() time.Time { return clock }

	if got := a.Display("10.0.0.5"); got != "old" {
		t.Fatalf("first read: Display = %q, want old", got)
	}
	put(t, path, "Host new\n HostName 10.0.0.5\n")
	clock = clock.Add(CheckInterval - time.Millisecond)
	if got := a.Display("10.0.0.5"); got != "old" {
		t.Fatalf("within the interval: Display = %q, want old (no stat yet)", got)
	}
	clock = clock.Add(time.Millisecond)
	if got := a.Display("10.0.0.5"); got != "new" {
		t.Fatalf("interval over: Display = %q, want new", got)
	}
	// A check that finds nothing changed restarts the interval too.
	clock = clock.Add(CheckInterval)
	a.Display("10.0.0.5")
	put(t, path, "Host newer\n HostName 10.0.0.5\n")
	clock = clock.Add(CheckInterval / 2)
	if got := a.Display("10.0.0.5"); got != "new" {
		t.Fatalf("half an interval after a check: Display = %q, want new", got)
	}
	clock = clock.Add(CheckInterval / 2)
	if got := a.Display("10.0.0.5"); got != "newer" {
		t.Fatalf("a full interval after the check: Display = %q, want newer", got)
	}
}

func TestIncludeChanges(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config")
	put(t, path, "Include conf.d/*\nInclude extra\n")
	a := newEager(path)

	if got := a.Display("a.example.com"); got != "a.example.com" {
		t.Fatalf("no includes yet: Display = %q", got)
	}
	put(t, filepath.Join(dir, "conf.d", "a"), "Host a\n HostName a.example.com\n")
	if got := a.Display("a.example.com"); got != "a" {
		t.Fatalf("glob folder created: Display = %q, want a", got)
	}
	put(t, filepath.Join(dir, "conf.d", "b"), "Host b\n HostName b.example.com\n")
	if got := a.Display("b.example.com"); got != "b" {
		t.Fatalf("file added to glob folder: Display = %q, want b", got)
	}
	put(t, filepath.Join(dir, "conf.d", "a"), "Host a-renamed\n HostName a.example.com\n")
	if got := a.Display("a.example.com"); got != "a-renamed" {
		t.Fatalf("included file rewritten: Display = %q, want a-renamed", got)
	}
	put(t, filepath.Join(dir, "extra"), "Host x\n HostName x.example.com\n")
	if got := a.Display("x.example.com"); got != "x" {
		t.Fatalf("missing include created: Display = %q, want x", got)
	}
}

func TestDefaultPathAndHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	put(t, filepath.Join(home, ".ssh", "config"), "Include rel.conf\nInclude ~/elsewhere/abs.conf\n")
	put(t, filepath.Join(home, ".ssh", "rel.conf"), "Host rel\n HostName rel.example.com\n")
	put(t, filepath.Join(home, "elsewhere", "abs.conf"), "Host abs\n HostName abs.example.com\n")
	a := newEager("")
	if got := a.Display("rel.example.com"); got != "rel" {
		t.Errorf("relative include: Display = %q, want rel (from ~/.ssh/rel.conf)", got)
	}
	if got := a.Display("abs.example.com"); got != "abs" {
		t.Errorf("~ include: Display = %q, want abs", got)
	}
}

func TestConcurrentDisplayWhileRewriting(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config")
	put(t, path, "Host n0\n HostName 10.0.0.5\n")
	a := newEager(path)
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for range 4 {
		wg.Go(func() {
			for range 500 {
				got := a.Display("10.0.0.5")
				if !strings.HasPrefix(got, "n") {
					errs <- fmt.Sprintf("Display = %q, want one of the n* aliases", got)
					return
				}
			}
		})
	}
	for i := 1; i <= 20; i++ {
		put(t, path, fmt.Sprintf("Host n%d\n HostName 10.0.0.5\n", i))
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if got := a.Display("10.0.0.5"); got != "n20" {
		t.Fatalf("after the last rewrite: Display = %q, want n20", got)
	}
}

// BenchmarkDisplayHit is the daemon's case: the file checked recently.
func BenchmarkDisplayHit(b *testing.B) {
	a := New(filepath.Join("testdata", "basic", "config"))
	if got := a.Display("10.0.0.5"); got != "nas" {
		b.Fatalf("Display = %q, want nas", got)
	}
	b.ReportAllocs()
	for b.Loop() {
		a.Display("root@10.0.0.5")
	}
}

// BenchmarkDisplayStat verifies the files on every call: the cost paid
// once per CheckInterval.
func BenchmarkDisplayStat(b *testing.B) {
	for _, cfg := range []string{"basic", "include"} {
		b.Run(cfg, func(b *testing.B) {
			a := newEager(filepath.Join("testdata", cfg, "config"))
			a.Display("x")
			b.ReportAllocs()
			for b.Loop() {
				a.Display("root@10.0.0.5")
			}
		})
	}
}

// TestBoundsOfOneRead: a configuration past a bound of one read is
// unusable, with a warning saying which, and costs no more than the
// bound: includes fanning out (each of 8 files naming the next ten times:
// without the bound, 10^7 reads), a Host line of thousands of names,
// thousands of Host lines.
func TestBoundsOfOneRead(t *testing.T) {
	for _, tc := range []struct{ name, config, want string }{
		{"includes fanning out", "Include" + strings.Repeat(" f1", 10) + "\n", "more than 64 files included"},
		{"a Host line of many names", "Host" + strings.Repeat(" a", 2000) + "\n", "more than 1024 values"},
		{"many Host lines", strings.Repeat("Host a\n", 5000), "more than 4096 host names"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "config")
			put(t, path, tc.config)
			for i := 1; i < 8; i++ {
				put(t, filepath.Join(dir, fmt.Sprintf("f%d", i)), "Include"+strings.Repeat(fmt.Sprintf(" f%d", i+1), 10)+"\n")
			}
			a, logs := newWithLog(path)
			a.Display("a")
			if l := logs.Lines(); len(l) != 1 || !strings.Contains(l[0], tc.want) {
				t.Fatalf("warnings = %q, want one saying %q", l, tc.want)
			}
		})
	}
}

// TestALongHostNameCostsNothing: a HostName longer than any host name is
// no host's, and is not expanded for each alias of its block (a thousand
// aliases and a HostName of 100 KiB cost 100 MB so).
func TestALongHostNameCostsNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config")
	long := "%h." + strings.Repeat("x", 100<<10)
	put(t, path, "Host"+strings.Repeat(" a", 1000)+" box\n  HostName "+long+"\nHost short\n  HostName %h.example.com\n")
	a, _ := newWithLog(path)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := a.Display("short.example.com")
	runtime.ReadMemStats(&after)
	if got != "short" {
		t.Errorf("Display = %q, want short", got)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("reading a config of %d bytes allocated %d bytes", len(long), n)
	}
}
