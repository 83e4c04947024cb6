// Package gitinfo finds the git work tree that contains a directory and the
// branch checked out there, for the {repo} and {branch} template tokens.
//
// It reads the repository layout directly and never runs git: the daemon asks
// on every pass for every tab whose template uses those tokens, so a cache hit
// costs one or two stat calls and no reads.
//
// {repo} is the base name of the work tree root, the nearest ancestor of the
// directory that holds a .git entry. One rule covers every layout: in a plain
// repository .git is a directory; in a linked worktree (git worktree add) and
// in a submodule .git is a file "gitdir: X", and the folder holding that file
// is the root, so a worktree shows its own folder name and a submodule its
// folder name.
package gitinfo

import (
	"container/list"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/safefile"
)

// DefaultMaxEntries bounds the cache: one entry per looked-up directory.
// Panes rarely number in the thousands, so this only guards against a
// long-running daemon collecting every directory a shell ever visited.
const DefaultMaxEntries = 4096

// Info describes the work tree that contains a directory.
type Info struct {
	// Root is the work tree root: the folder that holds the .git entry.
	Root string
	// Repo is filepath.Base(Root), the {repo} token.
	Repo string
	// Branch is the checked-out branch, the first 7 hex digits of the
	// commit when HEAD is detached, or "" when HEAD cannot be read or makes
	// no sense (a garbage file, a reftable repository).
	Branch string
	// Worktree is true for a linked worktree (its gitdir has a commondir
	// file), false for a main work tree or a submodule.
	Worktree bool
	// DefaultBranch is the repository's default branch: what
	// refs/remotes/origin/HEAD points to, else Branch itself when it is
	// main, master or trunk, else "". It is read with HEAD, so a later
	// `git remote set-head` shows at the next checkout.
	DefaultBranch string
}

// Cache answers Lookup from memory while the files it read are unchanged.
// It is safe for concurrent use.
type Cache struct {
	mu    sync.Mutex
	max   int
	byDir map[string]*list.Element // value: *entry
	lru   *list.List               // front = most recently used
}

// entry is immutable once stored; a changed repository gets a new entry.
type entry struct {
	dir  string
	info Info
	// dotGit is the .git entry at the root; for a directory only its
	// identity is compared, because git rewrites files inside .git (index,
	// locks) all the time and that moves the directory's mtime.
	dotGit     string
	dotGitSig  sig
	head       string // path of the HEAD file; "" when there is no gitdir
	headSig    sig
	headExists bool
}

// New returns an empty cache bounded to DefaultMaxEntries directories.
func New() *Cache {
	return &Cache{
		max:   DefaultMaxEntries,
		byDir: make(map[string]*list.Element),
		lru:   list.New(),
	}
}

// Lookup reports the work tree containing dir, and false when dir is in no
// repository. Results for directories outside any repository are not cached:
// noticing a later `git init` would take the same stat calls as the walk.
//
// A cached answer is reused while the .git entry and HEAD file are unchanged
// (same file, mtime and size). A repository created between dir and a cached
// root (a nested `git init`) is not noticed until one of those changes or the
// entry is evicted.
func (c *Cache) Lookup(dir string) (Info, bool) {
	if dir == "" {
		return Info{}, false
	}
	dir = filepath.Clean(dir)

	c.mu.Lock()
	el, ok := c.byDir[dir]
	var cached *entry
	if ok {
		cached = el.Value.(*entry)
		c.lru.MoveToFront(el)
	}
	c.mu.Unlock()

	// Stat outside the lock: concurrent passes must not queue behind disk.
	if cached != nil && cached.fresh() {
		return cached.info, true
	}

	e := walk(dir)
	c.mu.Lock()
	defer c.mu.Unlock()
	if e == nil {
		if el, ok := c.byDir[dir]; ok {
			c.lru.Remove(el)
			delete(c.byDir, dir)
		}
		return Info{}, false
	}
	if el, ok := c.byDir[dir]; ok {
		el.Value = e
		c.lru.MoveToFront(el)
	} else {
		c.byDir[dir] = c.lru.PushFront(e)
		for c.lru.Len() > c.max {
			oldest := c.lru.Back()
			c.lru.Remove(oldest)
			delete(c.byDir, oldest.Value.(*entry).dir)
		}
	}
	return e.info, true
}

// fresh reports whether the files behind e still look as they did.
func (e *entry) fresh() bool {
	// In a plain repository HEAD lives inside the .git directory, so the
	// same HEAD file still resolving through that path proves .git is still
	// there: one stat instead of two on the common hit.
	if !e.dotGitSig.dirOnly || !e.headExists {
		fi, err := os.Stat(e.dotGit)
		if err != nil || !e.dotGitSig.same(fi) {
			return false
		}
	}
	if e.head == "" {
		return true
	}
	fi, err := os.Stat(e.head)
	if err != nil {
		return !e.headExists
	}
	return e.headExists && e.headSig.same(fi)
}

// walk goes up from dir to the first folder with a .git entry and reads it.
func walk(dir string) *entry {
	for d := dir; ; {
		dotGit := filepath.Join(d, ".git")
		// Like git, only a folder or a regular file named .git marks a
		// work tree: a FIFO there (anyone can make /tmp/.git one) is
		// passed over.
		if fi, err := os.Stat(dotGit); err == nil && (fi.IsDir() || fi.Mode().IsRegular()) {
			e := load(d, dotGit, fi)
			e.dir = dir
			return e
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil
		}
		d = parent
	}
}

