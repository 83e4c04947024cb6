package session

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/testutil"
)

// Each reader of a session store is fuzzed with Go's native fuzzing
// (.ci/run runs each target for a bounded time), seeded with each agent's
// real format from testdata. Whatever a file holds, a read must:
//
//   - answer (never hang: a loop that does not move on is caught by the
//     fuzzer's own deadline), and never panic;
//   - allocate at most 4 MiB for an input of up to 1 MiB (measured as the
//     Go heap allocated by the one read);
//   - while fuzzing (-fuzz), take at most 100 ms at its best of three
//     reads (testutil.WithinBounds). The seeds run with the normal tests,
//     where no time is asserted; BenchmarkWorstCases measures the worst
//     inputs found.

// title reads ref's title with r, and fails t when the read did not
// answer within readBound: a reader that hangs or loops.
func title(t *testing.T, r *Reader, ref Ref) string {
	t.Helper()
	a := r.lookup(ref)
	if unanswered(a.err) {
		t.Fatalf("%v", a.err)
	}
	return a.title
}

// fuzzTranscripts are the agents whose sessions are JSON lines read from
// their end, with where the fuzzed file goes and the Ref that reads it.
var fuzzTranscripts = []struct {
	agent, rel string
	ref        func(home string) Ref
}{
	{"claude", claudeRel(claudeSession), func(string) Ref {
		return Ref{Agent: "claude", Kind: KindID, Value: claudeSession, Dir: paneDir}
	}},
	{"codex", ".codex/session_index.jsonl", func(string) Ref { return Ref{Agent: "codex", Kind: KindID, Value: codexA} }},
	{"pi", ".pi/agent/sessions/--home-u-src-api--/s.jsonl", func(home string) Ref {
		return piRef(filepath.Join(home, ".pi/agent/sessions/--home-u-src-api--/s.jsonl"))
	}},
	{"omp", ".omp/agent/sessions/s.jsonl", func(home string) Ref {
		return Ref{Agent: "omp", Kind: KindPath, Value: filepath.Join(home, ".omp/agent/sessions/s.jsonl")}
	}},
	{"qwen", stores["qwen"].rel, func(string) Ref { return stores["qwen"].ref() }},
}

// FuzzTranscript: a transcript of each JSON-lines agent, written in two
// parts at split, read by a Reader that read the first part before the
// rest was appended (the daemon's way) and by a fresh one, within bounds.
// Those Readers read window bytes from the end (16 to 8 KiB instead of
// MaxRead) and go back (1 to 8 windows instead of maxBack), so that small
// inputs reach every edge of reading from the end and back; a fresh
// Reader of the default bounds reads the whole within bounds too. A file
// that fits one read, split at a line's end, reads the same both ways.
func FuzzTranscript(f *testing.F) {
	for i, tr := range fuzzTranscripts {
		matches, _ := filepath.Glob(filepath.Join("testdata", tr.agent, "*.jsonl"))
		for _, m := range matches {
			b, err := os.ReadFile(m)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(uint8(i), uint16(len(b)), uint8(0), uint32(len(b)/2), b)
			f.Add(uint8(i), uint16(100), uint8(3), uint32(len(b)), b)
		}
	}
	f.Add(uint8(0), uint16(64), uint8(7), uint32(0), append(bytes.Repeat([]byte("x"), 500), []byte("\n"+customTitle("a"))...))
	f.Add(uint8(0), uint16(0), uint8(0), uint32(0), bytes.Repeat([]byte("\n"), 1000))
	f.Add(uint8(0), uint16(0), uint8(0), uint32(0), bytes.Repeat([]byte(`{"type":"custom-title","customTitle":"x"}`), 1000))
	f.Fuzz(func(t *testing.T, agent uint8, window uint16, back uint8, split uint32, file []byte) {
		if len(file) > testutil.MaxFuzzInput {
			return
		}
		tr := fuzzTranscripts[int(agent)%len(fuzzTranscripts)]
		small := func(r *Reader) *Reader {
			r.window = 16 + int64(window)%(8<<10)
			r.back = r.window * (1 + int64(back)%8)
			return r
		}
		cut := int(split) % (len(file) + 1)
		w := newWorld(t)
		p := w.put(tr.rel, file[:cut])
		ref := tr.ref(w.home)
		daemon := small(w.reader())
		title(t, daemon, ref)
		appendTo(t, p, string(file[cut:]))
		incremental := title(t, daemon, ref)
		fresh := title(t, small(w.reader()), ref)
		if int64(len(file)) <= daemon.window && (cut == 0 || file[cut-1] == '\n') && fresh != incremental {
			t.Errorf("%s: read afresh %q, read on %q", tr.agent, fresh, incremental)
		}
		testutil.WithinBounds(t, "a read", len(file), func() { title(t, w.reader(), ref) })
	})
}

