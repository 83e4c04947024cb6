package session

import (
	"path/filepath"
	"strings"
)

// agent is what the Reader knows of one agent's sessions.
type agent struct {
	// root is the agent's folder, where every file it is allowed to read
	// lies; "" when it cannot be known.
	root func(r *Reader) string
	// byID finds the session file of a session herdr knows by id, below
	// root; nil when the agent's files are not found that way.
	byID func(r *Reader, root string, ref Ref) (string, error)
	// byPath: herdr may name the session file itself.
	byPath bool
	// await is the folder to watch for the session file of ref while it
	// does not exist yet; nil when the agent's files are not awaited.
	await func(r *Reader, root string, ref Ref) (dir string, parent bool)
	// read brings what the session file p says up to date; nil reads it
	// as JSON lines from its end (marks and parse).
	read func(r *Reader, a agent, p, root string, ref Ref) (*found, error)
	// marks are strings a line holding a title contains; other lines are
	// not decoded.
	marks [][]byte
	// parse applies one line, known to hold a mark, to f.
	parse func(line []byte, f *found) error
	// decode reads a whole small file, or the first line of a file whose
	// title is its head, into f.
	decode func(b []byte, f *found) error
	// query is how a SQLite store names a session.
	query *sqlQuery
	// pick is the title of ref's session once the file is read, and
	// what that title is, as explain says it.
	pick func(f *found, ref Ref) (title, what string)
}

// found is what a file's lines said, the latest line winning.
type found struct {
	user  string            // the title a person gave
	auto  string            // the title the agent wrote
	names map[string]string // Codex: thread id -> latest thread name
	bad   error             // the last line with a mark that did not decode
	// window says what of the file was read when not all of it was:
	// "its last 4 MiB"; "" for all of it.
	window string
	// userSet, autoSet: a line gave user, auto ("" included: a
	// cleared name).
	userSet, autoSet bool
}

func (f *found) setUser(v string) { f.user, f.userSet = v, true }
func (f *found) setAuto(v string) { f.auto, f.autoSet = v, true }

// settled reports whether lines older than those f was read from can no
// longer change the title: the latest name a person gave is known, and
// when it is none (cleared), the latest title of the agent's too. A
// Codex index names many threads, so its older lines always may.
func (f *found) settled() bool {
	return f.names == nil && f.userSet && (f.user != "" || f.autoSet)
}

// under fills what f, read from newer lines, does not say from older.
func (f *found) under(older *found) {
	if !f.userSet {
		f.user, f.userSet = older.user, older.userSet
	}
	if !f.autoSet {
		f.auto, f.autoSet = older.auto, older.autoSet
	}
	for id, name := range older.names {
		if f.names == nil {
			f.names = map[string]string{}
		}
		if _, ok := f.names[id]; !ok && len(f.names) < maxNames {
			f.names[id] = name
		}
	}
	if f.bad == nil {
		f.bad = older.bad
	}
}

// trim keeps of each value only the title it gives (oneLine), in a
// string of its own: a value read whole or decoded from a long line goes
// with the read.
func (f *found) trim() {
	f.user, f.auto = kept(f.user), kept(f.auto)
	for id, name := range f.names {
		f.names[id] = kept(name)
	}
}

func kept(v string) string {
	t := oneLine(v)
	if len(t) < len(v) {
		return strings.Clone(t)
	}
	return t
}

// maxNames caps the thread names kept from Codex's index.
const maxNames = 4096

func userElseAuto(f *found, _ Ref) (title, what string) {
	if f.user != "" {
		return f.user, "the name a person gave the session"
	}
	return f.auto, "the title the agent gave the session"
}

// oneTitle is the pick of an agent that keeps one title for a person's
// name and its own alike.
func oneTitle(f *found, _ Ref) (title, what string) {
	return f.auto, "the session's title (a person's name or the agent's own: one field holds both)"
}

