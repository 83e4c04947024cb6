// Package sshhosts turns an ssh destination into the name the user knows
// the host by, for the {host} template token: the alias their ssh_config
// declares for it.
//
// Only the parts of ssh_config(5) that name hosts are read: Host lines (the
// non-wildcard names are aliases), HostName, and Include. Match blocks are
// skipped, because whether they apply depends on the connection. The file is
// re-read when it or anything it includes changes; nothing runs ssh.
package sshhosts

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/herdrtabrenamer/herdrtabrenamer/internal/safefile"
)

// Aliases maps ssh destinations to display names. It is safe for concurrent
// use. Display trusts what it read for CheckInterval, then stats the files
// again and re-reads them if any changed.
type Aliases struct {
	path string // "" when no config file can be located
	home string // for ~ in Include and relative includes of the default file

	cur    atomic.Pointer[snapshot]
	reload sync.Mutex   // one re-read at a time
	log    *slog.Logger // nil: slog.Default() at the time of the warning

	// interval is how long a snapshot is trusted before the files are
	// stat'ed again; now is the clock, replaced in tests.
	interval time.Duration
	now      func() time.Time
}

// CheckInterval is how often Display looks for a changed configuration.
// A config with a few includes costs several stat calls to verify, and the
// daemon asks for every ssh tab on every pass; an edit to ssh_config showing
// up a second late is no loss.
const CheckInterval = time.Second

// snapshot is one read of the configuration; once stored only checked moves.
type snapshot struct {
	checked atomic.Int64      // UnixNano of the last stat that found it current
	deps    []dep             // what to stat to know it is still current
	aliases map[string]bool   // lower-cased Host names
	byHost  map[string]string // lower-cased HostName -> first alias, as written
}

// New reads host aliases from the ssh_config at path, "" meaning
// ~/.ssh/config. Nothing is read until the first Display.
func New(path string) *Aliases {
	home, _ := os.UserHomeDir()
	if path == "" && home != "" {
		path = filepath.Join(home, ".ssh", "config")
	}
	return &Aliases{path: path, home: home, interval: CheckInterval, now: time.Now}
}

// Display returns the name to show for dest, a destination as given to ssh:
// "host", "user@host", "host:port" or "ssh://user@host:port". The user and
// port are dropped. An alias a Host line declares is shown as typed; a
// hostname or address that a block's HostName names is shown as that
// block's first non-wildcard alias; anything else is the host as typed.
func (a *Aliases) Display(dest string) string {
	host := HostOf(dest)
	if host == "" {
		return ""
	}
	s := a.current()
	key := strings.ToLower(host)
	if s.aliases[key] {
		return host
	}
	if alias, ok := s.byHost[key]; ok {
		return alias
	}
	return host
}

