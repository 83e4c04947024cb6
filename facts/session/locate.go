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
	errNoFile  = errors.New("no session file with that id")
	errBadID   = errors.New("not a session id the agent makes")
)

// located is a session file found by id.
type located struct {
	path    string    // "" when not found
	scanned time.Time // when projects/ was last listed for it
	err     error     // why that listing failed, nil when it did not
}

// rescan is how long a session file not found by id stays not found
// before its agent's sessions folder is listed again.
const rescan = 30 * time.Second

// maxProjects bounds the folders listed for one id.
const maxProjects = 4096

// isSafeID reports whether id is a session id as the agents make them (a
// UUID, ses_..., session_...): 1 to 128 letters, digits, '_' or '-'.
// Anything else could step out of the folder. A loop, not a regexp: a package-level regexp with a
// {1,128} repetition is compiled at every start of the program, nudge
// included.
func isSafeID(id string) bool {
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

// dirFromEnv is the first of envs set (a leading ~ is the home folder,
// as herdr expands it), else ~/rel; "" without either.
func (r *Reader) dirFromEnv(rel string, envs ...string) string {
	for _, env := range envs {
		if v := r.getenv(env); v != "" {
			return r.expandHome(v)
		}
	}
	if r.home == "" {
		return ""
	}
	return filepath.Join(r.home, rel)
}

// dataDir is app's folder of $XDG_DATA_HOME, ~/.local/share by default:
// where OpenCode and Kilo keep their sessions on Linux and macOS alike.
func (r *Reader) dataDir(app string) string {
	if v := r.getenv("XDG_DATA_HOME"); v != "" && filepath.IsAbs(v) {
		return filepath.Join(v, app)
	}
	if r.home == "" {
		return ""
	}
	return filepath.Join(r.home, ".local", "share", app)
}

// expandHome cleans v and makes a leading ~ the home folder.
func (r *Reader) expandHome(v string) string {
	if v == "~" || strings.HasPrefix(v, "~/") {
		if r.home == "" {
			return ""
		}
		return filepath.Join(r.home, v[1:])
	}
	return filepath.Clean(v)
}

// locateTTL is how long where a session's file was found stands: the
// panes of one database (or one pane at every pass and every write of a
// busy agent) look it up many times a second, and each look resolves
// every folder on the way twice. What is opened there is checked anyway,
// the same way, every time it is opened (safefile.OpenOwnedBeneath): a
// folder swapped for a symlink meanwhile leads nowhere.
const locateTTL = time.Second

// locatedAt is where a session's file was found, and when.
type locatedAt struct {
	path, root string
	at         time.Time
}

// locate is locateOnce, its answer kept for locateTTL.
func (r *Reader) locate(a agent, ref Ref) (path, root string, err error) {
	key := ref.String() + "\x00" + ref.Dir
	now := r.now()
	if l, ok := r.located[key]; ok && now.Sub(l.at) < locateTTL && !now.Before(l.at) {
		return l.path, l.root, nil
	}
	if path, root, err = r.locateOnce(a, ref); err != nil {
		delete(r.located, key)
		return "", "", err
	}
	if len(r.located) >= maxFiles {
		clear(r.located)
	}
	r.located[key] = locatedAt{path, root, now}
	return path, root, nil
}

// locateOnce returns the resolved session file of ref and the resolved
// agent's folder it lies in.
func (r *Reader) locateOnce(a agent, ref Ref) (path, root string, err error) {
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
	if !isSafeID(ref.Value) {
		return "", fmt.Errorf("session id %q is not one Claude Code makes", ref.Value)
	}
	projects := filepath.Join(root, "projects")
	name := ref.Value + ".jsonl"
	var tries []string
	for _, folder := range claudeFolders(ref.Dir) {
		tries = append(tries, filepath.Join(projects, folder, name))
	}
	return r.findByID(ref, tries, projects, name)
}

// findByID finds the file of ref's session: the one found before if it
// is still there, else the first of tries that exists, else the first
// folder of below (at most maxProjects listed) holding one of rels. A
// session not found is looked for again only after rescan: an agent
// writes its file at the first message, and tries find it without a
// listing whenever the pane's directory tells where.
func (r *Reader) findByID(ref Ref, tries []string, below string, rels ...string) (string, error) {
	key := ref.Agent + " " + ref.Value
	if l, ok := r.found[key]; ok && l.path != "" {
		if exists(l.path) {
			return l.path, nil
		}
		delete(r.found, key)
	}
	for _, p := range tries {
		if exists(p) {
			r.remember(key, located{path: p})
			return p, nil
		}
	}
	if below == "" {
		return "", errNoFile
	}
	now := r.now()
	if l, ok := r.found[key]; ok && now.Sub(l.scanned) < rescan {
		if l.err != nil {
			return "", l.err
		}
		return "", errNoFile
	}
	p, err := scanFolders(below, rels)
	r.remember(key, located{path: p, scanned: now, err: err})
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
	if ref.Kind != KindID || !isSafeID(ref.Value) {
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

func (r *Reader) remember(key string, l located) {
	if len(r.found) >= maxFiles {
		clear(r.found)
	}
	r.found[key] = l
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

// scanFolders lists at most maxProjects folders of below and returns
// the first path below/<folder>/<rel> that exists for one of rels, "" when
// none does.
func scanFolders(below string, rels []string) (string, error) {
	d, err := safefile.OpenDir(below)
	if err != nil {
		return "", fmt.Errorf("sessions folder: %w", err)
	}
	defer d.Close()
	entries, err := d.ReadDir(maxProjects)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("sessions folder: %w", err)
	}
	for _, e := range entries {
		if !e.IsDir() && e.Type()&os.ModeSymlink == 0 {
			continue
		}
		for _, rel := range rels {
			if p := filepath.Join(below, e.Name(), rel); exists(p) {
				return p, nil
			}
		}
	}
	return "", nil
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}
