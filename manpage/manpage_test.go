package manpage

import (
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"
)

// TestRenderKeepsPercentSigns: help text reaches the page as written,
// though roff v0.1.0 prints plain text as a format.
func TestRenderKeepsPercentSigns(t *testing.T) {
	var cli struct {
		Load int `help:"Stop at 90% of a core; 100%s is never %d."`
	}
	parser, err := kong.New(&cli, kong.Name("x"), kong.Description("A 5% test."))
	if err != nil {
		t.Fatal(err)
	}
	page := Render(parser.Model, Page{Source: "x 1", Date: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Description: "It is 50% done."})
	for _, want := range []string{`Stop at 90% of a core; 100%s is never %d\&.`, `x - A 5% test\&.`, `It is 50% done\&.`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
	if strings.Contains(page, "%!") {
		t.Errorf("a format verb was read in the text:\n%s", page)
	}
}

// TestRenderDressesFlags: a flag's entry carries its default, its
// environment variable and, when ConfigKey says so, its config key; a
// hidden flag and a hidden command have no entry; the heading carries the
// page's date and source.
func TestRenderDressesFlags(t *testing.T) {
	var cli struct {
		Poll   time.Duration `help:"How often." default:"3s" env:"X_POLL"`
		Secret bool          `help:"Not shown." hidden:""`
		Run    struct {
			Apply bool `help:"Rename." env:"X_APPLY"`
		} `cmd:"" help:"Run it."`
		Man struct{} `cmd:"" hidden:"" help:"Hidden."`
	}
	parser, err := kong.New(&cli, kong.Name("x"), kong.Description("X."))
	if err != nil {
		t.Fatal(err)
	}
	page := Render(parser.Model, Page{Source: "x v1", Date: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC),
		ConfigKey: func(name string) bool { return name == "poll" },
		Sections:  []Section{{"Files", "x.toml"}}})
	for _, want := range []string{
		`.TH X 1 "2026-01-02" "x" "x v1"`,
		"How often\\&. Default: 3s\\&. Environment: X_POLL\\&. Config key: poll\\&.",
		"Rename\\&. Environment: X_APPLY\\&.\n",
		"X_POLL  --poll", ".SH FILES\nx\\&.toml",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q:\n%s", want, page)
		}
	}
	for _, unwanted := range []string{"secret", "Not shown", "Hidden", `\fBman`} {
		if strings.Contains(page, unwanted) {
			t.Errorf("page shows hidden %q:\n%s", unwanted, page)
		}
	}
}