// fuzzFiles are the agents whose sessions are files read whole (or by
// their first line), with where the fuzzed file goes.
var fuzzFiles = []struct{ store, seeds string }{
	{"kimi", "kimi/*.json"},
	{"copilot", "copilot/*.yaml"},
	{"droid", "droid/*.jsonl"},
	{"grok", "grok/*.json"},
	{"cursor", "cursor/meta.json"},
	{"opencode json", "opencode/*.json"},
}

// FuzzSessionFile: a session file of each agent that keeps one session's
// title in a small file (Kimi Code's state.json, Copilot's
// workspace.yaml, Droid's first line, Grok's summary.json, Cursor's
// meta.json, OpenCode's JSON store), read within bounds.
func FuzzSessionFile(f *testing.F) {
	for i, ff := range fuzzFiles {
		matches, _ := filepath.Glob(filepath.Join("testdata", ff.seeds))
		for _, m := range matches {
			b, err := os.ReadFile(m)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(uint8(i), b)
		}
	}
	f.Add(uint8(1), []byte("user_named: true\nname: a\n"+strings.Repeat(" b\n", 2000)))
	f.Add(uint8(1), []byte("name: \"a\n"+strings.Repeat(" \\x41\n", 2000)+"\"\n"))
	f.Add(uint8(1), []byte(strings.Repeat("k: v\n", 2000)))
	f.Fuzz(func(t *testing.T, agent uint8, data []byte) {
		if len(data) > testutil.MaxFuzzInput {
			return
		}
		ff := fuzzFiles[int(agent)%len(fuzzFiles)]
		s := stores[ff.store]
		w := newWorld(t)
		w.put(s.rel, data)
		testutil.WithinBounds(t, "a read", len(data), func() { title(t, w.reader(), s.ref()) })
	})
}

// FuzzYAML: Copilot's workspace.yaml reader alone, many inputs a second.
func FuzzYAML(f *testing.F) {
	matches, _ := filepath.Glob(filepath.Join("testdata", "copilot", "*.yaml"))
	for _, m := range matches {
		b, err := os.ReadFile(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("name: 'it''s'\nuser_named: true\n"))
	f.Add([]byte("name: \"\\u00e9\\U0001F600\\x41\"\n"))
	f.Add([]byte("name: a\n" + strings.Repeat(" b\n", 2000)))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > testutil.MaxFuzzInput {
			return
		}
		testutil.WithinBounds(t, "a read", len(data), func() {
			var fd found
			_ = decodeCopilot(data, &fd)
		})
	})
}

// fuzzDatabases are the agents whose sessions are in SQLite, with the
// session a read asks for.
var fuzzDatabases = []string{"opencode", "hermes", "cursor store"}

// FuzzDatabase: a database file of each SQLite agent, its bytes fuzzed
// (a damaged, half-written or hostile database), read within bounds.
// Seeds are databases made as each agent makes them.
func FuzzDatabase(f *testing.F) {
	for i, name := range fuzzDatabases {
		s := stores[name]
		p := filepath.Join(f.TempDir(), "seed.db")
		db := openWriter(f, p)
		if _, err := db.Exec(string(fixture(f, s.schema)) + ";" + opencodeRenameOf(name) + ";PRAGMA journal_mode=DELETE"); err != nil {
			f.Fatal(err)
		}
		db.Close()
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), b)
	}
	f.Fuzz(func(t *testing.T, agent uint8, data []byte) {
		if len(data) > testutil.MaxFuzzInput {
			return
		}
		s := stores[fuzzDatabases[int(agent)%len(fuzzDatabases)]]
		w := newWorld(t)
		w.put(s.rel, data)
		testutil.WithinBounds(t, "a read", len(data), func() { title(t, w.reader(), s.ref()) })
	})
}