// agents are the agents whose session titles can be read, by herdr's
// agent label. docs/sessions.md gives the formats' sources.
var agents = map[string]agent{
	"claude": {
		root: func(r *Reader) string { return r.dirFromEnv(".claude", "CLAUDE_CONFIG_DIR") },
		byID: claudeTranscript, byPath: true, await: claudeAwaited,
		marks: [][]byte{[]byte("custom-title"), []byte("ai-title"), []byte(`"summary"`)},
		parse: parseClaude, pick: userElseAuto,
	},
	"codex": {
		root: func(r *Reader) string { return r.dirFromEnv(".codex", "CODEX_HOME") },
		byID: func(_ *Reader, root string, _ Ref) (string, error) {
			return filepath.Join(root, "session_index.jsonl"), nil
		},
		marks: [][]byte{[]byte("thread_name")},
		parse: parseCodexIndex,
		pick:  func(f *found, ref Ref) (string, string) { return f.names[ref.Value], "the thread's name" },
	},
	"pi": {
		root:   func(r *Reader) string { return r.dirFromEnv(filepath.Join(".pi", "agent"), "PI_CODING_AGENT_DIR") },
		byPath: true,
		marks:  [][]byte{[]byte("session_info")},
		parse:  parsePi, pick: userElseAuto,
	},
	"omp": {
		root:   func(r *Reader) string { return r.dirFromEnv(filepath.Join(".omp", "agent")) },
		byPath: true,
		marks:  [][]byte{[]byte("title_change"), []byte(`"type":"title"`)},
		parse:  parseOmp, pick: userElseAuto,
	},
	"qwen": {
		// Qwen Code's runtime folder: QWEN_RUNTIME_DIR, else QWEN_HOME.
		root: func(r *Reader) string { return r.dirFromEnv(".qwen", "QWEN_RUNTIME_DIR", "QWEN_HOME") },
		byID: qwenChat, await: qwenAwaited,
		marks: [][]byte{[]byte("custom_title")},
		parse: parseQwen, pick: userElseAuto,
	},
	"kimi": {
		root: func(r *Reader) string { return r.dirFromEnv(".kimi-code", "KIMI_CODE_HOME") },
		byID: kimiState, read: readWhole, decode: decodeKimi, pick: userElseAuto,
	},
	"copilot": {
		root: func(r *Reader) string { return r.dirFromEnv(".copilot", "COPILOT_HOME") },
		byID: copilotWorkspace, read: readWhole, decode: decodeCopilot, pick: userElseAuto,
	},
	"droid": {
		root: func(r *Reader) string { return r.dirFromEnv(".factory") },
		byID: droidSession, read: readHead, decode: decodeDroid, pick: userElseAuto,
	},
	"grok": {
		root: func(r *Reader) string { return r.dirFromEnv(".grok", "GROK_HOME") },
		byID: grokSummary, read: readWhole, decode: decodeGrok, pick: userElseAuto,
	},
	"cursor": {
		root: func(r *Reader) string { return r.dirFromEnv(".cursor", "CURSOR_CONFIG_DIR") },
		byID: cursorChat, read: readCursor, decode: decodeCursorMeta, query: cursorQuery, pick: oneTitle,
	},
	"opencode": {
		root: func(r *Reader) string { return r.dataDir("opencode") },
		byID: func(r *Reader, root string, ref Ref) (string, error) {
			return opencodeStore(r, root, ref, "OPENCODE_DB", "opencode.db")
		},
		read: readOpencode, decode: decodeOpencode, query: opencodeQuery, pick: oneTitle,
	},
	"kilo": {
		root: func(r *Reader) string { return r.dataDir("kilo") },
		byID: func(r *Reader, root string, ref Ref) (string, error) {
			return opencodeStore(r, root, ref, "KILO_DB", "kilo.db")
		},
		read: readOpencode, decode: decodeOpencode, query: opencodeQuery, pick: oneTitle,
	},
	"hermes": {
		root: func(r *Reader) string { return r.dirFromEnv(".hermes", "HERMES_HOME") },
		byID: func(_ *Reader, root string, ref Ref) (string, error) {
			if !isSafeID(ref.Value) {
				return "", errBadID
			}
			return filepath.Join(root, "state.db"), nil
		},
		read: readSQL, query: hermesQuery, pick: oneTitle,
	},
}
