package main

import (
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/alecthomas/kong"
	mangokong "github.com/alecthomas/mango-kong"
	"github.com/muesli/mango"
	"github.com/muesli/roff"

	"github.com/herdrtabrenamer/herdrtabrenamer/config"
)

// ManCmd prints the manual page, made from this grammar by mango-kong. It
// is hidden: the release builder asks a build of the released source for
// the page that the .deb, the archives and the Homebrew formula install.
// --help and `help COMMAND` stay the short form.
type ManCmd struct {
	Date string `help:"The page's date, YYYY-MM-DD (default: the commit time Go recorded in this build)." placeholder:"YYYY-MM-DD"`
}

// Run prints the page. A page carries a date; it never comes from the
// clock, so two builds of one source print the same bytes.
func (c *ManCmd) Run(kctx *kong.Context, env *runEnv) error {
	bi, _ := debug.ReadBuildInfo()
	date, err := manDate(c.Date, bi)
	if err != nil {
		return withExit(2, err)
	}
	_, err = fmt.Fprint(env.stdout, manPage(kctx.Model, "herdrtabrenamer "+versionString(), date))
	return err
}

// manDate is --date, else the commit time bi recorded.
func manDate(flag string, bi *debug.BuildInfo) (time.Time, error) {
	if flag != "" {
		d, err := time.Parse(time.DateOnly, flag)
		if err != nil {
			return time.Time{}, fmt.Errorf("man: --date %q: want YYYY-MM-DD", flag)
		}
		return d, nil
	}
	if bi != nil {
		for _, s := range bi.Settings {
			if s.Key == "vcs.time" {
				if d, err := time.Parse(time.RFC3339, s.Value); err == nil {
					return d.UTC(), nil
				}
			}
		}
	}
	return time.Time{}, errors.New("man: this build recorded no commit time: give the page's date with --date YYYY-MM-DD")
}

// manDescription opens the page, after its one-line name.
const manDescription = `herdrtabrenamer names herdr's tabs (and, when asked, its panes) after what runs inside them: the program, the folder, the git repository, the ssh host, an agent and its status. It talks to herdr over herdr's socket API, from outside herdr, and never touches a name a person chose.
Start with herdrtabrenamer init plugin (or a shell hook from herdrtabrenamer init SHELL), check the setup with herdrtabrenamer status, and see what each tab would be called with herdrtabrenamer explain. Every command has its short help: herdrtabrenamer help COMMAND.`

// manPage renders app as a section 1 manual page: mango-kong's commands
// and flags (hidden flags left out, each flag's default, environment
// variable and config key added), then where the settings come from.
// source is the footer's program and version.
func manPage(app *kong.Application, source string, date time.Time) string {
	man := mangokong.NewManPage(1, app).WithLongDescription(manDescription)
	dressFlags(&man.Root, app.Node)
	man = man.WithSection("Environment", manEnvironment(app)).
		WithSection("Files", manFiles).
		WithSection("See also", "The README and docs/ of https://github.com/herdrtabrenamer/herdrtabrenamer")
	return man.Build(&manWriter{Document: roff.NewDocument(), source: source, date: date})
}

// dressFlags walks mango's commands beside kong's nodes, which mango-kong
// made them from (keyed by their summaries), dropping hidden flags and
// adding to each flag's text what the reference table says of it.
func dressFlags(cmd *mango.Command, node *kong.Node) {
	for _, f := range node.Flags {
		key := strings.TrimPrefix(f.Summary(), "--")
		if f.Hidden {
			delete(cmd.Flags, key)
			continue
		}
		mf := cmd.Flags[key]
		mf.Usage = flagText(f)
		cmd.Flags[key] = mf
	}
	for _, child := range node.Children {
		if sub, ok := cmd.Commands[child.Summary()]; ok && !child.Hidden {
			dressFlags(sub, child)
		}
	}
}

// flagText is a flag's help with its default, environment variable and
// config key.
func flagText(f *kong.Flag) string {
	parts := []string{strings.TrimSpace(f.Help)}
	if f.HasDefault && f.Default != "" {
		parts = append(parts, "Default: "+f.Default+".")
	}
	if env := flagEnv(f); env != "" {
		parts = append(parts, "Environment: "+env+".")
	}
	if f.Name != "help" && !config.Excluded[f.Name] {
		parts = append(parts, "Config key: "+f.Name+".")
	}
	return strings.Join(parts, " ")
}

// flagEnv is the environment variable that sets f, or "".
func flagEnv(f *kong.Flag) string {
	if len(f.Envs) == 0 || f.Envs[0] == "-" {
		return ""
	}
	return f.Envs[0]
}

// manEnvironment lists every environment variable a flag reads, with the
// flag, in the grammar's order.
func manEnvironment(app *kong.Application) string {
	lines := []string{"Each flag can also be set by its environment variable; a flag on the command line wins over it, and it wins over the config file:"}
	var seen []string
	_ = kong.Visit(app, func(n kong.Visitable, next kong.Next) error {
		if node, ok := n.(*kong.Node); ok && node.Hidden {
			return nil
		}
		if f, ok := n.(*kong.Flag); ok && !f.Hidden {
			if env := flagEnv(f); env != "" && !slices.Contains(seen, env) {
				seen = append(seen, env)
				lines = append(lines, "* "+env+"  --"+f.Name)
			}
		}
		return next(nil)
	})
	return strings.Join(lines, "\n")
}

// manFiles is where the settings and the memory live.
const manFiles = `$XDG_CONFIG_HOME/herdrtabrenamer/config.toml (else ~/.config/herdrtabrenamer/config.toml): the config file, TOML; a flag that names its config key above can be set there (herdrtabrenamer status checks the file).
$XDG_STATE_HOME/herdrtabrenamer/ (else ~/.local/state/herdrtabrenamer/): with --state auto, one file per herdr server: the names it gave, the tabs people locked or released.
$XDG_RUNTIME_DIR/herdrtabrenamer/ (else herdrtabrenamer/run in the user's cache folder): the running daemon's nudge socket and records.`

// manWriter is roff's document with the page's own date and source in its
// heading (mango would stamp the clock's), and with user text kept from
// being read as a format: this roff version prints plain text through
// Printf.
type manWriter struct {
	*roff.Document
	source string
	date   time.Time
}

// Heading writes .TH with the page's date, and its source where mango puts
// the description: the footer then names the version.
func (w *manWriter) Heading(section uint, title, _ string, _ time.Time) {
	w.Document.Heading(section, title, w.source, w.date)
}

// Text writes text.
func (w *manWriter) Text(text string) { w.Document.Text(noFormat(text)) }

// TextBold writes text in bold.
func (w *manWriter) TextBold(text string) { w.Document.TextBold(noFormat(text)) }

// TextItalic writes text in italic.
func (w *manWriter) TextItalic(text string) { w.Document.TextItalic(noFormat(text)) }

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
