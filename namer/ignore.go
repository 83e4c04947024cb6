package namer

import (
	"fmt"
	"strings"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/internal/glob"
)

// DefaultIgnore returns the quick commands that never name a tab: while one
// of them is in front, the tab keeps the name it has with the shell in
// front, so `ls` costs no rename to "ls" and another back a moment later.
//
// The list holds programs that finish before anyone could read a tab
// label, not ones people watch: less, man, top, tail (-f), watch, sleep,
// make, ssh and editors stay out. cd, pwd, echo, true and kill are builtins
// in most shells and rarely reach the process table; they are listed for
// shells and scripts that run /usr/bin's copies, and because people look
// for them here.
//
// git is listed by subcommand, not as a whole. While git waits for an
// editor (commit, rebase -i) or a pager (log, diff, show), the program in
// front is still git: it leads the foreground group, which procinfo names,
// and the editor or pager is only its child. Ignoring all of git would
// show the directory for as long as someone reads a log or writes a
// commit message, and {args} users would lose "git log --oneline". The
// listed subcommands finish at once; the rest (and slow ones like clone or
// push) read "git" as before.
func DefaultIgnore() []string {
	return []string{
		// looking around
		"ls", "tree", "cd", "pwd", "du", "df", "stat", "file", "wc", "which", "zoxide",
		// printing
		"cat", "head", "echo", "printf", "clear", "reset",
		// searching
		"grep", "rg", "fd", "find", "diff",
		// changing files
		"cp", "mv", "rm", "mkdir", "rmdir", "touch", "ln", "chmod", "chown",
		// asking the system
		"date", "whoami", "id", "uname", "env", "kill", "true", "false",
		// quick git subcommands, matched on the command line
		"git status*", "git add*", "git restore*", "git switch*",
		"git checkout*", "git stash*", "git reset*", "git branch*",
	}
}

// quickList is a compiled ignore list.
type quickList struct {
	exact map[string]bool // plain names, the whole default list: one lookup
	names []*glob.Glob    // other patterns on the program name
	// Patterns with a blank, on the command line, by their first word
	// when it is plain ("git status*" under "git"), else under "".
	lines map[string][]*glob.Glob
}

const globMeta = `*?[]{}\!`

// CheckIgnore checks one ignore pattern: a glob (gobwas/glob syntax, no
// separators, matched in time linear in the name) on the program name after launchers are looked through, so
// "*sum" covers md5sum and sha256sum and "ls" covers `sudo ls`. A pattern
// with a blank is matched against the whole command line ({args}) instead:
// "git status*".
func CheckIgnore(pattern string) error {
	_, err := compileIgnore(pattern)
	return err
}

func compileIgnore(pattern string) (*glob.Glob, error) {
	if strings.TrimSpace(pattern) == "" {
		return nil, fmt.Errorf("empty pattern (a program name or a glob like \"*sum\")")
	}
	g, err := glob.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("bad glob %q: %w", pattern, globReason(err, pattern, 0))
	}
	return g, nil
}

// IgnoreError is a bad pattern in Config.Ignore or Config.ExtendIgnore.
type IgnoreError struct {
	Key   string // "ignore" or "extend-ignore"
	Entry int    // 1-based
	Err   error
}

func (e *IgnoreError) Error() string { return fmt.Sprintf("%s: entry %d: %v", e.Key, e.Entry, e.Err) }
func (e *IgnoreError) Unwrap() error { return e.Err }

// compileQuick builds the list from Config.Ignore (nil: DefaultIgnore) and
// Config.ExtendIgnore.
func compileQuick(ignore, extend []string) (quickList, error) {
	q := quickList{exact: map[string]bool{}, lines: map[string][]*glob.Glob{}}
	for _, set := range []struct {
		key  string
		pats []string
	}{{"ignore", ignore}, {"extend-ignore", extend}} {
		for i, p := range set.pats {
			g, err := compileIgnore(p)
			if err != nil {
				return q, &IgnoreError{Key: set.key, Entry: i + 1, Err: err}
			}
			switch {
			case strings.ContainsAny(p, " \t"):
				first, _, _ := strings.Cut(p, " ")
				if strings.ContainsAny(first, globMeta+"\t") {
					first = ""
				}
				q.lines[first] = append(q.lines[first], g)
			case !strings.ContainsAny(p, globMeta):
				q.exact[p] = true
			default:
				q.names = append(q.names, g)
			}
		}
	}
	return q, nil
}

// name reports whether a program name is on the list.
func (q *quickList) name(s string) bool {
	return s != "" && (q.exact[s] || anyMatch(q.names, s))
}

// line reports whether a command line is on the list.
func (q *quickList) line(s string) bool {
	first, _, _ := strings.Cut(s, " ")
	return anyMatch(q.lines[first], s) || anyMatch(q.lines[""], s)
}

// anyMatch reports whether s is non-empty and some glob matches it.
func anyMatch(globs []*glob.Glob, s string) bool {
	if s == "" {
		return false
	}
	for _, g := range globs {
		if g.Match(s) {
			return true
		}
	}
	return false
}

// quickProgram reports whether the program in front, as Facts carries it,
// is a quick command that names the tab as the shell would. Like a rule's
// program glob, a name pattern matches {proc} or the program's own name;
// an agent pane's program is never looked at.
func (n *Namer) quickProgram(p Plan, f Facts) bool {
	q := &n.quick
	return p.Lead.Agent == "" &&
		(q.name(f.Exe) || f.Proc != f.Exe && q.name(f.Proc) || q.line(f.Args))
}

// shellPlan is p planned with the shell in front: in the shell's directory
// (herdr's cwd), not the one a quick command moved to (git works from the
// top of its work tree, so `git status` in ~/repo/src runs in ~/repo),
// with the dir rules of that directory.
func (n *Namer) shellPlan(p Plan) Plan {
	lead := p.Lead
	if lead.Cwd == "" || lead.ForegroundCwd == lead.Cwd {
		return p
	}
	lead.ForegroundCwd = lead.Cwd
	q := n.Plan(p.Tab, p.Workspace, []herdr.Pane{lead})
	q.Lead, q.LeadWhy = p.Lead, p.LeadWhy
	return q
}

// asShell is f with the program gone: the facts of the same pane with the
// shell in front.
func asShell(f Facts) Facts {
	f.Proc, f.Exe, f.Args, f.Host, f.Glyph = "", "", "", "", ""
	return f
}
