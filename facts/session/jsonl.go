package session

import (
	"bytes"
	"fmt"

	// goccy's decoder allocates a third of what encoding/json's does per
	// line: a transcript of 1 MiB of title lines costs 1.7 MB, not 4.7.
	json "github.com/goccy/go-json"
)

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
		f.setUser(*e.CustomTitle)
	case e.Type == "ai-title" && e.AITitle != nil:
		f.setAuto(*e.AITitle)
	case e.Type == "summary" && e.Summary != nil:
		f.setAuto(*e.Summary)
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
		f.setUser(*e.Name)
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
		f.setUser(*e.Title)
	case e.Type == "title_change", e.Type == "title":
		f.setAuto(*e.Title)
	}
	return nil
}

// Qwen Code: {"type":"system","subtype":"custom_title","systemPayload":
// {"customTitle":"...","titleSource":"manual"|"auto"}}, appended at /rename
// and by its automatic titler (a manual title has no titleSource in older
// releases).
func parseQwen(line []byte, f *found) error {
	var e struct {
		Type    string `json:"type"`
		Subtype string `json:"subtype"`
		Payload struct {
			CustomTitle *string `json:"customTitle"`
			TitleSource string  `json:"titleSource"`
		} `json:"systemPayload"`
	}
	if err := json.Unmarshal(line, &e); err != nil {
		return err
	}
	switch {
	case e.Type != "system" || e.Subtype != "custom_title" || e.Payload.CustomTitle == nil:
	case e.Payload.TitleSource == "auto":
		f.setAuto(*e.Payload.CustomTitle)
	default:
		f.setUser(*e.Payload.CustomTitle)
	}
	return nil
}

// applyLines applies to f, in order, the lines of b that end in b (a
// line break after each) and hold one of a's marks. Only the marks are
// searched for, each once through b: a chunk of lines that name nothing
// costs a few scans, whatever its lines.
func (a agent) applyLines(b []byte, f *found) {
	next := make([]int, len(a.marks)) // where each mark is next found, -1: not again
	for i, m := range a.marks {
		next[i] = bytes.Index(b, m)
	}
	for pos := 0; ; {
		at := -1
		for i, m := range a.marks {
			if next[i] >= 0 && next[i] < pos {
				if j := bytes.Index(b[pos:], m); j >= 0 {
					next[i] = pos + j
				} else {
					next[i] = -1
				}
			}
			if next[i] >= 0 && (at < 0 || next[i] < at) {
				at = next[i]
			}
		}
		if at < 0 {
			return
		}
		end := bytes.IndexByte(b[at:], '\n')
		if end < 0 {
			return // in a line that does not end in b
		}
		start := bytes.LastIndexByte(b[:at], '\n') + 1
		a.apply(b[start:at+end], f)
		pos = at + end + 1
	}
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
