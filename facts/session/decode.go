package session

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
)

// Decoders of the files that hold one session's title; docs/sessions.md
// gives each format's source.

// Kimi Code's state.json: {"title":"...","titleKind":"custom"|"generated"|
// "replaceable","isCustomTitle":true,...}; /title sets a custom one, and
// the agent's own titles never replace it.
func decodeKimi(b []byte, f *found) error {
	var e struct {
		Title         string `json:"title"`
		TitleKind     string `json:"titleKind"`
		IsCustomTitle bool   `json:"isCustomTitle"`
	}
	if err := json.Unmarshal(b, &e); err != nil {
		return err
	}
	if e.TitleKind == "custom" || e.TitleKind == "" && e.IsCustomTitle {
		f.user = e.Title
	} else {
		f.auto = e.Title
	}
	return nil
}

// Copilot CLI's workspace.yaml: name: ... with user_named: true when a
// person set it (/rename), false when Copilot generated it; older files
// carry a summary: instead.
func decodeCopilot(b []byte, f *found) error {
	keys, err := yamlScalars(b, "name", "user_named", "summary")
	if err != nil {
		return err
	}
	switch {
	case keys["name"] != "" && keys["user_named"] == "true":
		f.user = keys["name"]
	case keys["name"] != "":
		f.auto = keys["name"]
	default:
		f.auto = keys["summary"]
	}
	return nil
}

// Grok's summary.json: generated_title, a person's when title_is_manual
// (/rename), else session_summary.
func decodeGrok(b []byte, f *found) error {
	var e struct {
		GeneratedTitle string `json:"generated_title"`
		Manual         bool   `json:"title_is_manual"`
		Summary        string `json:"session_summary"`
	}
	if err := json.Unmarshal(b, &e); err != nil {
		return err
	}
	switch {
	case e.GeneratedTitle != "" && e.Manual:
		f.user = e.GeneratedTitle
	case e.GeneratedTitle != "":
		f.auto = e.GeneratedTitle
	default:
		f.auto = e.Summary
	}
	return nil
}

// Droid's first line: {"type":"session_start","title":"...",
// "isSessionTitleManuallySet":true,...}, rewritten in place; "New Session"
// is the placeholder before a title.
func decodeDroid(b []byte, f *found) error {
	var e struct {
		Type         string `json:"type"`
		Title        string `json:"title"`
		SessionTitle string `json:"sessionTitle"`
		Manual       bool   `json:"isSessionTitleManuallySet"`
	}
	if err := json.Unmarshal(b, &e); err != nil {
		return err
	}
	if e.Type != "session_start" {
		return errors.New("the first line is no session_start")
	}
	title := e.Title
	if title == "" {
		title = e.SessionTitle
	}
	switch {
	case e.Manual:
		f.user = title
	case title != "New Session":
		f.auto = title
	}
	return nil
}

// Cursor's meta.json: {"title":"...",...}; one field for a name and a
// generated title alike.
func decodeCursorMeta(b []byte, f *found) error {
	var e struct {
		Title string `json:"title"`
	}
	if err := json.Unmarshal(b, &e); err != nil {
		return err
	}
	if e.Title != cursorDefault {
		f.auto = e.Title
	}
	return nil
}

// cursorDefault is the name Cursor gives a chat before it has one.
const cursorDefault = "New Agent"

// cursorName reads the value of store.db's meta row "0": hex of a JSON
// object whose name is the chat's.
func cursorName(v string, f *found) error {
	b, err := hex.DecodeString(strings.TrimSpace(v))
	if err != nil {
		return err
	}
	var e struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(b, &e); err != nil {
		return err
	}
	if e.Name != cursorDefault {
		f.auto = e.Name
	}
	return nil
}

// OpenCode's session file of its JSON store (before 1.2.0):
// {"id":"ses_...","title":"...",...}.
func decodeOpencode(b []byte, f *found) error {
	var e struct {
		Title string `json:"title"`
	}
	if err := json.Unmarshal(b, &e); err != nil {
		return err
	}
	opencodeTitle(e.Title, f)
	return nil
}

// opencodeTitle records an OpenCode or Kilo session title: one column for
// a person's name and a generated title alike, "New session - <time>"
// (a child's "Child session - <time>") until there is one.
func opencodeTitle(title string, f *found) {
	if !isOpencodePlaceholder(title) {
		f.auto = title
	}
}

// isOpencodePlaceholder is OpenCode's isDefaultTitle: a prefix and an ISO
// time to the millisecond, as new Date().toISOString() writes it.
func isOpencodePlaceholder(title string) bool {
	rest, ok := strings.CutPrefix(title, "New session - ")
	if !ok {
		if rest, ok = strings.CutPrefix(title, "Child session - "); !ok {
			return false
		}
	}
	const shape = "dddd-dd-ddTdd:dd:dd.dddZ"
	if len(rest) != len(shape) {
		return false
	}
	for i := 0; i < len(shape); i++ {
		if c := rest[i]; shape[i] == 'd' && (c < '0' || c > '9') || shape[i] != 'd' && c != shape[i] {
			return false
		}
	}
	return true
}
