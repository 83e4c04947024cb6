package main

import (
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/alecthomas/kong"

	"github.com/herdrtabrenamer/herdrtabrenamer/config"
	"github.com/herdrtabrenamer/herdrtabrenamer/manpage"
)

// ManCmd prints the manual page, made from this grammar (package
// manpage). It is hidden: the release builder asks a build of the
// released source for the page that the .deb, the archives and the
// Homebrew formula install. --help and `help COMMAND` stay the short form.
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

// manPage renders app as a section 1 manual page: its commands and flags,
// each flag with its default, environment variable and config key, then
// where the settings come from. source is the heading's program and
// version.
func manPage(app *kong.Application, source string, date time.Time) string {
	return manpage.Render(app, manpage.Page{
		Source: source, Date: date, Description: manDescription,
		ConfigKey: func(flag string) bool { return !config.Excluded[flag] },
		Sections: []manpage.Section{
			{Name: "Files", Text: manFiles},
			{Name: "See also", Text: "The README and docs/ of https://github.com/herdrtabrenamer/herdrtabrenamer"},
		},
	})
}

// manFiles is where the settings and the memory live.
const manFiles = `$XDG_CONFIG_HOME/herdrtabrenamer/config.toml (else ~/.config/herdrtabrenamer/config.toml): the config file, TOML; a flag that names its config key above can be set there (herdrtabrenamer status checks the file).
$XDG_STATE_HOME/herdrtabrenamer/ (else ~/.local/state/herdrtabrenamer/): with --state auto, one file per herdr server: the names it gave, the tabs people locked or released.
$XDG_RUNTIME_DIR/herdrtabrenamer/ (else herdrtabrenamer/run in the user's cache folder): the running daemon's nudge socket and records.`
