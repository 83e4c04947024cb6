package realherdr

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestScreenDrawsWhatRatatuiWrites: the cells a frame writes, jumping the
// cursor between runs, end up where a terminal puts them; erasing, wide
// characters and the strings a terminal skips behave as in a terminal,
// and queries get their answers.
func TestScreenDrawsWhatRatatuiWrites(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
		replies  string
	}{
		{"moves and prints", "\x1b[2;3Hab\x1b[1;1Hx\x1b[3Cy", []string{"x   y", "  ab", ""}, ""},
		{"styles and modes change nothing", "\x1b[?1049h\x1b[1;38;5;4mhi\x1b[0m\x1b]0;title\x07\x1b]11;?\x1b\\!", []string{"hi!", "", ""}, ""},
		{"erase to end of line", "abcdef\x1b[1;3H\x1b[K", []string{"ab", "", ""}, ""},
		{"erase the display", "abc\r\ndef\x1b[2J", []string{"", "", ""}, ""},
		{"wide and combining", "🟡x\x1b[2;1He\u0301z", []string{"🟡x", "e\u0301z", ""}, ""},
		{"split utf-8", "\xe2\x94", []string{"", "", ""}, ""},
		{"queries", "\x1b[c\x1b[2;4H\x1b[6n\x1b[?u", []string{"", "", ""}, "\x1b[?62;22c\x1b[2;4R\x1b[?0u"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newScreen(3, 10)
			_, _ = s.Write([]byte(tc.in))
			if got := s.text(); strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("screen %q, want %q", got, tc.want)
			}
			if got := string(s.takeReplies()); got != tc.replies {
				t.Fatalf("replies %q, want %q", got, tc.replies)
			}
		})
	}
}

// TestModalOnFindsTheRenameModal: the title alone inside a box, with the
// input two lines below; the sidebar's border left of the box and a title
// in a pane's text do not count.
func TestModalOnFindsTheRenameModal(t *testing.T) {
	box := []string{
		" spaces  │      ┌────────────────┐",
		"         │      │rename tab      │",
		"         │      │                │",
		"         │      │   my tab       │",
	}
	for _, tc := range []struct {
		name         string
		lines        []string
		title, input string
		ok           bool
	}{
		{"open", box, ModalRenameTab, "my tab", true},
		{"workspace", []string{"│rename workspace│", "│ │", "│  ~ │"}, ModalRenameWorkspace, "~", true},
		{"in a pane's text", []string{"│$ echo rename tab", "│", "│x"}, "", "", false},
		{"none", []string{"│ 1  +", "", ""}, "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			title, input, ok := modalOn(tc.lines)
			if title != tc.title || input != tc.input || ok != tc.ok {
				t.Fatalf("modalOn = %q, %q, %v; want %q, %q, %v", title, input, ok, tc.title, tc.input, tc.ok)
			}
		})
	}
}

// TestRealHerdrTUIClientRenames: herdr's own client, attached in a pty,
// renames the active tab and workspace, keeps a cancelled modal's text
// out, and names a tab from the new-tab prompt; each shows through herdr's
// CLI as the label typed, without its surrounding blanks.
func TestRealHerdrTUIClientRenames(t *testing.T) {
	srv := startForTest(t)
	defer func() {
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	}()
	var made struct {
		Result struct {
			Workspace struct {
				ID string `json:"workspace_id"`
			} `json:"workspace"`
			Tab struct {
				ID string `json:"tab_id"`
			} `json:"tab"`
		} `json:"result"`
	}
	out, err := srv.CLI("workspace", "create", "--cwd", srv.Home)
	if err != nil || json.Unmarshal(out, &made) != nil {
		t.Fatalf("workspace create: %s %v", out, err)
	}
	ws, tab := made.Result.Workspace.ID, made.Result.Tab.ID
	c, err := srv.OpenClient()
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := c.Close(); err != nil {
			t.Error(err)
		}
	}()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.RenameTab(tab, "  notes "))
	must(c.PrepareRenameTab(tab, "never"))
	must(c.Cancel())
	must(c.RenameWorkspace(ws, "proj"))
	fresh, err := c.NewTab("fresh")
	must(err)
	out, err = srv.CLI("tab", "list")
	must(err)
	for _, want := range []string{`"label":"notes","number":1`, `"label":"fresh"`, `"tab_id":"` + fresh + `"`} {
		if !strings.Contains(string(out), want) {
			t.Fatalf("tab list %s lacks %s", out, want)
		}
	}
	if out, err = srv.CLI("workspace", "list"); err != nil || !strings.Contains(string(out), `"label":"proj"`) {
		t.Fatalf("workspace list %s (%v), want the label proj", out, err)
	}
}