// HostOf strips the scheme, user and port from an ssh destination.
func HostOf(dest string) string {
	dest = strings.TrimSpace(dest)
	dest, isURI := strings.CutPrefix(dest, "ssh://")
	if isURI {
		// A URI may carry a path after the authority; ssh ignores it.
		dest, _, _ = strings.Cut(dest, "/")
	}
	// ssh splits the user off at the last '@'.
	if i := strings.LastIndexByte(dest, '@'); i >= 0 {
		dest = dest[i+1:]
	}
	if strings.HasPrefix(dest, "[") {
		if end := strings.IndexByte(dest, ']'); end > 0 {
			return dest[1:end]
		}
		return dest
	}
	// One colon is a port; more than one is a bare IPv6 address.
	if host, port, ok := strings.Cut(dest, ":"); ok && !strings.Contains(port, ":") && isDigits(port) {
		return host
	}
	return dest
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

var empty = &snapshot{}

// current returns a snapshot that matches the files on disk now, reading
// them again when a stat shows a change.
func (a *Aliases) current() *snapshot {
	if a.path == "" {
		return empty
	}
	now := a.now().UnixNano()
	if s := a.cur.Load(); s != nil {
		if now-s.checked.Load() < int64(a.interval) {
			return s
		}
		if s.fresh() {
			s.checked.Store(now)
			return s
		}
	}
	a.reload.Lock()
	defer a.reload.Unlock()
	old := a.cur.Load()
	if old != nil && old.fresh() {
		old.checked.Store(now)
		return old // another caller re-read it while we waited
	}
	next, err := a.read()
	if err != nil {
		// Keep the last good names, but remember the broken files' stats
		// so the warning comes once per change, not once per call.
		kept := empty
		if old != nil {
			kept = old
		}
		next = &snapshot{deps: next.deps, aliases: kept.aliases, byHost: kept.byHost}
		a.logger().Warn("ssh config unusable, keeping the previous host aliases",
			"path", a.path, "err", err)
	}
	next.checked.Store(now)
	a.cur.Store(next)
	return next
}

func (a *Aliases) logger() *slog.Logger {
	if a.log != nil {
		return a.log
	}
	return slog.Default()
}

// dep is one file or folder a snapshot was built from, with the stat taken
// before reading it; exists false records that it was missing.
type dep struct {
	path   string
	exists bool
	fi     fs.FileInfo
}

func statDep(path string) dep {
	fi, err := os.Stat(path)
	if err != nil {
		return dep{path: path}
	}
	return dep{path: path, exists: true, fi: fi}
}

// fresh reports whether every dependency stats as it did when read.
func (s *snapshot) fresh() bool {
	for _, d := range s.deps {
		fi, err := os.Stat(d.path)
		if err != nil {
			if d.exists {
				return false
			}
			continue
		}
		if !d.exists || !os.SameFile(d.fi, fi) || !d.fi.ModTime().Equal(fi.ModTime()) || d.fi.Size() != fi.Size() {
			return false
		}
	}
	return true
}

// maxDepth bounds Include nesting, which also stops include loops.
const maxDepth = 8

// maxFileSize bounds one config file; real ones are a few KiB.
const maxFileSize = 1 << 20

// Bounds of one read of the configuration, so that what it costs stays in
// proportion to what it holds: maxFiles files read in all (an Include
// that names a file many times, at every level, would read it a number of
// times exponential in maxDepth), maxArgs values on a line, maxHosts host
// names in all. Real configurations stay far below them; past one, the
// configuration is unusable, with a warning that says which.
const (
	maxFiles = 64
	maxArgs  = 1024
	maxHosts = 4096
)

// parser carries the state of one read across included files.
type parser struct {
	a     *Aliases
	snap  *snapshot
	seen  map[string]bool // deps already recorded
	files int             // files read so far
	hosts int             // host names read so far
}

// block is the section a line belongs to: the aliases of the current Host
// line; none at the top of the file, in a Match block and after a Host line
// of wildcards only.
type block struct {
	aliases     []string
	hostNameSet bool
}

// read parses the configuration. On error the returned snapshot still
// lists the files it looked at.
func (a *Aliases) read() (*snapshot, error) {
	p := &parser{
		a: a,
		snap: &snapshot{
			aliases: make(map[string]bool),
			byHost:  make(map[string]string),
		},
		seen: make(map[string]bool),
	}
	d := p.depend(a.path)
	if !d.exists {
		return p.snap, nil // no file, no aliases
	}
	err := p.file(a.path, 0, &block{})
	return p.snap, err
}

func (p *parser) depend(path string) dep {
	d := statDep(path)
	if !p.seen[path] {
		p.seen[path] = true
		p.snap.deps = append(p.snap.deps, d)
	}
	return d
}

// file parses one config file at include depth depth; blk is the block in
// force where the file starts, as ssh applies an Include inside a Host block
// to that host. A HostName in the included file before any Host line is that
// block's, so it is shared by pointer; a Host line starts a new block that
// ends with the included file.
func (p *parser) file(path string, depth int, blk *block) error {
	if p.files++; p.files > maxFiles {
		return fmt.Errorf("more than %d files included", maxFiles)
	}
	// A FIFO or a device at the path would block the pass reading it.
	data, err := safefile.ReadFile(path, maxFileSize)
	if err != nil {
		return fmt.Errorf("ssh config: %w", err)
	}
	rest := string(data)
	for n := 1; rest != ""; n++ {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		if blk, err = p.line(line, depth, blk); err != nil {
			return fmt.Errorf("%s:%d: %w", path, n, err)
		}
	}
	return nil
}

// line applies one line and returns the block in force after it.
func (p *parser) line(line string, depth int, blk *block) (*block, error) {
	keyword, args, err := splitLine(line)
	if err != nil || keyword == "" {
		return blk, err
	}
	switch strings.ToLower(keyword) {
	case "host":
		if len(args) == 0 {
			return blk, errors.New("missing name after Host")
		}
		blk = &block{}
		if p.hosts += len(args); p.hosts > maxHosts {
			return blk, fmt.Errorf("more than %d host names", maxHosts)
		}
		for _, name := range args {
			if strings.ContainsAny(name, "*?!") {
				continue // a pattern or negation names no host
			}
			blk.aliases = append(blk.aliases, name)
			p.snap.aliases[strings.ToLower(name)] = true
		}
	case "match":
		blk = &block{}
	case "hostname":
		if len(args) != 1 {
			return blk, fmt.Errorf("want one value after HostName, got %d", len(args))
		}
		if blk.hostNameSet || len(blk.aliases) == 0 {
			return blk, nil // ssh takes the first value; wildcards alias nothing
		}
		blk.hostNameSet = true
		for _, alias := range blk.aliases {
			hn := strings.ToLower(expandHostName(args[0], alias))
			if hn == "" {
				continue // no host has so long a name
			}
			if _, taken := p.snap.byHost[hn]; !taken {
				p.snap.byHost[hn] = alias
			}
		}
	case "include":
		if len(args) == 0 {
			return blk, errors.New("missing file after Include")
		}
		if depth+1 > maxDepth {
			return blk, fmt.Errorf("includes nested deeper than %d (a loop?)", maxDepth)
		}
		for _, pattern := range args {
			if err := p.include(pattern, depth, blk); err != nil {
				return blk, err
			}
		}
	}
	return blk, nil
}

// include reads the files pattern names. Like ssh, a pattern that matches
// nothing is not an error, and the includer's block is restored afterwards
// so a Host line in an included file does not swallow the lines after the
// Include.
func (p *parser) include(pattern string, depth int, blk *block) error {
	pattern = p.expandPath(pattern)
	var files []string
	if hasMeta(pattern) {
		// New files matching the glob show up as a change of the folder.
		p.depend(staticPrefix(pattern))
		matches, err := filepath.Glob(pattern)
		if err != nil {
			return fmt.Errorf("include %q: %w", pattern, err)
		}
		files = matches // sorted, as ssh's glob(3) sorts
	} else {
		files = []string{pattern}
	}
	for _, file := range files {
		d := p.depend(file)
		if !d.exists || d.fi.IsDir() {
			continue
		}
		if err := p.file(file, depth+1, blk); err != nil {
			return err
		}
	}
	return nil
}

// expandPath resolves an Include argument: ~ is the home folder, and a
// relative path is relative to the folder of the top-level file (~/.ssh for
// the default file, as ssh does; for an explicit file its own folder, so a
// config kept elsewhere keeps its includes beside it).
func (p *parser) expandPath(s string) string {
	if p.a.home != "" && (s == "~" || strings.HasPrefix(s, "~/")) {
		s = filepath.Join(p.a.home, s[1:])
	}
	if !filepath.IsAbs(s) {
		s = filepath.Join(filepath.Dir(p.a.path), s)
	}
	return filepath.Clean(s)
}

func hasMeta(s string) bool { return strings.ContainsAny(s, `*?[\`) }

// staticPrefix is the deepest folder of a glob with no pattern characters.
func staticPrefix(pattern string) string {
	dir := filepath.Dir(pattern)
	for hasMeta(dir) {
		dir = filepath.Dir(dir)
	}
	return dir
}

// maxHostName is longer than any host name (DNS allows 253 bytes): a
// HostName longer than that, once expanded, names no host, and expanding
// it for every alias of its block would cost their product.
const maxHostName = 255

// expandHostName applies the HostName tokens that can be known without a
// connection: %h (the alias) and %%; "" for a name over maxHostName.
func expandHostName(value, alias string) string {
	if len(value) > maxHostName {
		return ""
	}
	if !strings.Contains(value, "%") {
		return value
	}
	var b strings.Builder
	for i := 0; i < len(value) && b.Len() <= maxHostName; i++ {
		if value[i] == '%' && i+1 < len(value) {
			switch value[i+1] {
			case 'h':
				b.WriteString(alias)
				i++
				continue
			case '%':
				b.WriteByte('%')
				i++
				continue
			}
		}
		b.WriteByte(value[i])
	}
	if b.Len() > maxHostName {
		return ""
	}
	return b.String()
}

// splitLine splits an ssh_config line into its keyword and arguments:
// "Keyword value", "Keyword=value" or "Keyword = value"; arguments may be
// quoted with " or ', and an unquoted word starting with # ends the line.
func splitLine(line string) (string, []string, error) {
	line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
	if line == "" || line[0] == '#' {
		return "", nil, nil
	}
	end := strings.IndexAny(line, " \t=")
	if end < 0 {
		return line, nil, nil
	}
	keyword := line[:end]
	rest := strings.TrimLeft(line[end:], " \t")
	if strings.HasPrefix(rest, "=") {
		rest = strings.TrimLeft(rest[1:], " \t")
	}
	args, err := splitArgs(rest)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", keyword, err)
	}
	return keyword, args, nil
}

func splitArgs(s string) ([]string, error) {
	var args []string
	for i := 0; i < len(s); {
		c := s[i]
		if c == ' ' || c == '\t' {
			i++
			continue
		}
		if c == '#' {
			break // a comment after the values
		}
		if len(args) == maxArgs {
			return nil, fmt.Errorf("more than %d values", maxArgs)
		}
		if end := strings.IndexAny(s[i:], " \t"); !strings.ContainsAny(wordAt(s[i:], end), `"'\\`) {
			// A plain word, the common case: no copy.
			w := wordAt(s[i:], end)
			args = append(args, w)
			i += len(w)
			continue
		}
		var b strings.Builder
		var quote byte
	word:
		for ; i < len(s); i++ {
			c := s[i]
			switch {
			case quote != 0 && c == quote:
				quote = 0
			case quote != 0:
				b.WriteByte(c)
			case c == '"' || c == '\'':
				quote = c
			case c == '\\' && i+1 < len(s) && strings.IndexByte(`\"' `, s[i+1]) >= 0:
				i++
				b.WriteByte(s[i])
			case c == ' ' || c == '\t':
				break word
			default:
				b.WriteByte(c)
			}
		}
		if quote != 0 {
			return nil, fmt.Errorf("unterminated %c quote", quote)
		}
		args = append(args, b.String())
	}
	return args, nil
}

// wordAt is s up to end, all of s when end < 0.
func wordAt(s string, end int) string {
	if end < 0 {
		return s
	}
	return s[:end]
}
