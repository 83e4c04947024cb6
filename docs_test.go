package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrsim"
	"github.com/herdrtabrenamer/herdrtabrenamer/herdr/herdrtest"
)

// readmeMaxBytes is README's budget: a person deciding to install reads
// it in five minutes; the rest is in docs/.
const readmeMaxBytes = 15 * 1024

// TestReadmeSize: README fits its budget, install is on its first screen
// and the names a tab gets on its second.
func TestReadmeSize(t *testing.T) {
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) > readmeMaxBytes {
		t.Errorf("README.md is %d bytes, over its %d: move the detail to a docs/ page", len(raw), readmeMaxBytes)
	}
	lines := strings.Split(string(raw), "\n")
	for _, c := range []struct {
		heading string
		by      int // the line it must start at or before
	}{
		{"## Install", 50},
		{"## What names you will see", 100},
	} {
		at := 0
		for i, l := range lines {
			if l == c.heading {
				at = i + 1
				break
			}
		}
		if at == 0 || at > c.by {
			t.Errorf("README.md: %q at line %d, want it by line %d", c.heading, at, c.by)
		}
	}
	if _, rows := readmeNamesTable(t, string(raw)); len(rows) == 0 || headingLine(lines, "## What names you will see")+len(rows)+4 > 100 {
		t.Errorf("README.md: the names table (%d rows) does not end on the second screen", len(rows))
	}
}

func headingLine(lines []string, heading string) int {
	for i, l := range lines {
		if l == heading {
			return i + 1
		}
	}
	return 0
}

// docFiles are the pages whose links are checked: README.md and docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{"README.md"}, files...)
}

// mdLink is a markdown link or image: [text](target). Targets with
// blanks or nested parentheses do not occur in these pages.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// prose is the page without its fenced code blocks and inline code
// spans, where a "](" is text, not a link.
func prose(page string) string {
	var out []string
	fenced := false
	for _, l := range strings.Split(page, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			out = append(out, "")
			continue
		}
		parts := strings.Split(l, "`")
		for i := 1; i < len(parts); i += 2 {
			parts[i] = ""
		}
		out = append(out, strings.Join(parts, "``"))
	}
	return strings.Join(out, "\n")
}

// headingSlugs are the anchors GitHub gives a page's headings: each
// heading's slug, a repeated one with -1, -2, ... after it.
func headingSlugs(page string) map[string]bool {
	slugs := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, l := range strings.Split(page, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		text, ok := strings.CutPrefix(strings.TrimLeft(l, "#"), " ")
		if fenced || !strings.HasPrefix(l, "#") || !ok || len(l)-len(strings.TrimLeft(l, "#")) > 6 {
			continue
		}
		s := slug(text)
		if n := seen[s]; n > 0 {
			seen[s]++
			s = fmt.Sprintf("%s-%d", s, n)
		} else {
			seen[s] = 1
		}
		slugs[s] = true
	}
	return slugs
}

// slug is GitHub's anchor for a heading's text: lower case, markup and
// punctuation dropped (letters, digits, blanks, '-' and '_' kept), each
// blank a '-'.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func TestSlug(t *testing.T) {
	for _, c := range []struct{ heading, want string }{
		{"Names people chose", "names-people-chose"},
		{"Checking the setup: `status`", "checking-the-setup-status"},
		{"Instant renames: the kernel, shell hooks and the herdr plugin", "instant-renames-the-kernel-shell-hooks-and-the-herdr-plugin"},
		{"Lock, release, restore", "lock-release-restore"},
		{"omp (oh-my-pi)", "omp-oh-my-pi"},
		{"Running as a service, and platforms", "running-as-a-service-and-platforms"},
		{"First two commands", "first-two-commands"},
		{"A -- B_c", "a----b_c"},
	} {
		if got := slug(c.heading); got != c.want {
			t.Errorf("slug(%q) = %q, want %q", c.heading, got, c.want)
		}
	}
	page := "# A\n## B\n```\n# not a heading\n```\n## B\n#nospace\n"
	got := headingSlugs(page)
	for _, want := range []string{"a", "b", "b-1"} {
		if !got[want] {
			t.Errorf("headingSlugs lacks %q: %v", want, got)
		}
	}
	if got["not-a-heading"] || got["nospace"] || len(got) != 3 {
		t.Errorf("headingSlugs took a code line or a non-heading: %v", got)
	}
}

// TestDocsLinks: every relative link of README.md and docs/ names a file
// that exists, and every #anchor a heading of its page.
func TestDocsLinks(t *testing.T) {
	for _, file := range docFiles(t) {
		t.Run(file, func(t *testing.T) {
			for _, e := range deadLinks(t, file) {
				t.Error(e)
			}
		})
	}
}

