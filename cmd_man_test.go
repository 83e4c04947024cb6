package main

import (
	"bytes"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"

	"github.com/herdrtabrenamer/herdrtabrenamer/manpage"
)

// troffText is s as roff writes plain text: a backslash as \e, a dot as \&.
func troffText(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\e`), ".", `\&.`)
}

// renderManPage is `herdrtabrenamer man --date 2026-01-01`.
func renderManPage(t *testing.T) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := Main([]string{"man", "--date", "2026-01-01"}, &out, &errb); code != 0 {
		t.Fatalf("man: exit %d: %s", code, errb.String())
	}
	return out.String()
}

// TestManPageHasEveryFlag: every command and every flag of the grammar has
// its entry in the manual page, each flag under its own command with its
// help, default and environment variable; hidden ones have none.
func TestManPageHasEveryFlag(t *testing.T) {
	page := renderManPage(t)
	parser, _, _, err := newParser(nil, &bytes.Buffer{}, &bytes.Buffer{}, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	// The page lists the top level's flags, then each command with its own
	// flags, commands in name order.
	blocks := map[string]string{}
	rest, _, ok := strings.Cut(page, "\n.SH COMMANDS\n")
	if !ok {
		t.Fatalf("the page has no COMMANDS section:\n%s", page)
	}
	blocks[""] = rest
	commands := page[len(rest):]
	for _, n := range parser.Model.Children {
		head := `\fB` + troffText(n.Summary()) + `\fP`
		i := strings.Index(commands, head)
		if n.Hidden {
			if i >= 0 || strings.Contains(page, `\fB`+n.Name+" ") {
				t.Errorf("the hidden command %s has an entry", n.Name)
			}
			continue
		}
		if i < 0 {
			t.Errorf("command %s has no entry %q", n.Name, head)
			continue
		}
		block := commands[i+len(head):]
		if j := strings.Index(block, "\n.TP\n\\fB"+strings.TrimSpace(troffText(nextCommand(parser.Model, n)))); j >= 0 && nextCommand(parser.Model, n) != "" {
			block = block[:j]
		}
		blocks[n.Name] = block
	}
	check := func(cmd string, flags []*kong.Flag) {
		for _, f := range flags {
			entry := `--` + troffText(strings.TrimPrefix(f.Summary(), "--")) + `\fP`
			has := strings.Contains(blocks[cmd], entry)
			switch {
			case f.Hidden && strings.Contains(page, "--"+f.Name):
				t.Errorf("%s: the hidden flag --%s has an entry", cmd, f.Name)
			case f.Hidden:
			case !has:
				t.Errorf("%s: flag --%s has no entry %q under its command", cmd, f.Name, entry)
			default:
				text := blocks[cmd][strings.Index(blocks[cmd], entry)+len(entry):]
				text, _, _ = strings.Cut(text, "\n.TP")
				for _, want := range []string{firstWords(f.Help), manpage.Env(f)} {
					if want != "" && !strings.Contains(text, troffText(want)) {
						t.Errorf("%s: --%s's entry lacks %q: %q", cmd, f.Name, want, text)
					}
				}
			}
		}
	}
	check("", parser.Model.Flags)
	for _, n := range parser.Model.Children {
		if !n.Hidden {
			check(n.Name, n.Flags)
		}
	}
}

// nextCommand is the summary of the command listed after n (the page
// lists them in name order), or "".
func nextCommand(app *kong.Application, n *kong.Node) string {
	next := ""
	for _, c := range app.Children {
		if !c.Hidden && c.Summary() > n.Summary() && (next == "" || c.Summary() < next) {
			next = c.Summary()
		}
	}
	return next
}

// firstWords is the start of a help text, before anything roff might
// break differently.
func firstWords(help string) string {
	words := strings.Fields(help)
	return strings.Join(words[:min(3, len(words))], " ")
}

// TestManPageIsTheSameEveryTime: the page is a function of the grammar, the
// version and --date: no clock, no map order.
func TestManPageIsTheSameEveryTime(t *testing.T) {
	first := renderManPage(t)
	for range 5 {
		if again := renderManPage(t); again != first {
			t.Fatal("two renders of the page differ")
		}
	}
	if head, _, _ := strings.Cut(first, "\n"); head != `.TH HERDRTABRENAMER 1 "2026-01-01" "herdrtabrenamer" "herdrtabrenamer `+versionString()+`"` {
		t.Errorf("heading %q", head)
	}
}

// TestManDate: --date, else the commit time Go recorded, else a one-line
// error that says what to give.
func TestManDate(t *testing.T) {
	withTime := &debug.BuildInfo{Settings: []debug.BuildSetting{{Key: "vcs.time", Value: "2026-12-03T06:52:08Z"}}}
	tests := []struct {
		name, flag string
		bi         *debug.BuildInfo
		want, err  string
	}{
		{"flag", "2026-01-01", withTime, "2026-01-01", ""},
		{"commit time", "", withTime, "2026-12-03", ""},
		{"neither", "", &debug.BuildInfo{}, "", "give the page's date with --date YYYY-MM-DD"},
		{"no build info", "", nil, "", "give the page's date with --date YYYY-MM-DD"},
		{"bad flag", "1 Jan 2026", withTime, "", `--date "1 Jan 2026": want YYYY-MM-DD`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := manDate(tt.flag, tt.bi)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one with %q", err, tt.err)
				}
				return
			}
			if err != nil || d.Format(time.DateOnly) != tt.want {
				t.Fatalf("%v, %v; want %s", d, err, tt.want)
			}
		})
	}
}

// TestHelpStaysShort: the manual page is a command of its own, hidden;
// --help and help COMMAND do not show it.
func TestHelpStaysShort(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"help"}, {"help", "run"}} {
		var out bytes.Buffer
		if code := Main(args, &out, &bytes.Buffer{}); code != 0 {
			t.Fatalf("%q: exit %d", args, code)
		}
		if strings.Contains(out.String(), ".TH") {
			t.Errorf("%q shows the manual page:\n%s", args, out.String())
		}
		for _, line := range strings.Split(out.String(), "\n") {
			if f := strings.Fields(line); len(f) > 0 && f[0] == "man" {
				t.Errorf("%q lists the hidden command: %q", args, line)
			}
		}
	}
}
