package session

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// worstCases are inputs of 1 MiB (testutil.MaxFuzzInput) that cost each reader
// most: every line decoded, a value as long as the file, a folded value of
// many short lines.
func worstCases() []struct {
	name, store string
	file        []byte
} {
	lines := func(line string) []byte {
		return bytes.Repeat([]byte(line), testutil.MaxFuzzInput/len(line))
	}
	long := strings.Repeat("x", testutil.MaxFuzzInput-64)
	return []struct {
		name, store string
		file        []byte
	}{
		{"claude: every line an ai-title", "claude", lines(aiTitle("Fix the login redirect loop"))},
		{"claude: one line, no break", "claude", []byte(`{"type":"custom-title","customTitle":"` + long + `"}`)},
		{"claude: line breaks only", "claude", bytes.Repeat([]byte("\n"), testutil.MaxFuzzInput)},
		{"codex: every line a new thread's name", "codex", codexNames()},
		{"qwen: every line a title", "qwen", lines(`{"type":"system","subtype":"custom_title","systemPayload":{"customTitle":"auth redirect","titleSource":"auto"}}` + "\n")},
		{"copilot: a name folded over short lines", "copilot", append([]byte("name: a\n"), bytes.Repeat([]byte(" b\n"), (testutil.MaxFuzzInput-8)/3)...)},
		{"copilot: a quoted name of escapes", "copilot", []byte(`name: "` + strings.Repeat(`\x41`, (testutil.MaxFuzzInput-16)/4) + "\"\n")},
		{"copilot: many keys", "copilot", lines("key: value\n")},
		{"kimi: a title as long as the file", "kimi", []byte(`{"title":"` + long + `","titleKind":"custom"}`)},
		{"grok: a title as long as the file", "grok", []byte(`{"generated_title":"` + long + `"}`)},
		{"droid: a first line at the bound", "droid", []byte(`{"type":"session_start","title":"` + strings.Repeat("x", MaxRead-64) + `"}` + "\n")},
		{"cursor: meta.json, a title as long as the file", "cursor", []byte(`{"title":"` + long + `"}`)},
		{"opencode: its JSON store, a title as long as the file", "opencode json", []byte(`{"title":"` + long + `"}`)},
	}
}

// codexNames is a Codex index of 1 MiB, each line another thread's name.
func codexNames() []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < testutil.MaxFuzzInput-128; i++ {
		fmt.Fprintf(&b, `{"id":"019a3f2e-7c1d-7b20-9e4f-%012d","thread_name":"thread %d"}`+"\n", i, i)
	}
	return b.Bytes()
}

// storeOf is where the store named lies and the Ref that reads it:
// stores' and, for the agents known by path or by one index, their own.
func storeOf(home, name string) (rel string, ref Ref) {
	for _, tr := range fuzzTranscripts {
		if tr.agent == name {
			return tr.rel, tr.ref(home)
		}
	}
	s := stores[name]
	return s.rel, s.ref()
}

// BenchmarkWorstCases reads each worst input of 1 MiB afresh (a new
// Reader each time, as the daemon's first pass or explain does): the time
// and the memory (B/op) a read of the worst file takes, and
// FuzzTranscript's and FuzzSessionFile's bounds (100 ms, 4 MiB) checked
// against them. A database holding a title of 1 MiB is read too.
func BenchmarkWorstCases(b *testing.B) {
	for _, wc := range worstCases() {
		b.Run(wc.name, func(b *testing.B) {
			w := newWorld(b)
			rel, ref := storeOf(w.home, wc.store)
			w.put(rel, wc.file)
			b.ReportAllocs()
			b.SetBytes(int64(len(wc.file)))
			for b.Loop() {
				w.reader().Title(ref)
			}
		})
	}
	for _, name := range fuzzDatabases {
		b.Run(name+": a title of 1 MiB", func(b *testing.B) {
			w := newWorld(b)
			s := stores[name]
			p := filepath.Join(w.home, s.rel)
			db := openWriter(b, p)
			if _, err := db.Exec(string(fixture(b, s.schema))); err != nil {
				b.Fatal(err)
			}
			big := "auth redirect " + strings.Repeat("x", testutil.MaxFuzzInput)
			q := map[string]string{
				"opencode":     "UPDATE session SET title = ? WHERE id = ?",
				"hermes":       "UPDATE sessions SET title = ? WHERE id = ?",
				"cursor store": "UPDATE meta SET value = ? WHERE key = '0' AND ? != ''",
			}[name]
			if _, err := db.Exec(q, big, s.id); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				w.reader().Title(s.ref())
			}
		})
	}
}

// BenchmarkDatabaseRead reads one session's title from an OpenCode
// database whose agent runs (its writer open, WAL and all): through a
// connection opened for the read, and through one kept open (sqlread's
// Pool), as while the agent works.
func BenchmarkDatabaseRead(b *testing.B) {
	w := newWorld(b)
	s := stores["opencode"]
	s.place(w, opencodeRename)
	b.Run("opened for the read", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			r := w.reader()
			if r.Title(s.ref()) != "auth redirect" {
				b.Fatal("no title")
			}
			r.Close()
		}
	})
	b.Run("kept open", func(b *testing.B) {
		r := w.reader()
		defer r.Close()
		b.ReportAllocs()
		for b.Loop() {
			clear(r.dbs) // read it, not what was read of it
			if r.Title(s.ref()) != "auth redirect" {
				b.Fatal("no title")
			}
		}
	})
}