// deadLinks lists file's links that lead nowhere, each with why.
func deadLinks(t *testing.T, file string) []string {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var dead []string
	for _, m := range mdLink.FindAllStringSubmatch(prose(string(raw)), -1) {
		target := m[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			continue
		}
		path, anchor, _ := strings.Cut(target, "#")
		dest := file
		if path != "" {
			dest = filepath.Join(filepath.Dir(file), path)
			if _, err := os.Stat(dest); err != nil {
				dead = append(dead, fmt.Sprintf("%s: link %q: no file %s", file, target, dest))
				continue
			}
		}
		if anchor == "" {
			continue
		}
		page, err := os.ReadFile(dest)
		if err != nil || !strings.HasSuffix(dest, ".md") {
			dead = append(dead, fmt.Sprintf("%s: link %q: an anchor into %s, which is no markdown page", file, target, dest))
			continue
		}
		if !headingSlugs(string(page))[anchor] {
			dead = append(dead, fmt.Sprintf("%s: link %q: %s has no heading whose anchor is #%s", file, target, dest, anchor))
		}
	}
	return dead
}

// TestDocsLinksCatchDeadOnes: the link check finds a missing file, a
// missing anchor in another page and in the same page, and passes a good
// link, a web address and a link shown as code.
func TestDocsLinksCatchDeadOnes(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "other.md"), []byte("# Other\n## Part two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "page.md")
	body := "# Page\n" +
		"[ok](other.md#part-two) [ok](#page) [web](https://example.com/x#y) `[code](nowhere.md)`\n" +
		"```\n[fenced](nowhere.md)\n```\n" +
		"[a](missing.md) [b](other.md#part-three) [c](#nope)\n"
	if err := os.WriteFile(page, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	dead := deadLinks(t, page)
	if len(dead) != 3 {
		t.Fatalf("found %d dead links, want 3 (missing.md, #part-three, #nope):\n%s", len(dead), strings.Join(dead, "\n"))
	}
	for i, want := range []string{"no file", "#part-three", "#nope"} {
		if !strings.Contains(dead[i], want) {
			t.Errorf("dead link %d: %q, want %q in it", i, dead[i], want)
		}
	}
}

// namesRow is one row of README's "What names you will see".
type namesRow struct{ situation, format, name string }

// readmeNamesTable parses the table under README's "## What names you
// will see": each row's situation, template and the name it shows.
func readmeNamesTable(t *testing.T, readme string) (header string, rows []namesRow) {
	t.Helper()
	_, sec, ok := strings.Cut(readme, "\n## What names you will see\n")
	if !ok {
		t.Fatal(`README.md has no "## What names you will see" section`)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	for _, l := range strings.Split(sec, "\n") {
		if !strings.HasPrefix(l, "|") {
			continue
		}
		cells := tableCells(l)
		if len(cells) != 3 {
			t.Fatalf("README's names table: row %q has %d cells, want 3", l, len(cells))
		}
		switch {
		case header == "":
			header = l
		case strings.Trim(l, "|-") == "":
		default:
			rows = append(rows, namesRow{cells[0], code(cells[1]), code(cells[2])})
		}
	}
	return header, rows
}

// tableCells splits a markdown table row at its unescaped pipes, and
// unescapes the pipes within cells.
func tableCells(row string) []string {
	row = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(row), "|"), "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(row); i++ {
		switch {
		case row[i] == '\\' && i+1 < len(row) && row[i+1] == '|':
			cur.WriteByte('|')
			i++
		case row[i] == '|':
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(row[i])
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

// code is the first `code span` of a cell.
func code(cell string) string {
	if _, rest, ok := strings.Cut(cell, "`"); ok {
		if c, _, ok := strings.Cut(rest, "`"); ok {
			return c
		}
	}
	return ""
}

// agents are the agents README's names table shows, by the name a person
// knows them by: herdr's agent id and the process herdr sees.
var agents = map[string]struct {
	id   string
	argv []string
}{
	"Claude Code": {"claude", []string{"node", "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js"}},
	"pi":          {"pi", []string{"pi"}},
}

// situation builds one kind of README row in a fresh workspace, from the
// values the pattern took out of the row's first cell.
type situation struct {
	pattern *regexp.Regexp
	build   func(t *testing.T, w *namesWorld, m []string)
}

var situations = []situation{
	{regexp.MustCompile("^`([^`]+)` started in `([^`]+)`$"), func(t *testing.T, w *namesWorld, m []string) {
		w.open(t, m[2])
		w.srv.SetForeground(w.pane, herdrsim.Proc{Argv: strings.Fields(m[1])})
	}},
	{regexp.MustCompile("^`([^`]+)`$"), func(t *testing.T, w *namesWorld, m []string) {
		w.open(t, "~/work")
		w.srv.SetForeground(w.pane, herdrsim.Proc{Argv: strings.Fields(m[1])})
	}},
	{regexp.MustCompile("^a shell at its prompt in `([^`]+)`$"), func(t *testing.T, w *namesWorld, m []string) {
		w.open(t, m[1])
	}},
	{regexp.MustCompile("^(.+) (idle|working|blocked|done) in `([^`]+)`$"), func(t *testing.T, w *namesWorld, m []string) {
		w.open(t, m[3])
		w.agent(t, m[1], herdr.AgentStatus(m[2]))
	}},
	{regexp.MustCompile("^(.+) (idle|working|blocked|done) on `([^`]+)`$"), func(t *testing.T, w *namesWorld, m []string) {
		w.open(t, "~/work")
		w.agent(t, m[1], herdr.AgentStatus(m[2]))
		w.srv.SetTitle(w.pane, m[3])
	}},
	{regexp.MustCompile("^a shell in `([^`]+)` on branch `([^`]+)`$"), func(t *testing.T, w *namesWorld, m []string) {
		dir := w.open(t, m[1])
		if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/"+m[2]+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}},
	{regexp.MustCompile("^a tab a person named `([^`]+)`$"), func(t *testing.T, w *namesWorld, m []string) {
		w.open(t, "~/work")
		w.srv.HumanRename(w.tab, m[1])
	}},
}

// namesWorld is one row's herdr: a workspace of one tab, and a home.
type namesWorld struct {
	srv       *herdrsim.Server
	home      string
	tab, pane string
}

// open makes the workspace with its pane in dir (~ is the home), and the
// folder itself.
func (w *namesWorld) open(t *testing.T, dir string) string {
	t.Helper()
	if rest, ok := strings.CutPrefix(dir, "~/"); ok {
		dir = filepath.Join(w.home, rest)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	_, w.tab, w.pane = w.srv.NewWorkspace("work", dir)
	return dir
}

func (w *namesWorld) agent(t *testing.T, name string, status herdr.AgentStatus) {
	t.Helper()
	a, ok := agents[name]
	if !ok {
		t.Fatalf("README names agent %q, which this test does not know", name)
	}
	w.srv.SetForeground(w.pane, herdrsim.Proc{Argv: a.argv})
	w.srv.SetAgent(w.pane, a.id, status)
}

// TestReadmeNames runs every row of README's names table: it builds the
// row's situation in herdr's simulator, runs `once --apply` with the
// row's template, and wants the tab named as the row says. A row no
// situation here builds fails, as does a name the code does not give.
func TestReadmeNames(t *testing.T) {
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	header, rows := readmeNamesTable(t, string(raw))
	if cells := tableCells(header); len(rows) < 6 || cells[0] != "in the tab" || cells[1] != "template" || cells[2] != "name" {
		t.Fatalf("README's names table: header %q and %d rows, want | in the tab | template | name | and six rows or more", header, len(rows))
	}
	for _, r := range rows {
		t.Run(r.situation, func(t *testing.T) {
			if got := nameOf(t, r); got != r.name {
				t.Errorf("README says %q with %q names the tab %q; the code names it %q", r.situation, r.format, r.name, got)
			}
		})
	}
}

// nameOf builds r's situation and returns the tab's label after `once
// --apply --format` with r's template.
func nameOf(t *testing.T, r namesRow) string {
	t.Helper()
	w := &namesWorld{srv: herdrtest.Start(t), home: t.TempDir()}
	t.Setenv("HOME", w.home)
	t.Setenv("HERDR_SOCKET_PATH", w.srv.SocketPath())
	built := false
	for _, s := range situations {
		if m := s.pattern.FindStringSubmatch(r.situation); m != nil {
			s.build(t, w, m)
			built = true
			break
		}
	}
	if !built {
		t.Fatalf("README's names table: no situation here builds %q", r.situation)
	}
	if r.format == "" || r.name == "" {
		t.Fatalf("README's names table: row %q has no `template` or no `name`", r.situation)
	}
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"once", "--apply", "--format", r.format, "--state", filepath.Join(t.TempDir(), "state.json")}, &stdout, &stderr); code != 0 {
		t.Fatalf("once --apply: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	tab, ok := w.srv.Tab(w.tab)
	if !ok {
		t.Fatalf("tab %s is gone", w.tab)
	}
	return tab.Label
}
