package session

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/safefile"
)

// Errors a refused or missing session file is logged with.
var (
	errOutside = errors.New("outside the agent's folder")
	errNoFile  = errors.New("no transcript with that id")
)

// located is a Claude Code transcript found by id.
type located struct {
	path    string    // "" when not found
	scanned time.Time // when projects/ was last listed for it
	err     error     // why that listing failed, nil when it did not
}

// claudeRescan is how long a transcript not found by id stays not found
// before projects/ is listed again: Claude Code writes it at the first
// message, and a pane's directory finds it without listing whenever the
// agent started there.
const claudeRescan = 30 * time.Second

// maxProjects bounds the folders of projects/ listed for one id.
const maxProjects = 4096

// isClaudeID reports whether id is a session id as Claude Code makes them
// (a UUID): 1 to 128 letters, digits, '_' or '-'. Anything else could step
// out of the folder. A loop, not a regexp: a package-level regexp with a
// {1,128} repetition is compiled at every start of the program, nudge
// included.
func isClaudeID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// dirFromEnv is $env when set, else ~/rel; "" without either.
func (r *Reader) dirFromEnv(env, rel string) string {
	if env != "" {
		if v := r.getenv(env); v != "" {
			return filepath.Clean(v)
		}
	}
	if r.home == "" {
		return ""
	}
	return filepath.Join(r.home, rel)
}

// locate returns the resolved session file of ref and the resolved
// agent's folder it lies in.
func (r *Reader) locate(a agent, ref Ref) (path, root string, err error) {
	root = a.root(r)
	if root == "" {
		return "", "", errors.New("no home directory to find the agent's folder in")
	}
	var p string
	switch {
	case ref.Kind == KindPath && a.byPath:
		if !filepath.IsAbs(ref.Value) {
			return "", "", fmt.Errorf("session path %q is not absolute", ref.Value)
		}
		p = ref.Value
	case ref.Kind == KindID && a.byID != nil:
		if p, err = a.byID(r, root, ref); err != nil {
			return "", "", err
		}
	default:
		return "", "", fmt.Errorf("a session of %s known by %q is not read", ref.Agent, ref.Kind)
	}
	return confine(p, root)
}

// confine resolves p's symlinks and returns it, with root resolved, when
// it lies inside root.
func confine(p, root string) (real, realRoot string, err error) {
	if realRoot, err = filepath.EvalSymlinks(root); err != nil {
		return "", "", fmt.Errorf("agent folder: %w", err)
	}
	if real, err = filepath.EvalSymlinks(p); err != nil {
		return "", "", fmt.Errorf("session file: %w", err)
	}
	rel, err := filepath.Rel(realRoot, real)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", "", fmt.Errorf("%s: %w %s", p, errOutside, realRoot)
	}
	return real, realRoot, nil
}

// claudeTranscript finds <root>/projects/<folder>/<id>.jsonl. The folder
// is named after the directory the session started in, every character
// but an ASCII letter or digit made '-' (older releases replaced only '/'
// and '.'; a name over 200 characters gets a hash), so the pane's
// directory is tried first and projects/ listed when that misses.
func claudeTranscript(r *Reader, root string, ref Ref) (string, error) {
	id := ref.Value
	if !isClaudeID(id) {
		return "", fmt.Errorf("session id %q is not one Claude Code makes", id)
	}
	projects := filepath.Join(root, "projects")
	name := id + ".jsonl"
	if l, ok := r.found[id]; ok && l.path != "" {
		if exists(l.path) {
			return l.path, nil
		}
		delete(r.found, id)
	}
	for _, folder := range claudeFolders(ref.Dir) {
		if p := filepath.Join(projects, folder, name); exists(p) {
			r.remember(id, located{path: p})
			return p, nil
		}
	}
	now := r.now()
	if l, ok := r.found[id]; ok && now.Sub(l.scanned) < claudeRescan {
		if l.err != nil {
			return "", l.err
		}
		return "", errNoFile
	}
	p, err := scanProjects(projects, name)
	r.remember(id, located{path: p, scanned: now, err: err})
	if err != nil {
		return "", err
	}
	if p == "" {
		return "", errNoFile
	}
	return p, nil
}

// claudeAwaited is the folder of projects/ that Claude Code writes the
// transcript of a session known by id in (the pane's directory's, by
// either rule), else projects/ itself (parent): the only level it makes
// a folder in for a new directory.
func claudeAwaited(_ *Reader, root string, ref Ref) (string, bool) {
	if ref.Kind != KindID || !isClaudeID(ref.Value) {
		return "", false
	}
	folders := claudeFolders(ref.Dir)
	if len(folders) == 0 {
		return "", false
	}
	projects := filepath.Join(root, "projects")
	for _, folder := range folders {
		if d := confinedDir(filepath.Join(projects, folder), root); d != "" {
			return d, false
		}
	}
	if d := confinedDir(projects, root); d != "" {
		return d, true
	}
	return "", false
}

// confinedDir is p resolved when it is a folder inside root; "" if not.
func confinedDir(p, root string) string {
	real, _, err := confine(p, root)
	if err != nil {
		return ""
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return ""
	}
	return real
}

func (r *Reader) remember(id string, l located) {
	if len(r.found) >= maxFiles {
		clear(r.found)
	}
	r.found[id] = l
}

// claudeFolders are the names Claude Code gives the projects/ folder of a
// session started in dir, newest rule first.
func claudeFolders(dir string) []string {
	if dir == "" || !filepath.IsAbs(dir) {
		return nil
	}
	dir = filepath.Clean(dir)
	all := strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			return c
		}
		return '-'
	}, dir)
	old := strings.NewReplacer("/", "-", ".", "-").Replace(dir)
	var out []string
	if len(all) <= 200 {
		out = append(out, all)
	}
	if old != all && len(old) <= 200 {
		out = append(out, old)
	}
	return out
}

// scanProjects lists at most maxProjects folders of projects and returns
// the first one's file name, "" when none has it.
func scanProjects(projects, name string) (string, error) {
	d, err := safefile.OpenDir(projects)
	if err != nil {
		return "", fmt.Errorf("projects folder of Claude Code: %w", err)
	}
	defer d.Close()
	entries, err := d.ReadDir(maxProjects)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("projects folder of Claude Code: %w", err)
	}
	for _, e := range entries {
		if !e.IsDir() && e.Type()&os.ModeSymlink == 0 {
			continue
		}
		if p := filepath.Join(projects, e.Name(), name); exists(p) {
			return p, nil
		}
	}
	return "", nil
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
