package session

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/herdrtabrenamer/herdrtabrenamer/herdr"
)

// TestAFreshReadSeesTheTitleTheDaemonShows: a daemon reading a transcript
// since its title was in the tail keeps the title as the transcript
// grows; a fresh read (explain, a daemon started later) reads back from
// the end, bounded, until the title is settled, and so names it the same
// way: a person's name older than the agent's newer title still wins.
// Past maxBack it is not seen, and Why says how much was read.
func TestAFreshReadSeesTheTitleTheDaemonShows(t *testing.T) {
	for _, tc := range []struct {
		name     string
		before   string // lines before the conversation
		pad      int    // bytes of conversation after them
		after    string // lines after it
		want     string
		why      string // words Why holds
		maxBytes int64  // the fresh read's bound
	}{
		{"a name 1 MiB back", customTitle("auth redirect"), 1 << 20, "", "auth redirect", "name a person gave", 2 << 20},
		{"a name 2 MiB back, the agent's title since", customTitle("auth redirect"), 2 << 20, aiTitle("Fix the login"),
			"auth redirect", "name a person gave", 3 << 20},
		{"the agent's title in the tail, no name", aiTitle("Fix the login"), 1 << 20, aiTitle("Fix the logout"),
			"Fix the logout", "title the agent gave", maxBack + MaxRead},
		{"a name 5 MiB back", customTitle("auth redirect"), 5 << 20, "", "", "no title entry in its last 4.0 MiB", maxBack + MaxRead},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			p := w.put(claudeRel(claudeSession), []byte(tc.before))
			ss := newSessionsIn(t, w.home)
			pane := claudePane("w1:p1", claudeSession, paneDir)
			ss.Titles([]herdr.Pane{pane}) // read while the title is in the tail
			appendTo(t, p, string(conversation(tc.pad))+tc.after)
			daemon := ss.Titles([]herdr.Pane{pane})[pane.ID]

			fresh := newSessionsIn(t, w.home)
			got := fresh.Titles([]herdr.Pane{pane})[pane.ID]
			if got != tc.want {
				t.Errorf("a fresh read: %q, want %q", got, tc.want)
			}
			if tc.want != "" && daemon != got {
				t.Errorf("the daemon shows %q, a fresh read %q", daemon, got)
			}
			why := fresh.Why(pane.ID)
			if !strings.Contains(why, tc.why) || (tc.want != "" && !strings.Contains(why, filepath.Base(p))) {
				t.Errorf("Why = %q, want it to say %q", why, tc.why)
			}
			if n := fresh.BytesRead(); n > tc.maxBytes {
				t.Errorf("the fresh read read %d bytes, bound %d", n, tc.maxBytes)
			}
		})
	}
}

func aiTitle(title string) string {
	return `{"type":"ai-title","aiTitle":"` + title + `","sessionId":"s"}` + "\n"
}

// TestWhySaysWhySessionIsWhatItIs: explain's line for {session}, for a
// title of each kind and for each reason there is none.
func TestWhySaysWhySessionIsWhatItIs(t *testing.T) {
	w := newWorld(t)
	w.put(claudeRel(claudeSession), []byte(customTitle("auth redirect")))
	opencode := stores["opencode"]
	opencode.place(w, opencodeRename)
	ss := newSessionsIn(t, w.home)
	panes := []herdr.Pane{
		claudePane("w1:p1", claudeSession, paneDir),
		{ID: "w1:p2", Agent: "opencode", Cwd: paneDir, AgentSession: &herdr.AgentSession{Source: "herdr:opencode", Agent: "opencode", Kind: herdr.SessionKindID, Value: opencodeID}},
		claudePane("w1:p3", "7b2e9c41-0d3a-4f6e-9a15-8c4d2e1f0b37", paneDir),
		{ID: "w1:p4", Agent: "claude"},
		{ID: "w1:p5"},
		{ID: "w1:p6", Agent: "gemini", AgentSession: &herdr.AgentSession{Source: "herdr:gemini", Agent: "gemini", Kind: herdr.SessionKindID, Value: "x"}},
	}
	ss.Titles(panes)
	for id, want := range map[string]string{
		"w1:p1": "the name a person gave the session, read from " + filepath.Join(w.home, claudeRel(claudeSession)),
		"w1:p2": "the session's title (a person's name or the agent's own",
		"w1:p3": "no session file with that id",
		"w1:p4": "herdr reports no session for its claude",
		"w1:p5": "no agent runs in the pane",
		"w1:p6": "gemini's session titles are not read",
	} {
		if why := ss.Why(id); !strings.Contains(why, want) {
			t.Errorf("Why(%s) = %q, want it to say %q", id, why, want)
		}
	}
}