// load builds the entry for the work tree rooted at root.
func load(root, dotGit string, fi os.FileInfo) *entry {
	e := &entry{
		info:   Info{Root: root, Repo: filepath.Base(root)},
		dotGit: dotGit,
	}
	var gitDir string
	if fi.IsDir() {
		// Identity only: see entry.dotGit.
		e.dotGitSig = sig{fi: fi, dirOnly: true}
		gitDir = dotGit
	} else {
		e.dotGitSig = sig{fi: fi}
		gitDir = readGitFile(dotGit)
	}
	if gitDir == "" {
		// An unreadable or garbage .git file still marks the root (git
		// itself stops there with an error), but has no HEAD to read;
		// the entry stays valid until the .git file changes.
		return e
	}
	e.head = filepath.Join(gitDir, "HEAD")
	commonDir := gitDir
	if !fi.IsDir() {
		if s, ok := readSmall(filepath.Join(gitDir, "commondir")); ok {
			e.info.Worktree = true
			if c := strings.TrimSpace(s); c != "" {
				if !filepath.IsAbs(c) {
					c = filepath.Join(gitDir, c)
				}
				commonDir = filepath.Clean(c)
			}
		}
	}
	// Stat before reading: a HEAD rewritten between the two is seen as
	// changed on the next Lookup rather than cached with stale content.
	if hfi, err := os.Stat(e.head); err == nil {
		e.headExists = true
		e.headSig = sig{fi: hfi}
		e.info.Branch = readHead(e.head)
	}
	e.info.DefaultBranch = defaultBranch(commonDir, e.info.Branch)
	return e
}

// defaultBranch reads origin/HEAD (a symbolic ref, never packed), else
// takes the usual names for a default branch.
func defaultBranch(commonDir, branch string) string {
	if s, ok := readSmall(filepath.Join(commonDir, "refs", "remotes", "origin", "HEAD")); ok {
		ref, ok := strings.CutPrefix(strings.TrimSpace(s), "ref:")
		if b, isOrigin := strings.CutPrefix(strings.TrimSpace(ref), "refs/remotes/origin/"); ok && isOrigin && validRefName(b) {
			return b
		}
	}
	switch branch {
	case "main", "master", "trunk":
		return branch
	}
	return ""
}

// maxSmallFile bounds reads of .git files and HEAD; real ones are under
// 100 bytes, so anything bigger is garbage and not worth reading in full.
const maxSmallFile = 4096

// readSmall reads a small regular file; a FIFO or device (anyone can
// make /tmp/.git one) is refused without blocking.
func readSmall(path string) (string, bool) {
	b, err := safefile.ReadFile(path, maxSmallFile)
	if err != nil {
		return "", false
	}
	return string(b), true
}

// readGitFile returns the gitdir a ".git" file points to, "" when it is not
// one. Relative paths are relative to the folder holding the file.
func readGitFile(path string) string {
	s, ok := readSmall(path)
	if !ok {
		return ""
	}
	line, _, _ := strings.Cut(s, "\n")
	target, ok := strings.CutPrefix(line, "gitdir:")
	if !ok {
		return ""
	}
	target = strings.TrimSpace(target)
	if target == "" {
		return ""
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(path), target)
	}
	return filepath.Clean(target)
}

// readHead turns a HEAD file into a branch name or short hash; "" for
// anything git would not accept.
func readHead(path string) string {
	s, ok := readSmall(path)
	if !ok {
		return ""
	}
	return parseHead(s)
}

func parseHead(s string) string {
	s = strings.TrimSpace(s)
	if ref, ok := strings.CutPrefix(s, "ref:"); ok {
		ref = strings.TrimSpace(ref)
		branch, ok := strings.CutPrefix(ref, "refs/heads/")
		// refs/heads/.invalid is the placeholder a reftable repository
		// keeps in HEAD; the real value lives in binary tables we do not
		// read.
		if !ok || !validRefName(branch) || branch == ".invalid" {
			return ""
		}
		return branch
	}
	if (len(s) == 40 || len(s) == 64) && isHex(s) {
		return s[:7]
	}
	return ""
}

// validRefName rejects what git's check-ref-format would, as far as it
// matters for a display name: empty parts, controls, spaces and the
// characters git reserves.
func validRefName(name string) bool {
	if name == "" || strings.HasPrefix(name, "/") || strings.HasSuffix(name, "/") ||
		strings.HasSuffix(name, ".lock") || strings.Contains(name, "..") ||
		strings.Contains(name, "//") || strings.Contains(name, "@{") {
		return false
	}
	for _, r := range name {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(" ~^:?*[\\", r) {
			return false
		}
	}
	return true
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// sig is what a stat must still show for a cached read to count as current.
type sig struct {
	fi      os.FileInfo
	dirOnly bool
}

// same compares identity (device and inode, so a rename-over as git does
// for HEAD is always seen), and for files also mtime and size, which catch
// an in-place rewrite.
func (s sig) same(fi os.FileInfo) bool {
	if !os.SameFile(s.fi, fi) || s.fi.IsDir() != fi.IsDir() {
		return false
	}
	if s.dirOnly {
		return true
	}
	return s.fi.Size() == fi.Size() && s.fi.ModTime().Equal(fi.ModTime())
}
