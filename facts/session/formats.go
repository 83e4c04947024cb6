package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
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
	// marks are strings a line holding a title contains; other lines are
	// not decoded.
	marks [][]byte
	// parse applies one line, known to hold a mark, to f.
	parse func(line []byte, f *found) error
	// pick is the title of ref's session once the file is read.
	pick func(f *found, ref Ref) string
}

// found is what a file's lines said, the latest line winning.
type found struct {
	user  string            // the title a person gave
	auto  string            // the title the agent wrote
	names map[string]string // Codex: thread id -> latest thread name
	bad   error             // the last line with a mark that did not decode
}

// maxNames caps the thread names kept from Codex's index.
const maxNames = 4096

func userElseAuto(f *found, _ Ref) string {
	if f.user != "" {
		return f.user
	}
	return f.auto
}

// agents are the agents whose session titles can be read, by herdr's
// agent label. docs/sessions.md gives the formats' sources.
var agents = map[string]agent{
	"claude": {
		root: func(r *Reader) string { return r.dirFromEnv("CLAUDE_CONFIG_DIR", ".claude") },
		byID: claudeTranscript, byPath: true, await: claudeAwaited,
		marks: [][]byte{[]byte("custom-title"), []byte("ai-title"), []byte(`"summary"`)},
		parse: parseClaude, pick: userElseAuto,
	},
	"codex": {
		root: func(r *Reader) string { return r.dirFromEnv("CODEX_HOME", ".codex") },
		byID: func(_ *Reader, root string, _ Ref) (string, error) {
			return filepath.Join(root, "session_index.jsonl"), nil
		},
		marks: [][]byte{[]byte("thread_name")},
		parse: parseCodexIndex,
		pick:  func(f *found, ref Ref) string { return f.names[ref.Value] },
	},
	"pi": {
		root:   func(r *Reader) string { return r.dirFromEnv("PI_CODING_AGENT_DIR", filepath.Join(".pi", "agent")) },
		byPath: true,
		marks:  [][]byte{[]byte("session_info")},
		parse:  parsePi, pick: userElseAuto,
	},
	"omp": {
		root:   func(r *Reader) string { return r.dirFromEnv("", filepath.Join(".omp", "agent")) },
		byPath: true,
		marks:  [][]byte{[]byte("title_change"), []byte(`"type":"title"`)},
		parse:  parseOmp, pick: userElseAuto,
	},
}

// Claude Code: {"type":"custom-title","customTitle":"..."} from /rename,
// {"type":"ai-title","aiTitle":"..."} and {"type":"summary","summary":"..."}
// written by the agent.
func parseClaude(line []byte, f *found) error {
	var e struct {
		Type        string  `json:"type"`
		CustomTitle *string `json:"customTitle"`
		AITitle     *string `json:"aiTitle"`
		Summary     *string `json:"summary"`
	}
	if err := json.Unmarshal(line, &e); err != nil {
		return err
	}
	switch {
	case e.Type == "custom-title" && e.CustomTitle != nil:
		f.user = *e.CustomTitle
	case e.Type == "ai-title" && e.AITitle != nil:
		f.auto = *e.AITitle
	case e.Type == "summary" && e.Summary != nil:
		f.auto = *e.Summary
	}
	return nil
}

// Codex's $CODEX_HOME/session_index.jsonl:
// {"id":"<thread id>","thread_name":"...","updated_at":"..."}, appended at
// every rename; "" clears the name.
func parseCodexIndex(line []byte, f *found) error {
	var e struct {
		ID         string  `json:"id"`
		ThreadName *string `json:"thread_name"`
	}
	if err := json.Unmarshal(line, &e); err != nil {
		return err
	}
	if e.ID == "" || e.ThreadName == nil {
		return nil
	}
	if f.names == nil {
		f.names = map[string]string{}
	}
	if _, ok := f.names[e.ID]; !ok && len(f.names) >= maxNames {
		clear(f.names)
	}
	f.names[e.ID] = *e.ThreadName
	return nil
}

// pi: {"type":"session_info","name":"..."} from /name.
func parsePi(line []byte, f *found) error {
	var e struct {
		Type string  `json:"type"`
		Name *string `json:"name"`
	}
	if err := json.Unmarshal(line, &e); err != nil {
		return err
	}
	if e.Type == "session_info" && e.Name != nil {
		f.user = *e.Name
	}
	return nil
}

// omp: {"type":"title_change","title":"...","source":"user"|"auto"} at
// every title, and the current title in a {"type":"title","title":"..."}
// slot before the session header.
func parseOmp(line []byte, f *found) error {
	var e struct {
		Type   string  `json:"type"`
		Title  *string `json:"title"`
		Source string  `json:"source"`
	}
	if err := json.Unmarshal(line, &e); err != nil {
		return err
	}
	switch {
	case e.Title == nil:
	case e.Type == "title_change" && e.Source == "user":
		f.user = *e.Title
	case e.Type == "title_change", e.Type == "title":
		f.auto = *e.Title
	}
	return nil
}

// apply decodes line into f when it holds one of a's marks.
func (a agent) apply(line []byte, f *found) {
	for _, m := range a.marks {
		if bytes.Contains(line, m) {
			if err := a.parse(line, f); err != nil {
				f.bad = fmt.Errorf("a title entry does not decode: %w", err)
			}
			return
		}
	}
}
