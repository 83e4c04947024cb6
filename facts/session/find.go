package session

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// Where the agents read by id keep a session's file, given its id and the
// pane's directory. Each tries the folder the directory names first and
// lists the agent's sessions folder when that misses (a session started
// elsewhere, a directory reached through a symlink); docs/sessions.md
// gives the sources.

// qwenChat finds <root>/projects/<dir>/chats/<id>.jsonl, <dir> being the
// project's directory with every character but an ASCII letter or digit
// made '-' (Qwen Code's sanitizeCwd).
func qwenChat(r *Reader, root string, ref Ref) (string, error) {
	if !isSafeID(ref.Value) {
		return "", errBadID
	}
	projects := filepath.Join(root, "projects")
	rel := filepath.Join("chats", ref.Value+".jsonl")
	var tries []string
	if d := qwenFolder(ref.Dir); d != "" {
		tries = append(tries, filepath.Join(projects, d, rel))
	}
	return r.findByID(ref, tries, projects, rel)
}

// qwenAwaited is the chats folder Qwen Code writes a new session of the
// pane's directory in.
func qwenAwaited(_ *Reader, root string, ref Ref) (string, bool) {
	d := qwenFolder(ref.Dir)
	if ref.Kind != KindID || !isSafeID(ref.Value) || d == "" {
		return "", false
	}
	return confinedDir(filepath.Join(root, "projects", d, "chats"), root), false
}

func qwenFolder(dir string) string {
	if dir == "" || !filepath.IsAbs(dir) {
		return ""
	}
	return strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			return c
		}
		return '-'
	}, filepath.Clean(dir))
}

// kimiState finds <root>/sessions/wd_<dir>_<hash>/<id>/state.json (older
// releases: <id>/session-meta/state.json); the workspace folder is found
// by listing.
func kimiState(r *Reader, root string, ref Ref) (string, error) {
	if !isSafeID(ref.Value) {
		return "", errBadID
	}
	return r.findByID(ref, nil, filepath.Join(root, "sessions"),
		filepath.Join(ref.Value, "state.json"), filepath.Join(ref.Value, "session-meta", "state.json"))
}

// copilotWorkspace is <root>/session-state/<id>/workspace.yaml.
func copilotWorkspace(_ *Reader, root string, ref Ref) (string, error) {
	if !isSafeID(ref.Value) {
		return "", errBadID
	}
	return filepath.Join(root, "session-state", ref.Value, "workspace.yaml"), nil
}

// droidSession finds <root>/sessions/<dir slug>/<id>.jsonl by listing:
// the slug's rule differs between releases.
func droidSession(r *Reader, root string, ref Ref) (string, error) {
	if !isSafeID(ref.Value) {
		return "", errBadID
	}
	sessions := filepath.Join(root, "sessions")
	name := ref.Value + ".jsonl"
	return r.findByID(ref, []string{filepath.Join(sessions, name)}, sessions, name)
}

// grokSummary finds <root>/sessions/<directory, URL-encoded>/<id>/summary.json.
func grokSummary(r *Reader, root string, ref Ref) (string, error) {
	if !isSafeID(ref.Value) {
		return "", errBadID
	}
	sessions := filepath.Join(root, "sessions")
	rel := filepath.Join(ref.Value, "summary.json")
	var tries []string
	if filepath.IsAbs(ref.Dir) {
		tries = append(tries, filepath.Join(sessions, url.PathEscape(filepath.Clean(ref.Dir)), rel))
	}
	return r.findByID(ref, tries, sessions, rel)
}

// cursorChat finds <root>/chats/<md5 of the directory>/<id>/meta.json, or
// the chat's store.db where there is no meta.json.
func cursorChat(r *Reader, root string, ref Ref) (string, error) {
	if !isSafeID(ref.Value) {
		return "", errBadID
	}
	chats := filepath.Join(root, "chats")
	meta, db := filepath.Join(ref.Value, "meta.json"), filepath.Join(ref.Value, "store.db")
	var tries []string
	if filepath.IsAbs(ref.Dir) {
		sum := md5.Sum([]byte(filepath.Clean(ref.Dir)))
		bucket := filepath.Join(chats, hex.EncodeToString(sum[:]))
		tries = append(tries, filepath.Join(bucket, meta), filepath.Join(bucket, db))
	}
	return r.findByID(ref, tries, chats, meta, db)
}

// opencodeStore is the database OpenCode (or Kilo) keeps its sessions in
// from 1.2.0 on: $<env> (absolute, or below root), else root/<name>;
// without one, the session's file of the JSON store of older releases,
// root/storage/session/<project>/<id>.json.
func opencodeStore(r *Reader, root string, ref Ref, env, name string) (string, error) {
	if !isSafeID(ref.Value) {
		return "", errBadID
	}
	db := filepath.Join(root, name)
	if v := r.getenv(env); v != "" {
		db = v
		if !filepath.IsAbs(v) {
			db = filepath.Join(root, v)
		}
	}
	if exists(db) {
		return db, nil
	}
	p, err := r.findByID(ref, nil, filepath.Join(root, "storage", "session"), ref.Value+".json")
	if err != nil {
		return "", fmt.Errorf("no %s and %w", filepath.Base(db), err)
	}
	return p, nil
}
