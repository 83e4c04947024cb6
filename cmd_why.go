package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/herdrtabrenamer/herdrtabrenamer/pass"
	"strings"
)

// notify is `explain --notify`, the plugin's "Why this name?" action. A
// plugin action has no terminal (herdr keeps its output in the plugin log
// only) and the manifest cannot show text, so the answer goes out as a
// herdr notification (notification.show); stdout gets it too, for the log.
func (c *ExplainCmd) notify(g *Globals, env *runEnv) error {
	if c.JSON {
		return withExit(2, errors.New("explain: --notify and --json do not go together"))
	}
	if c.TabID == "" && c.Pane == "" {
		if c.TabID = env.getenv("HERDR_TAB_ID"); c.TabID == "" {
			return withExit(2, errors.New("explain --notify: no TAB_ID given and $HERDR_TAB_ID is not set (herdr sets it for plugin actions; or name the tab: w1:t2)"))
		}
	}
	ctx := context.Background()
	d, reps, err := c.explain(ctx, g, env)
	if err != nil {
		return err
	}
	title, body := whyNotification(reps[0])
	fmt.Fprintf(env.stdout, "%s\n%s\n", title, body)
	var res struct {
		Shown  bool   `json:"shown"`
		Reason string `json:"reason"`
	}
	params := map[string]string{"title": title, "body": body}
	if err := d.Client().Call(ctx, "notification.show", params, &res); err != nil {
		return withExit(1, fmt.Errorf("explain --notify: %w", err))
	}
	if !res.Shown {
		// herdr answers why: toasts off in its config (its default), no
		// client attached, rate limited or busy. The text above is in the
		// plugin log.
		hint := ""
		if res.Reason == "disabled" {
			hint = `: herdr's toasts are off, set delivery = "herdr" under [ui.toast] in herdr's config.toml`
		}
		return withExit(1, fmt.Errorf("explain --notify: herdr did not show the notification (%s)%s; see `herdr plugin log list --plugin herdrtabrenamer`", res.Reason, hint))
	}
	return nil
}

// whyNotification is one tab's decision in a toast's few words: the title
// says what the name is and whose, the body why.
func whyNotification(r pass.Report) (title, body string) {
	title = fmt.Sprintf("%q is %s", r.Label, r.Verdict)
	if r.Label == "" {
		title = fmt.Sprintf("%s (empty label) is %s", r.Subject(), r.Verdict)
	}
	var why []string
	switch {
	case r.Want == "":
		why = append(why, "no name wanted")
	case r.Want == r.Label:
		why = append(why, "wanted as it is")
	default:
		why = append(why, fmt.Sprintf("wants %q (%s)", r.Want, r.Action))
	}
	if r.PaneID == "" {
		why = append(why, fmt.Sprintf("lead pane %s: %s", r.Lead, r.LeadWhy))
	}
	if r.Program != "" {
		why = append(why, fmt.Sprintf("program %s (%s)", r.Program, r.ProgramWhy))
	}
	if r.Rule != "" {
		why = append(why, "rule "+r.Rule)
	}
	return title, strings.Join(why, "; ")
}
