package sshhosts

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// FuzzConfig: an ssh_config holding whatever an input holds, read for a
// Display. A read answers, allocates at most 4 MiB for up to 1 MiB and,
// while fuzzing, takes at most 100 ms (the best of three: testutil.WithinBounds). Includes that
// could reach outside the test's folder (an absolute path, ~, ..) are not
// fuzzed: they would read the machine's files. Seeds are testdata's
// configs; they run with the normal tests.
func FuzzConfig(f *testing.F) {
	for _, name := range []string{"basic/config", "include/config", "include/hostline.inc", "loop/config"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(bytes.Repeat([]byte("\n"), 1<<16))
	f.Add(append([]byte("Host"), bytes.Repeat([]byte(" a"), 1<<15)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			return
		}
		lower := bytes.ToLower(data)
		if bytes.Contains(lower, []byte("include")) && (bytes.ContainsAny(data, "/~\\") || bytes.Contains(data, []byte(".."))) {
			return
		}
		dir := t.TempDir()
		path := filepath.Join(dir, "config")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		read := func() {
			a := New(path)
			a.home, a.log = dir, slog.New(slog.DiscardHandler)
			a.Display("host.example.com")
		}
		testutil.WithinBounds(t, "reading a config", len(data), read)
	})
}

// BenchmarkWorstConfig reads configurations of 1 MiB that cost the
// reader most: the most host names it reads, each with a HostName, padded
// out with comments; many short lines; one long line.
func BenchmarkWorstConfig(b *testing.B) {
	var hosts bytes.Buffer
	for i := 0; i < maxHosts; i++ {
		fmt.Fprintf(&hosts, "Host h%d\n  HostName %%h.example.com\n", i)
	}
	hosts.Write(bytes.Repeat([]byte("# a comment line of some length\n"), (1<<20-hosts.Len())/32))
	for _, wc := range []struct {
		name string
		data []byte
	}{
		{"4096 hosts and comments", hosts.Bytes()},
		{"line breaks only", bytes.Repeat([]byte("\n"), 1<<20)},
		{"one long line", append([]byte("HostName "), bytes.Repeat([]byte("x"), 1<<20-9)...)},
	} {
		b.Run(wc.name, func(b *testing.B) {
			dir := b.TempDir()
			path := filepath.Join(dir, "config")
			if err := os.WriteFile(path, wc.data, 0o600); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(wc.data)))
			for b.Loop() {
				a := New(path)
				a.home, a.log = dir, slog.New(slog.DiscardHandler)
				a.Display("h1.example.com")
			}
		})
	}
}
