// Package manpage renders a kong command-line grammar as a section 1
// manual page, through mango-kong (mango and roff): every command and
// flag, each flag with its default and environment variable, hidden ones
// left out, then the sections a page adds. The page is a function of the
// grammar and of Page: no clock, no map order, so two renders of one
// grammar are the same bytes.
package manpage

import (
	"slices"
	"strings"
	"time"

	"github.com/alecthomas/kong"
	mangokong "github.com/alecthomas/mango-kong"
	"github.com/muesli/mango"
	"github.com/muesli/roff"
)

// Page is what a page says besides the grammar.
type Page struct {
	Source      string    // the footer's program and version
	Date        time.Time // the page's date
	Description string    // the DESCRIPTION section, paragraphs one a line
	// ConfigKey reports whether a flag can be set in a config file under
	// its own name; nil: none can.
	ConfigKey func(flag string) bool
	Sections  []Section // after ENVIRONMENT, in order
}

// Section is one more section of the page.
type Section struct{ Name, Text string }

// Render is the page of app.
func Render(app *kong.Application, p Page) string {
	man := mangokong.NewManPage(1, app).WithLongDescription(p.Description)
	dressFlags(&man.Root, app.Node, p.ConfigKey)
	man = man.WithSection("Environment", environment(app))
	for _, s := range p.Sections {
		man = man.WithSection(s.Name, s.Text)
	}
	return man.Build(&writer{Document: roff.NewDocument(), source: p.Source, date: p.Date})
}

// dressFlags walks mango's commands beside kong's nodes, which mango-kong
// made them from (keyed by their summaries), dropping hidden flags and
// adding each flag's default, environment variable and config key to its
// text.
func dressFlags(cmd *mango.Command, node *kong.Node, configKey func(string) bool) {
	for _, f := range node.Flags {
		key := strings.TrimPrefix(f.Summary(), "--")
		if f.Hidden {
			delete(cmd.Flags, key)
			continue
		}
		mf := cmd.Flags[key]
		mf.Usage = flagText(f, configKey != nil && f.Name != "help" && configKey(f.Name))
		cmd.Flags[key] = mf
	}
	for _, child := range node.Children {
		if sub, ok := cmd.Commands[child.Summary()]; ok && !child.Hidden {
			dressFlags(sub, child, configKey)
		}
	}
}

// flagText is a flag's help with its default, environment variable and,
// when it has one, config key.
func flagText(f *kong.Flag, configKey bool) string {
	parts := []string{strings.TrimSpace(f.Help)}
	if f.HasDefault && f.Default != "" {
		parts = append(parts, "Default: "+f.Default+".")
	}
	if env := Env(f); env != "" {
		parts = append(parts, "Environment: "+env+".")
	}
	if configKey {
		parts = append(parts, "Config key: "+f.Name+".")
	}
	return strings.Join(parts, " ")
}

// Env is the environment variable that sets f, or "".
func Env(f *kong.Flag) string {
	if len(f.Envs) == 0 || f.Envs[0] == "-" {
		return ""
	}
	return f.Envs[0]
}

// environment lists every environment variable a visible flag reads, with
// the flag, in the grammar's order.
func environment(app *kong.Application) string {
	lines := []string{"Each flag can also be set by its environment variable; a flag on the command line wins over it, and it wins over the config file:"}
	var seen []string
	_ = kong.Visit(app, func(n kong.Visitable, next kong.Next) error {
		if node, ok := n.(*kong.Node); ok && node.Hidden {
			return nil
		}
		if f, ok := n.(*kong.Flag); ok && !f.Hidden {
			if env := Env(f); env != "" && !slices.Contains(seen, env) {
				seen = append(seen, env)
				lines = append(lines, "* "+env+"  --"+f.Name)
			}
		}
		return next(nil)
	})
	return strings.Join(lines, "\n")
}

// writer is roff's document with the page's own date and source in its
// heading (mango would stamp the clock's), and with text kept from being
// read as a format: roff v0.1.0 prints plain text through Printf.
type writer struct {
	*roff.Document
	source string
	date   time.Time
}

// Heading writes .TH with the page's date, and its source where mango puts
// the description: the header then names the version.
func (w *writer) Heading(section uint, title, _ string, _ time.Time) {
	w.Document.Heading(section, title, w.source, w.date)
}

// Text writes text.
func (w *writer) Text(text string) { w.Document.Text(noFormat(text)) }

// TextBold writes text in bold.
func (w *writer) TextBold(text string) { w.Document.TextBold(noFormat(text)) }

// TextItalic writes text in italic.
func (w *writer) TextItalic(text string) { w.Document.TextItalic(noFormat(text)) }

// noFormat doubles the % of every line roff prints as a format; it prints
// list items ("*" lines) through %s, so those stay as they are.
func noFormat(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "*") {
			lines[i] = strings.ReplaceAll(l, "%", "%%")
		}
	}
	return strings.Join(lines, "\n")
}
