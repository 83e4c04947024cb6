package namer

import "github.com/herdrtabrenamer/herdrtabrenamer/herdr"

// PlanWorkspace plans a workspace's name the way Plan plans a tab's: from
// the workspace's active tab (herdr's active_tab_id, else its first tab),
// with that tab's lead pane, facts and rules. The workspace stands in for
// the tab where the two differ: {status} and {icon} are the workspace's
// agent status, {number} its sidebar position, and the caller sets
// Facts.Index to that position too. {workspace} is empty: a name made of
// the label it replaces would grow on every pass. tabs are the
// workspace's tabs in order, panes every pane by tab id; ok is false when
// there is no tab with panes to name it after.
func (n *Namer) PlanWorkspace(ws herdr.Workspace, tabs []herdr.Tab, panes map[string][]herdr.Pane) (p Plan, ok bool) {
	var tab herdr.Tab
	for _, t := range tabs {
		if len(panes[t.ID]) == 0 {
			continue
		}
		if !ok || t.ID == ws.ActiveTabID {
			tab, ok = t, true
		}
	}
	if !ok {
		return Plan{}, false
	}
	tab.AgentStatus, tab.Number = ws.AgentStatus, ws.Number
	ws.Label = ""
	return n.Plan(tab, ws, panes[tab.ID]), true
}
