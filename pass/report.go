package pass

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/herdrtabrenamer/herdrtabrenamer/owner"
	"github.com/herdrtabrenamer/herdrtabrenamer/renamer"
)

// Report is everything a pass decided about one tab: what `explain`
// shows and what `once` and the dry run print.
type Report struct {
	TabID string `json:"tab_id"`
	// PaneID is set on a pane's report (--pane-format): the pane named,
	// TabID its tab.
	PaneID    string `json:"pane_id,omitempty"`
	Workspace string `json:"workspace_id"`
	Label     string `json:"label"`
	Want      string `json:"want"`
	Verdict   string `json:"verdict"` // Judged, as shown
	// Judged is whose the label is; zero (owner.Human) when the pass did
	// not judge it.
	Judged     owner.Verdict `json:"-"`
	Action     string        `json:"action"` // renamed, would rename, keep, failed
	Lead       string        `json:"lead_pane,omitempty"`
	LeadWhy    string        `json:"lead_why,omitempty"`
	Program    string        `json:"program,omitempty"`
	ProgramWhy string        `json:"program_why,omitempty"`
	Rule       string        `json:"rule,omitempty"`
	// SessionWhy says why {session} is empty when the name needs it: no
	// agent session, or one whose title cannot be read.
	SessionWhy string `json:"session_why,omitempty"`
	// SessionFrom says what {session} is and where it was read, when the
	// name needs it and it has a value.
	SessionFrom string            `json:"session_from,omitempty"`
	Tokens      map[string]string `json:"tokens"`
	Error       string            `json:"error,omitempty"`
}

// Subject is what the report is about, as a person reads it: "tab
// w1:t2" or "pane w1:p3".
func (r Report) Subject() string {
	if r.PaneID != "" {
		return "pane " + r.PaneID
	}
	return "tab " + r.TabID
}

// Named is how the dry run and once print what they rename: a tab by its
// id alone, as they always have, a pane as "pane w1:p3".
func (r Report) Named() string {
	if r.PaneID != "" {
		return "pane " + r.PaneID
	}
	return r.TabID
}

// judge records whose the tab's label is.
func (r *Report) judge(v owner.Verdict) { r.Verdict, r.Judged = v.String(), v }

// Actions a pass takes on a tab.
const (
	ActionRenamed     = "renamed"
	ActionWouldRename = "would rename"
	ActionKeep        = "keep"
	ActionFailed      = "failed"
)

// Stats count the socket work of one pass, for the figures the daemon is
// judged by (connections per idle pass: 1; process_info: 0).
type Stats struct {
	ProcessInfoCalls int
	Renames          int
	// Hedges counts reads that went out a second time because the first
	// was late (docs/herdr.md §2); only passes someone waits for hedge.
	Hedges int
	// LocalReads counts programs read from this machine's /proc instead
	// of asking herdr (the pane's shell is ours to look at).
	LocalReads int
}

// conclude takes what the renamer did with the tab's rename into the
// report.
func (r *Report) conclude(x *renamer.Rename) {
	if x.Now != "" {
		r.Label = x.Now
	}
	if x.Judged {
		r.judge(x.Verdict)
	}
	switch x.Out {
	case renamer.Done:
		r.Action = ActionRenamed
		if x.Kind == renamer.GiveBack {
			r.Action, r.Label = ActionKeep, x.Want
		}
	case renamer.LockedBack:
		r.Action, r.Label = ActionKeep, x.Shows
	case renamer.Refused, renamer.InFlight:
		r.Action, r.Error = ActionFailed, errText(x.Err)
	case renamer.Deferred, renamer.Held:
		r.Action, r.Error = ActionKeep, errText(x.Err)
	case renamer.Landed:
		r.Action = ActionKeep
	default:
		r.Action = ActionKeep
		if x.Err != nil {
			r.Action, r.Error = ActionFailed, x.Err.Error()
		}
	}
}

// errText is err's text, "" for none.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// EscapeText makes the free-text fields safe to print: they quote argv,
// folder names and herdr's errors, which programs and people control, and
// `explain` and the dry run print them as they are. Label, Want and Tokens
// stay exact (they are data, printed quoted).
func (r *Report) EscapeText() {
	for _, s := range []*string{&r.Program, &r.ProgramWhy, &r.Rule, &r.LeadWhy, &r.SessionWhy, &r.SessionFrom, &r.Error} {
		*s = escapeControls(*s)
	}
}

// escapeControls writes control and invisible format characters as Go
// escapes (\x1b, \u200b) so none reaches a terminal.
func escapeControls(s string) string {
	if !strings.ContainsFunc(s, isUnsafeRune) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !isUnsafeRune(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			fmt.Fprintf(&b, "\\u%04x", r)
		}
	}
	return b.String()
}

func isUnsafeRune(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == utf8.RuneError
}

// Why says in one line why the tab gets its name: its lead pane, program,
// rule and whose its label was; a pane's name comes from the pane itself.
func (r Report) Why() string {
	s := "lead " + r.LeadWhy
	if r.PaneID != "" {
		s = "named from " + r.LeadWhy
	}
	if r.Program != "" {
		s += "; program " + r.Program
	}
	if r.Rule != "" {
		s += "; " + r.Rule
	}
	return s + "; label was " + r.Verdict
}
